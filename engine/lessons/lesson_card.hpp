// A lesson's reference card: one printable page with its title, its source in the course, its
// goal, what to try and the keys it uses, laid out for the figure writer (PDF through Cairo).
#pragma once

#include "engine/figures/export.hpp"
#include "engine/figures/figure.hpp"
#include "engine/lessons/lesson_text.hpp"

#include <filesystem>

namespace attnlab {

// The card of a lesson whose text is `t` (rendered with the lesson's numbers), `name` its preset
// name ("three-tokens"), shown as the way to open it. Width: A5 (420 pt); height fits the text.
Figure layout_lesson_card(const Scenario& s, const RenderedLesson& t, const std::string& name);

// The text of the lesson `s` filled with its own numbers (computed on the CPU), as its card prints it.
RenderedLesson lesson_card_text(const Scenario& s);

// Renders the card of built-in lesson `name` (with its original numbers) as PDF bytes. Throws
// InputError for an unknown lesson or one without a lesson text.
std::string lesson_card_pdf(const std::string& name);

// Writes lesson_card_pdf(name) to `path` (a .pdf) atomically; checks the target first like
// `attnlab export` (o.force, o.target_name, o.overwrite_hint). Throws InputError.
void write_lesson_card(const std::string& name, const std::filesystem::path& path, const ExportOptions& o);

}  // namespace attnlab
