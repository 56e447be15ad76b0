// The session and recovery files as text: strict readers (every field checked before it is
// converted, so a hostile file gives a sentence, never undefined behaviour) and their writers.
#include "gui/persistence/session_file.hpp"

#include "engine/io/json_matrix.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace attnlab::gui {

using nlohmann::json;

namespace {

// The largest panel size a session may hold, in pixels: bigger than any screen, small enough for float.
constexpr double kMaxPanelSide = 100000;

struct Reader {
  const json& j;
  std::string src;

  std::string where(std::string_view field) const { return src + ": " + std::string(field); }
  bool has(const char* key) const { return j.contains(key); }
  std::string text(const char* key, std::string_view field) const {
    const json& v = j.at(key);
    if (!v.is_string()) throw InputError(where(field) + " must be a string");
    return v.get<std::string>();
  }
  bool flag(const char* key, std::string_view field) const {
    const json& v = j.at(key);
    if (!v.is_boolean()) throw InputError(where(field) + " must be true or false");
    return v.get<bool>();
  }
  // A panel size in pixels; 0 means automatic. Checked as a double before it becomes a float
  // (converting an out-of-range double to float is undefined behaviour).
  float panel_size(const char* key, std::string_view field) const {
    const double d = json_to_number(j.at(key), src, field);
    if (d < 0 || d > kMaxPanelSide) {
      throw InputError(where(field) + " must be between 0 and " + std::to_string(static_cast<int>(kMaxPanelSide)) +
                       " pixels");
    }
    return static_cast<float>(d);
  }
};

// A window side: a number clamped in double precision first, then converted (a double outside
// int's range, such as 1e300, must never reach the conversion).
int window_side(const json& v, std::string_view source, std::string_view field, int lo) {
  const double d = json_to_number(v, source, field);
  return static_cast<int>(std::clamp(std::round(d), static_cast<double>(lo), static_cast<double>(kMaxWindowSide)));
}

json top_level(std::string_view text, std::string_view source, const char* format, const char* what) {
  json j = parse_json_text(text, source);
  if (!j.is_object() || !j.contains("format") || j.at("format") != format) {
    throw InputError(std::string(source) + ": not an Attention Lab " + what + " file (format must be \"" + format + "\")");
  }
  if (j.contains("version")) {
    const long long v = json_to_integer(j.at("version"), source, "version");
    if (v < 1) throw InputError(std::string(source) + ": version must be 1 or later");
  }
  if (!j.contains("scenario") || !j.at("scenario").is_object()) {
    throw InputError(std::string(source) + ": the " + what + " file holds no scenario object");
  }
  return j;
}

// What a file says of self-attention when it does not say: no, or yes when the keys are the
// queries' tokens (what opening the scenario gives).
enum class SelfWhenAbsent { No, SameTokens };

// A session or recovery file (`format`, read as `what`): its top level for the caller's own fields,
// and the document it holds: the scenario (the lesson's fields checked), self-attention, and the path
// it was saved to. Self-attention ties K and V to Q's rows; a file that claims it for a rectangular
// problem is read as cross-attention rather than refused.
struct DocumentFile {
  json j;
  std::string src;
  Document doc;
  std::string scenario_path;
  Reader top() const { return Reader{j, src}; }
};
DocumentFile read_document_file(std::string_view text, std::string_view source, const char* format, const char* what,
                                SelfWhenAbsent absent) {
  DocumentFile f{top_level(text, source, format, what), std::string(source), {}, {}};
  const Reader r = f.top();
  Document& doc = f.doc;
  doc.scenario = parse_scenario(f.j.at("scenario").dump(), r.where("scenario"));
  check_lesson_fields(doc.scenario.lesson);
  if (r.has("scenario_path")) f.scenario_path = r.text("scenario_path", "scenario_path");
  const Scenario& sc = doc.scenario;
  doc.self_attention = r.has("self_attention") ? r.flag("self_attention", "self_attention")
                       : absent == SelfWhenAbsent::SameTokens
                           ? display_tokens(sc.query_tokens, sc.Q.rows()) == display_tokens(sc.key_tokens, sc.K.rows())
                           : false;
  doc.self_attention = doc.self_attention && sc.Q.rows() == sc.K.rows();
  return f;
}

// "exercises": {"<lesson>": {"seed": S, "solved": ["a", …]}}; a lesson this build does not have is
// kept (the Exercise tab never opens it).
ExerciseProgress read_exercises(const json& e, const std::string& src) {
  if (!e.is_object()) throw InputError(src + ": exercises must be an object of lessons");
  ExerciseProgress out;
  for (const auto& [lesson, record] : e.items()) {
    const std::string at = src + ": exercises." + lesson;
    if (!record.is_object() || !record.contains("seed") || !record.at("seed").is_number_unsigned()) {
      throw InputError(at + " must be {\"seed\": a whole number from 0, \"solved\": [part ids]}");
    }
    ExerciseRecord r;
    r.seed = record.at("seed").get<std::uint64_t>();
    if (record.contains("solved")) r.solved = json_to_strings(record.at("solved"), src, "exercises." + lesson + ".solved");
    out[lesson] = std::move(r);
  }
  return out;
}

}  // namespace

