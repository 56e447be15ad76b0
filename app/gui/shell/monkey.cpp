// The GUI monkey: random actions fed to ImGui's input, frame by frame (see monkey.hpp).
#include "gui/shell/monkey.hpp"

#include "engine/attention/matrix.hpp"  // InputError
#include "engine/text/text_format.hpp"

#include <GLFW/glfw3.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

namespace attnlab::gui {

namespace fs = std::filesystem;

namespace {

// A key the monkey presses: the app's shortcuts, the walk-through's and the Model window's keys,
// editing keys and digits; `ch` is the character a keyboard types with it (none with Ctrl).
struct KeyChoice {
  int key;
  bool ctrl;
  bool shift;
  const char* ch;
  const char* name;  // for the log
  int weight;        // how often, against the others
};

constexpr KeyChoice kKeys[] = {
    // Undo and redo, often: they move the document under whatever the panels are showing; Ctrl's other keys.
    {GLFW_KEY_Z, true, false, nullptr, "ctrl+z", 3}, {GLFW_KEY_Z, true, true, nullptr, "ctrl+shift+z", 1},
    {GLFW_KEY_Y, true, false, nullptr, "ctrl+y", 2}, {GLFW_KEY_O, true, false, nullptr, "ctrl+o", 1},
    {GLFW_KEY_S, true, false, nullptr, "ctrl+s", 1}, {GLFW_KEY_A, true, false, nullptr, "ctrl+a", 1},
    {GLFW_KEY_C, true, false, nullptr, "ctrl+c", 1}, {GLFW_KEY_V, true, false, nullptr, "ctrl+v", 1},
    {GLFW_KEY_X, true, false, nullptr, "ctrl+x", 1},
    // The shortcuts (shortcuts.cpp).
    {GLFW_KEY_S, false, false, "s", "s", 1}, {GLFW_KEY_LEFT_BRACKET, false, false, "[", "left bracket", 1},
    {GLFW_KEY_RIGHT_BRACKET, false, false, "]", "right bracket", 1}, {GLFW_KEY_0, false, false, "0", "0", 1},
    {GLFW_KEY_M, false, false, "m", "m", 2}, {GLFW_KEY_F5, false, false, nullptr, "f5", 1},
    {GLFW_KEY_P, false, false, "p", "p", 1}, {GLFW_KEY_T, false, false, "t", "t", 1},
    {GLFW_KEY_I, false, false, "i", "i", 1}, {GLFW_KEY_B, false, false, "b", "b", 1},
    {GLFW_KEY_C, false, false, "c", "c", 1}, {GLFW_KEY_ESCAPE, false, false, nullptr, "escape", 1},
    {GLFW_KEY_F1, false, false, nullptr, "f1", 1}, {GLFW_KEY_F2, false, false, nullptr, "f2", 1},
    // The walk-through, the lesson views' steps and the Model window's chooser.
    {GLFW_KEY_SPACE, false, false, " ", "space", 2}, {GLFW_KEY_LEFT, false, false, nullptr, "left", 1},
    {GLFW_KEY_RIGHT, false, false, nullptr, "right", 1}, {GLFW_KEY_UP, false, false, nullptr, "up", 1},
    {GLFW_KEY_DOWN, false, false, nullptr, "down", 1}, {GLFW_KEY_PAGE_UP, false, false, nullptr, "page up", 1},
    {GLFW_KEY_PAGE_DOWN, false, false, nullptr, "page down", 1},
    {GLFW_KEY_ENTER, false, false, nullptr, "enter", 2},
    {GLFW_KEY_KP_ENTER, false, false, nullptr, "kp enter", 1},
    // Editing.
    {GLFW_KEY_BACKSPACE, false, false, nullptr, "backspace", 1},
    {GLFW_KEY_DELETE, false, false, nullptr, "delete", 1}, {GLFW_KEY_TAB, false, false, nullptr, "tab", 1},
    {GLFW_KEY_TAB, false, true, nullptr, "shift+tab", 1}, {GLFW_KEY_HOME, false, false, nullptr, "home", 1},
    {GLFW_KEY_END, false, false, nullptr, "end", 1},
    // Digits.
    {GLFW_KEY_1, false, false, "1", "1", 1}, {GLFW_KEY_2, false, false, "2", "2", 1},
    {GLFW_KEY_3, false, false, "3", "3", 1}, {GLFW_KEY_5, false, false, "5", "5", 1},
    {GLFW_KEY_7, false, false, "7", "7", 1}, {GLFW_KEY_9, false, false, "9", "9", 1},
};

// What a person types into a field: digits, signs, exponents, letters, a space, brackets and
// non-ASCII letters (é; ש and 東, which the fonts add as they appear; an emoji past ImWchar's range;
// Arabic's lam and alef, which join where right-to-left text is drawn in reading order), never a
// path separator (the sandbox is a folder name away).
const std::vector<std::string> kTyped = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", ".", "-", "+", "e", "E", "a", "b",
                                         "x", "y", " ", "\xc3\xa9", "\xd7\xa9", "\xe6\x9d\xb1", "\xf0\x9f\x98\x80", "9", "0", "1",
                                         "\xd9\x84", "\xd8\xa7", "(", ")"};

// Whether a modal popup (a dialog that holds the keys and clicks until it closes) is open.
bool modal_open() {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  for (const ImGuiPopupData& p : g.OpenPopupStack) {
    if (p.Window && (p.Window->Flags & ImGuiWindowFlags_Modal)) return true;
  }
  return false;
}

// A floating window with a close button (the Training, Help, Export windows; the columns have
// none), the topmost but `keep`; null when there is none.
const ImGuiWindow* closable_window(const std::string& keep) {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  for (int k = g.Windows.Size - 1; k >= 0; --k) {
    const ImGuiWindow* w = g.Windows[k];
    if (w->Active && !w->Hidden && w->HasCloseButton && !(w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_NoTitleBar)) &&
        keep != w->Name) {
      return w;
    }
  }
  return nullptr;
}

