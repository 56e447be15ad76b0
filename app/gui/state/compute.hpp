// The recompute after an edit: the document goes to the chosen backend (Services::backend) and its
// result, with the caches derived from it (result_caches.hpp), into AppState. Knows nothing of panels.
#pragma once

#include "gui/shell/app_state.hpp"

namespace attnlab::gui {

struct Services;

// Recomputes the result when the document changed, through the backend; on failure keeps the
// last good result and sets state.error.
// Documents too large for dense stages (gui_streams) are streamed on a background thread:
// each call also takes a finished run's result.
void recompute_if_needed(AppState& state, Services& services);
// Starts (or restarts) the background streaming run of the current document on a backend of the
// active one's kind.
void start_streaming(AppState& state, const Services& services);
// Stops the running streaming computation; the last good result stays.
void cancel_streaming(AppState& state);

}  // namespace attnlab::gui