std::string session_json(const SessionData& s) {
  json j;
  j["format"] = "attnlab-session";
  j["version"] = 1;
  j["scenario_path"] = s.scenario_path;
  j["self_attention"] = s.doc.self_attention;
  const ViewSettings& v = s.view;
  j["view"] = {{"presenter", v.presenter},
               {"theme", v.theme == Theme::Dark ? "dark" : "light"},
               {"sequential", v.sequential},
               {"diverging", v.diverging},
               {"numbers_in_cells", v.numbers_in_cells},
               {"inputs_hidden", v.inputs_hidden},
               {"inputs_auto_fold", v.inputs_auto_fold},
               {"left_width", v.left_width},
               {"bottom_height", v.bottom_height},
               {"tabs_enlarged", v.tabs_enlarged},
               {"open_windows", v.open_windows}};
  j["recent_files"] = s.recent_files;
  j["window"] = {s.window.width, s.window.height};
  json exercises = json::object();
  for (const auto& [lesson, record] : s.exercises) exercises[lesson] = {{"seed", record.seed}, {"solved", record.solved}};
  j["exercises"] = exercises;
  // Replace invalid UTF-8 (a file name from a foreign file system) instead of refusing to save.
  std::string out = j.dump(1, ' ', false, json::error_handler_t::replace);
  // The scenario goes in as the scenario writer's own text: parsing it into a json tree first took
  // 13 s for a 100 000 × 64 document at every exit.
  out.erase(out.find_last_of('}'));
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  out += ",\n \"scenario\": " + scenario_to_json(s.doc.scenario) + "\n}\n";
  return out;
}

SessionData parse_session(std::string_view text, std::string_view source) {
  const DocumentFile f = read_document_file(text, source, "attnlab-session", "session", SelfWhenAbsent::SameTokens);
  const json& j = f.j;
  const Reader top = f.top();
  const std::string& src = f.src;
  SessionData s;
  s.doc = f.doc;
  s.scenario_path = f.scenario_path;
  if (top.has("view")) {
    const json& v = j.at("view");
    if (!v.is_object()) throw InputError(src + ": view must be an object");
    const Reader r{v, src};
    ViewSettings& vs = s.view;
    if (r.has("presenter")) vs.presenter = r.flag("presenter", "view.presenter");
    if (r.has("theme")) {
      const std::string t = r.text("theme", "view.theme");
      if (t != "dark" && t != "light") throw InputError(src + ": view.theme must be \"dark\" or \"light\", not \"" + t + "\"");
      vs.theme = t == "light" ? Theme::Light : Theme::Dark;
    }
    // Unknown colormap names are kept: the heatmaps fall back to the default map (heatmap.cpp).
    if (r.has("sequential")) vs.sequential = r.text("sequential", "view.sequential");
    if (r.has("diverging")) vs.diverging = r.text("diverging", "view.diverging");
    if (r.has("numbers_in_cells")) vs.numbers_in_cells = r.flag("numbers_in_cells", "view.numbers_in_cells");
    if (r.has("inputs_hidden")) vs.inputs_hidden = r.flag("inputs_hidden", "view.inputs_hidden");
    if (r.has("inputs_auto_fold")) vs.inputs_auto_fold = r.flag("inputs_auto_fold", "view.inputs_auto_fold");
    if (r.has("left_width")) vs.left_width = r.panel_size("left_width", "view.left_width");
    if (r.has("bottom_height")) vs.bottom_height = r.panel_size("bottom_height", "view.bottom_height");
    if (r.has("tabs_enlarged")) vs.tabs_enlarged = r.flag("tabs_enlarged", "view.tabs_enlarged");
    if (r.has("open_windows")) {
      const json& w = v.at("open_windows");
      if (!w.is_object()) throw InputError(src + ": view.open_windows must be an object of true/false values");
      for (const auto& [name, open] : w.items()) {
        if (!open.is_boolean()) throw InputError(src + ": view.open_windows." + name + " must be true or false");
        vs.open_windows[name] = open.get<bool>();
      }
    }
  }
  if (top.has("recent_files")) s.recent_files = json_to_strings(j.at("recent_files"), source, "recent_files");
  if (top.has("window")) {
    const json& w = j.at("window");
    if (!w.is_array() || w.size() != 2) throw InputError(src + ": window must be [width, height] in pixels");
    s.window.width = window_side(w[0], source, "window[0] (width)", kMinWindowWidth);
    s.window.height = window_side(w[1], source, "window[1] (height)", kMinWindowHeight);
  }
  if (top.has("exercises")) s.exercises = read_exercises(j.at("exercises"), std::string(source));
  return s;
}

std::string recovery_json(const Document& doc, std::string_view scenario_path, std::string_view saved_at, long pid) {
  // The scenario goes in as its own file format, so a recovery file is read by the same strict
  // reader as any scenario (and a teacher can cut it out by hand if ever needed).
  std::string out = "{\n  \"format\": \"attnlab-recovery\",\n  \"version\": 1,\n";
  out += "  \"saved_at\": " + json_string(saved_at) + ",\n";
  out += "  \"pid\": " + std::to_string(pid) + ",\n";
  out += "  \"scenario_path\": " + json_string(scenario_path) + ",\n";
  out += std::string("  \"self_attention\": ") + (doc.self_attention ? "true" : "false") + ",\n";
  out += "  \"scenario\": " + scenario_to_json(doc.scenario) + "}\n";
  return out;
}

RecoveredWork parse_recovery(std::string_view text, std::string_view source) {
  const DocumentFile f = read_document_file(text, source, "attnlab-recovery", "recovery", SelfWhenAbsent::No);
  RecoveredWork w;
  w.doc = f.doc;
  w.scenario_path = f.scenario_path;
  if (const Reader r = f.top(); r.has("saved_at")) w.saved_at = r.text("saved_at", "saved_at");
  return w;
}

}  // namespace attnlab::gui
