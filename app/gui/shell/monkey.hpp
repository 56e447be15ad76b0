// The GUI monkey (docs/ROBUSTNESS.md): random use of the real window, faster than a person, for the
// tests that the app never aborts, crashes or trips a sanitizer. From a seed it plans actions
// (clicks, double-, shift-, ctrl- and right-clicks, drags, wheel turns, the app's shortcut keys,
// editing keys, typed text) and feeds them to ImGui's input, one frame's worth before each
// ImGui::NewFrame, as the platform backend would. Like a person it mostly clicks on things (the
// pointer looks for an item under it first), presses Esc in a dialog and closes floating windows
// now and then. Turned on by ATTNLAB_GUI_MONKEY (monkey_from_env); tests/gui/monkey/ drives it,
// restarting the app when it quits through its own menu.
#pragma once

#include "engine/io/scenario.hpp"
#include "gui/widgets/drawn_rect.hpp"

#include <imgui.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::gui {

struct MonkeyOptions {
  std::uint64_t seed = 1;
  long actions = -1;        // stop after this many actions (-1: no limit)
  double seconds = -1;      // stop starting actions after this long (-1: no limit)
  std::string log_path;     // each action, one line, appended and flushed (what came before a crash)
  std::string report_path;  // written when the window closes: actions done, how it ended, the document
  // A floating window the monkey never closes by its close button: the scenario's subject (the
  // Model window), which would otherwise be gone for most of a run after the first few actions.
  std::string keep_window;
  // File dialogs and the Export dialog never leave this folder (the monkey types and clicks "Save"):
  // where the app started.
  std::filesystem::path sandbox;
};

// ATTNLAB_GUI_MONKEY="seed=S,actions=N,seconds=T,log=FILE,report=FILE,keep=WINDOW" (any of them; seed
// and one of actions or seconds are needed). Empty when the variable is unset; throws InputError
// when it is malformed.
std::optional<MonkeyOptions> monkey_from_env();

// One frame's input, as a person's mouse and keyboard would give it.
struct MonkeyInput {
  ImVec2 mouse{0, 0};
  bool down[3] = {false, false, false};  // left, right, middle
  float wheel = 0, wheel_h = 0;
  bool ctrl = false, shift = false;
  int key = -1;       // a GLFW key code held down this frame
  std::string chars;  // UTF-8 typed this frame
};

class Monkey {
public:
  explicit Monkey(MonkeyOptions options);

  // Before ImGui::NewFrame (after the platform backend's NewFrame, whose input it replaces): plans
  // the next action when the last one is done, and puts this frame's part of it into ImGui's input.
  // `maps`: the heatmaps drawn last frame (a click aims at their cells now and then); `app_error`:
  // the status line, kept from the first frame (what the app said as it started).
  void feed(const std::vector<DrawnRect>& maps, const std::string& app_error);
  // A dialog's folder and file name kept inside the sandbox (the monkey types and clicks "Save").
  void keep_in_sandbox(std::string& directory, std::string& file_name) const;
  // True once every action is done (or the time is up) and the last one's buttons are released.
  bool finished() const;
  // When the window closes: the report (how many actions, how it ended, the document left).
  void finish(const Scenario& doc, bool quit_by_app);
  long actions_done() const { return done_; }

private:
  // Queues an action at a point and returns its line for the log.
  using Act = std::function<std::string(Monkey&, const std::vector<DrawnRect>&, ImVec2)>;
  struct Seek {
    int tries = 0;
    long action = 0;  // its number, for the log
    Act act;
  };
  static constexpr int kSeekTries = 6;

  std::uint64_t next();
  int below(int n);      // 0 ≤ k < n
  float unit();          // [0, 1)
  ImVec2 target(const std::vector<DrawnRect>& maps);
  void plan(const std::vector<DrawnRect>& maps);
  void aim(const std::vector<DrawnRect>& maps, long action, Act act);
  void settle_seek(const std::vector<DrawnRect>& maps);
  void click(ImVec2 p, int button, bool ctrl, bool shift, int times);
  void drag(ImVec2 from, ImVec2 to, int button);
  void key(int glfw_key, bool ctrl, bool shift);
  void log(const std::string& line);
  void apply(const MonkeyInput& in);

  MonkeyOptions options_;
  std::uint64_t rng_;
  std::deque<MonkeyInput> queue_;
  std::optional<Seek> seek_;  // a click or drag looking for an item to start on
  MonkeyInput last_;
  long done_ = 0;
  long frames_ = 0;
  bool started_ = false;
  std::string start_error_;  // what the app said as it started (a session it could not restore)
  std::chrono::steady_clock::time_point start_;
  std::ofstream log_;
};

}  // namespace attnlab::gui
