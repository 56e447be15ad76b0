// The one place where the app's state changes at a view's request: the commands views push
// (state/commands.hpp) applied to AppState, right after the view that pushed them. Edits go through
// the history (state/history.hpp): a refused one says why in the status line and keeps the document.
// Each command's case is the Applier's (applier.hpp).
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/history.hpp"
#include "gui/state/services.hpp"

#include <string>

namespace attnlab::gui {

// Applies one command; returns whether it did what it asked (an edit committed, a file opened).
bool apply(AppState& state, Services& services, Command command);
// Applies the commands in order and empties the list.
void apply(AppState& state, Services& services, Commands& commands);

// An edit of the catalogue committed to the document (one undo entry, or merged into the last): a
// refused one says why in state.error; an empty one does nothing. Returns true when committed.
bool apply(AppState& state, const Edit& edit);

// The recompute after the document changed (state/compute.hpp) on the active backend, and what it
// said: a sentence in the status line, a document rolled back to the shown result's.
void recompute_if_needed(AppState& state, Services& services);

// Replaces the whole document (start-up, session restore) without an undo entry.
void reset_document(AppState& state, Scenario scenario, std::string path);

}  // namespace attnlab::gui
