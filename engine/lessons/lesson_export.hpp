// The temperature lesson's animation as a numbered PNG sequence (for slides and videos), drawn by
// the same figure writer as `attnlab export`.
#pragma once

#include "engine/figures/export.hpp"

#include <filesystem>
#include <vector>

namespace attnlab {

// Writes one PNG per temperature of the scenario's lesson sweep (lesson.tau_min … tau_max,
// lesson.frames, log-spaced) into `folder` (created when missing) as temperature_0001.png, … .
// Each frame is `o.stage` (weights by default) titled with τ and s·τ, on a fixed colour range
// so frames compare. Existing files are an InputError unless o.force. Returns the paths written.
std::vector<std::filesystem::path> export_temperature_sequence(const Scenario& s, const std::filesystem::path& folder,
                                                               const ExportOptions& o);

}  // namespace attnlab
