// The Lesson view's band of the lesson's own text on a projector (issue 69: with a lesson's page
// open, what the text asks the viewer to look at was out of sight; opened, the text shrank the
// pipeline to thumbnails). Under the page, the "look at" sentences about the page (not those about
// the pipeline, which the page covers) one part at a time, L (or the band's buttons) turning them;
// the band keeps the tallest part's room, so the page above it never moves as the parts turn.
#pragma once

#include "gui/lessons/lessons_ui.hpp"
#include "gui/state/view_context.hpp"

#include <functional>
#include <string>
#include <vector>

namespace attnlab::gui {

// A part holds at most this many lines at the band's width (a single sentence longer than that
// is a part alone, and the band grows to hold it).
inline constexpr int kLookAtLines = 2;

// The parts of `look_at`: each item split after its sentences and clauses (". ", "; ") and packed, in order, into
// parts that `lines_of` (a text's wrapped line count at the band's width) gives at most `max_lines`.
std::vector<std::string> look_at_parts(const std::vector<std::string>& look_at, int max_lines,
                                       const std::function<int(const std::string&)>& lines_of);

// The band's height for the shown lesson at the current window's width: 0 where it is not drawn (not
// presenter mode, or a lesson without "look at" text). Call before drawing the page above it.
float look_at_band_height(const ViewContext& ctx, LessonsUi& ui);
// Draws the band (its part, "< 2/5 >"; L turns to the next part, Shift+L back) in the height
// look_at_band_height gave.
void draw_look_at_band(const ViewContext& ctx, LessonsUi& ui);

}  // namespace attnlab::gui
