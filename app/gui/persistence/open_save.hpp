// Opening and saving files from the GUI: scenarios, matrices into Q/K/V, dropped files, recents.
// Failures never change the document: the engine's sentence goes to state.error.
#pragma once

#include "gui/shell/app_state.hpp"

#include <string>

namespace attnlab::gui {

void open_scenario_file(AppState& state, const std::string& path);
void save_scenario_file(AppState& state, const std::string& path);
// Writes the reference card of built-in lesson `lesson` as PDF (engine/lessons/lesson_card.hpp); the user
// chose the file, so an existing one is replaced. Errors go to state.error.
void save_lesson_card_file(AppState& state, const std::string& lesson, const std::string& path);
void open_matrix_file(AppState& state, Which which, const std::string& path);
// A file dropped onto the window: scenarios open at once; .npy/.csv ask which matrix first.
void open_dropped_file(AppState& state, const std::string& path);
void add_recent_file(AppState& state, const std::string& path);
inline constexpr size_t kMaxRecentFiles = 10;

}  // namespace attnlab::gui
