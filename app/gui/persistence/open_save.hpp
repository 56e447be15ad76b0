// Opening and saving the lab's files (scenarios, matrices into Q/K/V, lesson reference cards) and the
// recent-files list: plain functions on what they read, which return what happened (a scenario to
// load, an edit, a sentence, the new list) for the shell to apply. Failures throw InputError with the
// engine's sentence, and then nothing has changed.
#pragma once

#include "gui/state/commands.hpp"
#include "gui/state/document.hpp"
#include "gui/state/edits.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace attnlab::gui {

// What a dropped or recent file is, by its extension: a scenario (.json), a matrix (.npy, .csv), or
// something else (a model's folder or file, maybe: the Model window's to say).
enum class FileKind { Scenario, Matrix, Other };
FileKind file_kind(const std::string& path);
// Why a file that is neither a scenario, a matrix nor a model cannot be opened.
std::string unknown_file_refusal(const std::string& path);

// The scenario file at `path` as the command that loads it ("open lesson.json").
LoadScenario scenario_file_to_load(const std::string& path);
// Writes the document's scenario to `path` (untitled: titled after the file), the file it replaces
// kept as <file>.bak. Returns the sentence that says so.
std::string save_scenario_file(const Document& doc, const std::string& path);
// Writes the reference card of built-in lesson `lesson` as PDF (engine/lessons/lesson_card.hpp); the
// user chose the file, so an existing one is replaced. Returns the sentence that says so.
std::string save_lesson_card_file(const std::string& lesson, const std::string& path);
// The matrix file at `path` (.npy, .csv) as the edit that puts it into `which` (the sizes follow it).
Edit matrix_file_edit(const Document& doc, Which which, const std::string& path);

// `recent` with `path` (made absolute) first and no other copy of it, at most kMaxRecentFiles.
std::vector<std::string> with_recent_file(std::vector<std::string> recent, const std::string& path);
inline constexpr size_t kMaxRecentFiles = 10;

}  // namespace attnlab::gui
