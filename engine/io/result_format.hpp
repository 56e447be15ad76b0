// Printing a Result: the `compute --format json` object and the human text format.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/io/scenario.hpp"

#include <ostream>

namespace attnlab {

struct FormatOptions {
  bool summary = false;  // leave out the n × m matrices
  std::string backend = "cpu";
};

// The compute JSON (docs/ARCHITECTURE.md, "Contracts"): n, m, d_k, d_v, scale, temperature, effective_temperature, mask,
// scores, logits (blocked as null), weights, output, saturation, rows, stats.
void write_result_json(std::ostream& out, const Scenario& s, const Result& r, const FormatOptions& f);

// Aligned matrices with token labels, each stage titled; large matrices are elided in the middle.
void write_result_text(std::ostream& out, const Scenario& s, const Result& r, const FormatOptions& f);

}  // namespace attnlab