std::string window_name_at(ImVec2 p) {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  for (int k = g.Windows.Size - 1; k >= 0; --k) {
    const ImGuiWindow* w = g.Windows[k];
    if (!w->Active || w->Hidden) continue;
    if (p.x >= w->Pos.x && p.y >= w->Pos.y && p.x < w->Pos.x + w->Size.x && p.y < w->Pos.y + w->Size.y) return w->Name;
  }
  return "-";
}

std::string point_text(ImVec2 p) {
  return fixed_decimals(p.x, 0) + "," + fixed_decimals(p.y, 0);
}

// Whether `dir` is inside `root` (both made absolute and normal, the latter already canonical).
bool inside(const fs::path& root, const std::string& dir) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec) return false;
  return std::mismatch(root.begin(), root.end(), p.begin(), p.end()).first == root.end();
}

void keep_file_name(std::string& name) {
  name.erase(std::remove(name.begin(), name.end(), '/'), name.end());
  if (name == "." || name == "..") name = "monkey";
}

long parse_long(const std::string& key, const std::string& value) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || v < 0) {
    throw InputError("ATTNLAB_GUI_MONKEY: " + key + "=" + value + " is not a whole number of 0 or more");
  }
  return v;
}

// splitmix64's output function: the seed goes through it too, so that the streams of seeds 1, 2,
// 3, ... start far apart (seed × constant made them one stream shifted by a few draws, and nearby
// seeds soon did the same actions).
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::optional<MonkeyOptions> monkey_from_env() {
  const char* env = std::getenv("ATTNLAB_GUI_MONKEY");
  if (!env || !*env) return std::nullopt;
  MonkeyOptions o;
  bool seeded = false;
  std::stringstream in(env);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "seed") {
      o.seed = static_cast<std::uint64_t>(parse_long(key, value));
      seeded = true;
    } else if (key == "actions") {
      o.actions = parse_long(key, value);
    } else if (key == "seconds") {
      o.seconds = static_cast<double>(parse_long(key, value));
    } else if (key == "log") {
      o.log_path = value;
    } else if (key == "report") {
      o.report_path = value;
    } else if (key == "keep") {
      o.keep_window = value;
    } else {
      throw InputError("ATTNLAB_GUI_MONKEY: \"" + item + "\" is not one of seed=, actions=, seconds=, log=, report=, keep=");
    }
  }
  if (!seeded || (o.actions < 0 && o.seconds < 0)) {
    throw InputError("ATTNLAB_GUI_MONKEY needs seed= and actions= or seconds= (\"seed=7,actions=300\")");
  }
  std::error_code ec;
  o.sandbox = fs::weakly_canonical(fs::current_path(ec), ec);
  return o;
}

