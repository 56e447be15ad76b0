// The session file's text (what the GUI saves on exit and restores at start): a pure reader and
// writer with no window, shared by the GUI and the session fuzz target (fuzz/session_fuzz.cpp).
#pragma once

#include "gui/state/exercise_progress.hpp"
#include "gui/state/document.hpp"
#include "gui/state/view_settings.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::gui {

// A document left behind by a run that did not exit cleanly (crash, kill -9, power cut).
struct RecoveredWork {
  Document doc;
  std::string scenario_path;
  std::string saved_at;  // local time, "2026-11-21 07:03:12"
};

struct WindowGeometry {
  int width = 1280, height = 800;
  friend bool operator==(const WindowGeometry&, const WindowGeometry&) = default;
};
// The window sizes a session may ask for; anything outside is clamped (a screen never has fewer
// pixels than the smallest usable window, and no GL framebuffer has more than 16384 per side).
inline constexpr int kMinWindowWidth = 320, kMinWindowHeight = 240, kMaxWindowSide = 16384;

// Everything a session file holds.
struct SessionData {
  Document doc;
  std::string scenario_path;
  ViewSettings view;
  std::vector<std::string> recent_files;  // most recent first
  WindowGeometry window;
  ExerciseProgress exercises;  // what the student solved of each lesson's exercise
};

// The session JSON: {"format": "attnlab-session", "version": 1, "scenario": {scenario file object},
// "scenario_path", "self_attention", "view": {...}, "recent_files": [...], "window": [w, h], "exercises": {"<lesson>": {"seed", "solved": ["a", …]}}}.
std::string session_json(const SessionData& session);
// Reads session JSON strictly: a field of the wrong type or out of range throws InputError naming
// `source` and the field. Unknown fields are ignored (later versions add fields). The window size
// is clamped to what a screen can show; a self-attention flag on a rectangular problem reads as
// cross-attention.
SessionData parse_session(std::string_view text, std::string_view source);

// The recovery file's JSON: {"format": "attnlab-recovery", "version": 1, "saved_at", "pid",
// "scenario_path", "self_attention", "scenario": {scenario file object}}.
std::string recovery_json(const Document& doc, std::string_view scenario_path, std::string_view saved_at, long pid);
// Reads recovery JSON; throws InputError naming `source` (and the field) when it is not one.
RecoveredWork parse_recovery(std::string_view text, std::string_view source);

}  // namespace attnlab::gui
