// The undo history and the one point where the document changes. Every change to AppState::doc goes
// through apply(), which snapshots the document for undo, validates the edit (a refused edit keeps
// the last good state and sets AppState::error) and marks the result for recomputation.
#pragma once

#include "gui/state/app_state.hpp"

#include <functional>
#include <string>
#include <string_view>

namespace attnlab::gui {

// Applies `edit` to a copy of the document; commits it when it validates, else sets state.error
// and keeps the document. Edits sharing a non-empty `merge_key` in a row make one undo entry.
// Returns true when committed.
bool apply(AppState& state, std::string_view name, const std::function<void(Document&)>& edit,
           std::string_view merge_key = {});
// Ends a run of merged edits (the drag or the text entry finished).
void end_merge(AppState& state);

bool can_undo(const AppState& state);
bool can_redo(const AppState& state);
// The name of the action that undo/redo would revert/replay, or empty.
std::string undo_name(const AppState& state);
std::string redo_name(const AppState& state);
void undo(AppState& state);
void redo(AppState& state);

// Replaces the whole document (start-up, session restore) without an undo entry.
void reset_document(AppState& state, Scenario scenario, std::string path);

// Undo keeps at most this many bytes of documents (and at least the last edit).
inline constexpr double kHistoryBytes = 1024.0 * 1024 * 1024;

}  // namespace attnlab::gui