Monkey::Monkey(MonkeyOptions options) : options_(std::move(options)), rng_(mix64(options_.seed ^ 0x6A09E667F3BCC909ull)) {
  if (!options_.log_path.empty()) log_.open(options_.log_path, std::ios::app);
}

// splitmix64: the same actions from the same seed on every machine and standard library.
std::uint64_t Monkey::next() { return mix64(rng_ += 0x9E3779B97F4A7C15ull); }

int Monkey::below(int n) { return n <= 1 ? 0 : static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

float Monkey::unit() { return static_cast<float>(next() >> 40) / static_cast<float>(1ull << 24); }

void Monkey::log(const std::string& line) {
  if (!log_.is_open()) return;
  log_ << line << '\n';
  log_.flush();  // what was done last must be on disk when the app aborts
}

// Where the next action happens: mostly where there is something to hit (an open menu or question,
// a heatmap's cells, any window), else anywhere in the window.
ImVec2 Monkey::target(const std::vector<DrawnRect>& heatmaps) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const auto in = [&](float x0, float y0, float x1, float y1) {
    const float x = std::clamp(x0 + unit() * (x1 - x0), 0.0f, std::max(display.x - 1, 0.0f));
    const float y = std::clamp(y0 + unit() * (y1 - y0), 0.0f, std::max(display.y - 1, 0.0f));
    return ImVec2(x, y);
  };
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  if (g.OpenPopupStack.Size > 0 && below(10) < 6) {
    if (const ImGuiWindow* w = g.OpenPopupStack.back().Window; w && w->Active) {
      return in(w->Pos.x, w->Pos.y, w->Pos.x + w->Size.x, w->Pos.y + w->Size.y);
    }
  }
  const int pick = below(10);
  if (pick < 3) return in(0, 0, display.x, display.y);
  if (pick < 5) {
    std::vector<DrawnRect> maps(heatmaps);
    maps.erase(std::remove_if(maps.begin(), maps.end(), [](const DrawnRect& d) { return !d.drawn || d.x1 <= d.x0; }), maps.end());
    if (!maps.empty()) {
      const DrawnRect& d = maps[static_cast<size_t>(below(static_cast<int>(maps.size())))];
      return in(d.x0, d.y0, d.x1, d.y1);
    }
  }
  std::vector<const ImGuiWindow*> windows;
  for (const ImGuiWindow* w : g.Windows) {
    if (w->Active && !w->Hidden && w->Size.x > 2 && w->Size.y > 2) windows.push_back(w);
  }
  if (windows.empty()) return in(0, 0, display.x, display.y);
  // Half the time any window alike (menus, popups, the status bar: small, full of items), half by
  // its area (the columns, where most of the controls are).
  const ImGuiWindow* w = windows[static_cast<size_t>(below(static_cast<int>(windows.size())))];
  if (pick < 7) {
    float total = 0;
    for (const ImGuiWindow* c : windows) total += c->Size.x * c->Size.y;
    float at = unit() * total;
    for (const ImGuiWindow* c : windows) {
      w = c;
      if ((at -= c->Size.x * c->Size.y) < 0) break;
    }
  }
  return in(w->Pos.x, w->Pos.y, w->Pos.x + w->Size.x, w->Pos.y + w->Size.y);
}

void Monkey::click(ImVec2 p, int button, bool ctrl, bool shift, int times) {
  MonkeyInput at;
  at.mouse = p;
  at.ctrl = ctrl;
  at.shift = shift;
  queue_.push_back(at);  // the pointer arrives first, as a hand's does: hover, then press
  for (int k = 0; k < times; ++k) {
    MonkeyInput down = at;
    down.down[button] = true;
    queue_.push_back(down);
    queue_.push_back(at);
  }
}

void Monkey::drag(ImVec2 from, ImVec2 to, int button) {
  MonkeyInput in;
  in.mouse = from;
  queue_.push_back(in);
  in.down[button] = true;
  const int steps = 3 + below(6);
  for (int k = 0; k <= steps; ++k) {
    const float t = static_cast<float>(k) / static_cast<float>(steps);
    in.mouse = ImVec2(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t);
    queue_.push_back(in);
  }
  in.down[button] = false;
  queue_.push_back(in);
}

void Monkey::key(int glfw_key, bool ctrl, bool shift) {
  MonkeyInput in;
  in.mouse = last_.mouse;
  in.ctrl = ctrl;
  in.shift = shift;
  in.key = glfw_key;
  queue_.push_back(in);
  in.key = -1;
  in.ctrl = in.shift = false;
  queue_.push_back(in);  // released: ImGui sees a press, not a held key
}

