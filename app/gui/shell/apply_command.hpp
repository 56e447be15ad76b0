// The one place where the app's state changes at a view's request: the commands views push
// (state/commands.hpp) applied to AppState, right after the view that pushed them. Edits go through
// the history (state/history.hpp): a refused one says why in the status line and keeps the document.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/history.hpp"
#include "gui/state/services.hpp"

#include <functional>
#include <string>
#include <string_view>

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

// Transitional, for callers not yet handing on commands: the history's steps on the whole state.
bool apply(AppState& state, std::string_view name, const std::function<void(Document&)>& edit, std::string_view merge_key = {});
void end_merge(AppState& state);
bool can_undo(const AppState& state);
bool can_redo(const AppState& state);
std::string undo_name(const AppState& state);
std::string redo_name(const AppState& state);
void undo(AppState& state);
void redo(AppState& state);
// Transitional, for the Model, Training and lesson views not yet handing on ChooseFile and StageMenu.
void open_file_dialog(AppState& state, FilePurpose purpose);
void handle_heatmap_menu(AppState& state, Stage stage, HeatmapMenu menu);

// Transitional: the catalogue applied to the whole state at once, for the lesson and Model views not
// yet handing edits on as commands.
namespace actions {

void set_normalizer(AppState& s, Normalizer n);
void load_scenario(AppState& s, const Scenario& scenario, const std::string& path, const std::string& name);
void load_preset(AppState& s, const std::string& preset_name);
void reset_lesson(AppState& s);

}  // namespace actions

}  // namespace attnlab::gui
