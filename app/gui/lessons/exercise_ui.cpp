// The Exercise tab's state without a window (exercise_ui.hpp): opening an exercise, reading answers
// as a student types them, checking them with the engine's grader.
#include "gui/lessons/exercise_ui.hpp"

#include "engine/lessons/presets.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace attnlab::gui {

namespace {

// One typed entry: a number, or a blocked logit (null).
struct TypedEntry {
  std::optional<double> value;
  std::string text;
};

// The entries of one row of typed text (commas, spaces, brackets and parentheses separate them).
std::vector<TypedEntry> typed_entries(const std::string& row, const std::string& at) {
  std::vector<TypedEntry> out;
  std::string word;
  const auto flush = [&] {
    if (word.empty()) return;
    std::string w = word;
    word.clear();
    // "−" (U+2212) as the course texts write a minus.
    for (size_t k; (k = w.find("\xe2\x88\x92")) != std::string::npos;) w.replace(k, 3, "-");
    if (w == "null" || w == "-inf" || w == "-\xe2\x88\x9e" || w == "blocked") {
      out.push_back({std::nullopt, word});
      return;
    }
    double v = 0;
    const char* first = w.data() + (w[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(first, w.data() + w.size(), v);
    if (ec != std::errc() || end != w.data() + w.size() || !std::isfinite(v)) {
      throw InputError(at + ": " + in_quotes(w) + " is not a number");
    }
    out.push_back({v, w});
  };
  for (const char c : row) {
    if (c == ',' || c == ' ' || c == '\t' || c == '(' || c == ')' || c == '[' || c == ']') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return out;
}

nlohmann::json entry_json(const TypedEntry& e) { return e.value ? nlohmann::json(*e.value) : nlohmann::json(); }

// The text split into rows at ";" and line ends.
std::vector<std::string> typed_rows(const std::string& text) {
  std::vector<std::string> rows(1);
  for (const char c : text) {
    if (c == ';' || c == '\n') {
      rows.emplace_back();
    } else {
      rows.back() += c;
    }
  }
  return rows;
}

}  // namespace

std::string exercise_lesson_of(const Scenario& s) {
  if (s.title.empty()) return {};
  for (const PresetInfo& p : list_presets()) {
    if (p.title == s.title) return p.name;
  }
  return {};
}

std::string show_linked_exercise(ExerciseUi& ui, const Scenario& doc, std::uint64_t seed) {
  if (exercise_lesson_of(doc).empty()) {
    return "the link's exercise=" + std::to_string(seed) + " has no lesson to be drawn from: " +
           (doc.title.empty() ? std::string("its scenario") : in_quotes(doc.title)) +
           " is not one of the built-in lessons (each lesson in the Lessons menu has an exercise)";
  }
  ui.open_seed = seed;
  ui.shown = true;
  return {};
}

std::optional<std::uint64_t> shown_exercise_seed(const ExerciseUi& ui, const Scenario& doc) {
  if (!ui.shown || !ui.exercise || ui.lesson.empty() || ui.lesson != exercise_lesson_of(doc)) return std::nullopt;
  return ui.seed;
}

void open_exercise(ExerciseUi& ui, const std::string& lesson, std::uint64_t seed) {
  ui.lesson = lesson;
  ui.seed = seed;
  ui.seed_field = seed;
  ui.exercise.reset();
  ui.parts.clear();
  ui.error.clear();
  try {
    ui.exercise = make_exercise(lesson, seed);
    ui.parts.resize(ui.exercise->parts.size());
  } catch (const InputError& e) {
    ui.error = e.what();
  }
}

AnswerValue read_typed_answer(const std::string& text, const ExercisePart& part, const Exercise& e) {
  const std::string at = "part " + part.id;
  nlohmann::json value;
  if (part.kind == PartKind::Matrix) {
    value = nlohmann::json::array();
    for (const std::string& row : typed_rows(text)) {
      nlohmann::json r = nlohmann::json::array();
      for (const TypedEntry& x : typed_entries(row, at)) r.push_back(entry_json(x));
      if (!r.empty()) value.push_back(std::move(r));
    }
  } else {
    std::vector<TypedEntry> all;
    for (const std::string& row : typed_rows(text)) {
      for (TypedEntry& x : typed_entries(row, at)) all.push_back(std::move(x));
    }
    if (all.empty()) throw InputError(at + ": write an answer first");
    if (part.kind == PartKind::Number || part.kind == PartKind::ArgmaxKey) {
      if (all.size() != 1) throw InputError(at + ": write one " + (part.kind == PartKind::Number ? "number" : "key") + ", not " + std::to_string(all.size()));
      value = entry_json(all[0]);
    } else if (part.kind == PartKind::Blocked) {
      if (all.size() % 2) throw InputError(at + ": write the blocked cells as pairs of a row and a key (\"0 1; 0 2\")");
      value = nlohmann::json::array();
      for (size_t k = 0; k < all.size(); k += 2) value.push_back({entry_json(all[k]), entry_json(all[k + 1])});
    } else {
      value = nlohmann::json::array();
      for (const TypedEntry& x : all) value.push_back(entry_json(x));
    }
  }
  return parse_part_answer(value, part, e, "your answer");
}

std::string typed_answer(const AnswerValue& v, PartKind kind) {
  const auto entry = [](const std::optional<double>& x) { return x ? shortest_decimals(*x) : std::string("-inf"); };
  if (kind == PartKind::ArgmaxKey) return std::to_string(std::llround(v.values.at(0).value_or(0)));
  std::string out;
  const size_t cols = v.shape.size() == 2 && v.shape[1] > 0 ? static_cast<size_t>(v.shape[1]) : v.values.size();
  for (size_t k = 0; k < v.values.size(); ++k) {
    if (k) out += k % (cols ? cols : 1) == 0 ? "; " : kind == PartKind::Blocked ? " " : ", ";
    out += kind == PartKind::Blocked ? std::to_string(std::llround(v.values[k].value_or(0))) : entry(v.values[k]);
  }
  return out;
}

std::vector<std::string> check_exercise(ExerciseUi& ui) {
  std::vector<std::string> right;
  if (!ui.exercise) return right;
  for (size_t k = 0; k < ui.parts.size(); ++k) {
    ExercisePartUi& p = ui.parts[k];
    const ExercisePart& part = ui.exercise->parts[k];
    p.grade.reset();
    p.refused.clear();
    if (p.text.find_first_not_of(" \t\n") == std::string::npos) continue;
    try {
      p.grade = grade_part(part, read_typed_answer(p.text, part, *ui.exercise));
      if (p.grade->correct) right.push_back(part.id);
    } catch (const InputError& e) {
      p.refused = e.what();
    }
  }
  return right;
}

bool fill_answers(ExerciseUi& ui, const std::string& json_text) {
  if (!ui.exercise) return false;
  try {
    const Answers answers = parse_answers(json_text, *ui.exercise, "ATTNLAB_GUI_EXERCISE_ANSWERS");
    for (size_t k = 0; k < ui.parts.size(); ++k) {
      const ExercisePart& part = ui.exercise->parts[k];
      ui.parts[k].text = typed_answer(answers.at(part.id), part.kind);
    }
  } catch (const InputError& e) {
    ui.error = e.what();
    return false;
  }
  check_exercise(ui);
  return true;
}

}  // namespace attnlab::gui