// Where a click or drag starts: most of the time on an item (a button, a field, a cell), as a
// person's would: the pointer tries a point a frame until ImGui reports an item under it (at most
// kSeekTries points); else anywhere target() picks, empty space included.
void Monkey::aim(const std::vector<DrawnRect>& maps, long action, Act act) {
  if (below(10) < 3) {
    log(std::to_string(action) + " " + act(*this, maps, target(maps)));
    return;
  }
  seek_ = Seek{0, action, std::move(act)};
  MonkeyInput in;
  in.mouse = target(maps);
  queue_.push_back(in);
}

// After a seeking frame: another point, or the action where the pointer is.
void Monkey::settle_seek(const std::vector<DrawnRect>& maps) {
  const bool on_item = ImGui::GetCurrentContext()->HoveredId != 0;  // the last frame's, under the pointer
  if (!on_item && seek_->tries < kSeekTries) {
    ++seek_->tries;
    MonkeyInput in;
    in.mouse = target(maps);
    queue_.push_back(in);
    return;
  }
  const Seek s = std::exchange(seek_, std::nullopt).value();
  log(std::to_string(s.action) + " " + s.act(*this, maps, last_.mouse) + (on_item ? "" : " (no item)"));
}

// The next action, as its frames of input.
void Monkey::plan(const std::vector<DrawnRect>& maps) {
  const long n = ++done_;
  const int r = below(100);
  std::string what;
  const ImGuiWindow* closable = closable_window(options_.keep_window);
  if (modal_open() && below(6) == 0) {
    // A person in a dialog they did not mean to open presses Esc before long (the file dialog is
    // large: clicks at random would keep the monkey there for most of a run).
    key(GLFW_KEY_ESCAPE, false, false);
    what = "key escape (a dialog is open)";
  } else if (closable && below(12) == 0) {
    // And closes a window now and then: left open, the floating ones cover the columns for good.
    const float button = ImGui::GetFontSize();
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImVec2 p(closable->Pos.x + closable->Size.x - style.FramePadding.x * 2 - button * 0.5f,
                   closable->Pos.y + style.FramePadding.y + button * 0.5f);
    click(p, 0, false, false, 1);
    what = std::string("close ") + closable->Name + " at " + point_text(p);
  } else if (r < 40) {
    // Clicks: plain, double, with Shift (blocks a cell), with Ctrl (types into a number), right.
    const int kind = below(20);
    const bool dbl = kind < 3, shift = kind >= 3 && kind < 6, ctrl = kind >= 6 && kind < 8, right = kind >= 8 && kind < 10;
    const std::string name = dbl ? "double-click" : shift ? "shift-click" : ctrl ? "ctrl-click" : right ? "right-click" : "click";
    aim(maps, n, [=](Monkey& m, const std::vector<DrawnRect>&, ImVec2 p) {
      m.click(p, right ? 1 : 0, ctrl, shift, dbl ? 2 : 1);
      return name + " " + point_text(p) + " " + window_name_at(p);
    });
    return;
  } else if (r < 50) {
    const int button = below(6) == 0 ? 1 : 0;
    aim(maps, n, [button](Monkey& m, const std::vector<DrawnRect>& st, ImVec2 from) {
      const ImVec2 to = m.below(2) ? m.target(st) : ImVec2(from.x + (m.unit() - 0.5f) * 400.0f, from.y + (m.unit() - 0.5f) * 300.0f);
      m.drag(from, to, button);
      return std::string(button ? "right-drag " : "drag ") + point_text(from) + " " + window_name_at(from) + " to " + point_text(to);
    });
    return;
  } else if (r < 58) {
    MonkeyInput in;
    in.mouse = target(maps);
    const float turn = static_cast<float>(1 + below(3)) * (below(2) ? 1.0f : -1.0f);
    const bool sideways = below(4) == 0;
    (sideways ? in.wheel_h : in.wheel) = turn;
    in.ctrl = below(5) == 0;
    queue_.push_back(in);
    MonkeyInput after = in;
    after.wheel = after.wheel_h = 0;
    after.ctrl = false;
    queue_.push_back(after);
    what = std::string("wheel ") + (sideways ? "sideways " : "") + std::to_string(static_cast<int>(turn)) + (in.ctrl ? " ctrl " : " ") +
           point_text(in.mouse) + " " + window_name_at(in.mouse);
  } else if (r < 62) {
    MonkeyInput in;
    in.mouse = target(maps);
    queue_.push_back(in);
    what = "move " + point_text(in.mouse) + " " + window_name_at(in.mouse);
  } else if (r < 90) {
    int total = 0;
    for (const KeyChoice& c : kKeys) total += c.weight;
    int at = below(total);
    const KeyChoice* chosen = &kKeys[0];
    for (const KeyChoice& c : kKeys) {
      if ((at -= c.weight) < 0) {
        chosen = &c;
        break;
      }
    }
    const KeyChoice& k = *chosen;
    key(k.key, k.ctrl, k.shift);
    if (k.ch) queue_[queue_.size() - 2].chars = k.ch;  // the character comes with the key press
    what = std::string("key ") + k.name;
  } else {
    MonkeyInput in;
    in.mouse = last_.mouse;
    const int count = 1 + below(6);
    for (int k = 0; k < count; ++k) in.chars += kTyped[static_cast<size_t>(below(static_cast<int>(kTyped.size())))];
    queue_.push_back(in);
    what = "type \"" + in.chars + "\"";
  }
  log(std::to_string(n) + " " + what);
}

void Monkey::keep_in_sandbox(std::string& directory, std::string& file_name) const {
  if (options_.sandbox.empty()) return;
  if (!directory.empty() && !inside(options_.sandbox, directory)) directory = options_.sandbox.string();
  keep_file_name(file_name);
}

void Monkey::apply(const MonkeyInput& in) {
  ImGuiIO& io = ImGui::GetIO();
  // The clock runs a sixtieth of a second a frame, however slowly a sanitizer build draws: a double
  // click stays a double click, and the same seed does the same things.
  io.DeltaTime = 1.0f / 60.0f;
  io.MousePos = in.mouse;
  for (int b = 0; b < 3; ++b) io.MouseDown[b] = in.down[b];
  io.MouseWheel = in.wheel;
  io.MouseWheelH = in.wheel_h;
  if (last_.key >= 0) io.KeysDown[last_.key] = false;
  if (in.key >= 0) io.KeysDown[in.key] = true;
  io.KeysDown[GLFW_KEY_LEFT_CONTROL] = in.ctrl;
  io.KeysDown[GLFW_KEY_LEFT_SHIFT] = in.shift;
  io.KeyCtrl = in.ctrl;
  io.KeyShift = in.shift;
  io.KeyAlt = io.KeySuper = false;
  if (!in.chars.empty()) io.AddInputCharactersUTF8(in.chars.c_str());
  last_ = in;
}

void Monkey::feed(const std::vector<DrawnRect>& maps, const std::string& app_error) {
  if (!started_) {
    started_ = true;
    start_ = std::chrono::steady_clock::now();
    start_error_ = app_error;
    log("start seed " + std::to_string(options_.seed) + (start_error_.empty() ? "" : ": " + start_error_));
  }
  ++frames_;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const bool more = (options_.actions < 0 || done_ < options_.actions) && (options_.seconds < 0 || elapsed < options_.seconds);
  if (queue_.empty() && seek_) settle_seek(maps);
  if (queue_.empty() && more) plan(maps);
  MonkeyInput in;
  in.mouse = last_.mouse;
  if (!queue_.empty()) {
    in = std::move(queue_.front());
    queue_.pop_front();
  }
  apply(in);
}

bool Monkey::finished() const {
  if (!started_ || !queue_.empty() || seek_ || frames_ < 5) return false;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return (options_.actions >= 0 && done_ >= options_.actions) || (options_.seconds >= 0 && elapsed >= options_.seconds);
}

void Monkey::finish(const Scenario& s, bool quit_by_app) {
  log(std::string("end after ") + std::to_string(done_) + " actions: " + (quit_by_app ? "quit by the app" : "done"));
  if (options_.report_path.empty()) return;
  std::ofstream out(options_.report_path, std::ios::trunc);
  out << "actions " << done_ << "\nframes " << frames_ << "\nended " << (quit_by_app ? "quit" : "done") << "\nstart_error "
      << start_error_ << "\ntitle " << s.title << "\nn " << s.Q.rows() << "\nm " << s.K.rows() << "\nd_k " << s.Q.cols()
      << "\nd_v " << s.V.cols() << "\n";
}

}  // namespace attnlab::gui
