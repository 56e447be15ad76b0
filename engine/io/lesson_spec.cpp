// Reading what every "lesson" object shares (its view's name and its text), tolerant of what later
// versions add.
#include "engine/io/lesson_spec.hpp"

#include "engine/io/json_matrix.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/io/lesson_template.hpp"

namespace attnlab {

namespace {

std::string text_field(const nlohmann::json& j, const std::string& src, const std::string& field) {
  if (!j.is_string() || j.get<std::string>().empty()) throw InputError(src + ": " + field + " must be a non-empty string");
  const std::string t = j.get<std::string>();
  check_template(t, src + ": " + field);
  return t;
}

std::vector<std::string> text_list(const nlohmann::json& j, const std::string& src, const std::string& field) {
  if (!j.is_array() || j.empty()) throw InputError(src + ": " + field + " must be a non-empty list of sentences");
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) out.push_back(text_field(j[i], src, field + "[" + std::to_string(i) + "]"));
  return out;
}

// goal, look_at, try and source come together: a lesson text with a part missing would read as
// unfinished, so it is refused when the file is read rather than shown.
LessonText parse_text(const nlohmann::json& j, const std::string& src) {
  LessonText t;
  const bool any = j.contains("goal") || j.contains("look_at") || j.contains("try") || j.contains("source");
  if (!any) return t;
  for (const char* part : {"goal", "look_at", "try", "source"}) {
    if (!j.contains(part)) {
      throw InputError(src + ": lesson." + part + " is missing; a lesson text has a goal, look_at, try and source");
    }
  }
  t.goal = text_field(j.at("goal"), src, "lesson.goal");
  t.look_at = text_list(j.at("look_at"), src, "lesson.look_at");
  t.try_steps = text_list(j.at("try"), src, "lesson.try");
  const nlohmann::json& so = j.at("source");
  if (!so.is_object() || !so.contains("title") || !so.at("title").is_string() || so.at("title").get<std::string>().empty()) {
    throw InputError(src + ": lesson.source must be an object with the course text's title, e.g. {\"title\": \"…\", \"section\": \"2.3\"}");
  }
  t.source.title = so.at("title").get<std::string>();
  for (const char* f : {"section", "exercise"}) {
    if (!so.contains(f)) continue;
    if (!so.at(f).is_string()) throw InputError(src + ": lesson.source." + f + " must be a string such as \"2.3\"");
    (std::string(f) == "section" ? t.source.section : t.source.exercise) = so.at(f).get<std::string>();
  }
  if (j.contains("course_notes")) t.course_notes = text_list(j.at("course_notes"), src, "lesson.course_notes");
  // "shortcuts", not "keys": a scaling-lab lesson's "keys" is already its number of keys.
  if (j.contains("shortcuts")) {
    const nlohmann::json& keys = j.at("shortcuts");
    if (!keys.is_array()) throw InputError(src + ": lesson.shortcuts must be a list of {\"key\": …, \"what\": …}");
    for (size_t i = 0; i < keys.size(); ++i) {
      const nlohmann::json& k = keys[i];
      if (!k.is_object() || !k.contains("key") || !k.contains("what") || !k.at("key").is_string() || !k.at("what").is_string()) {
        throw InputError(src + ": lesson.shortcuts[" + std::to_string(i) + "] must be {\"key\": \"S\", \"what\": \"…\"}");
      }
      t.keys.push_back({k.at("key").get<std::string>(), k.at("what").get<std::string>()});
    }
  }
  return t;
}

}  // namespace

std::string source_line(const LessonSource& s) {
  if (s.title.empty()) return {};
  std::string out = "\"" + s.title + "\"";
  // A numbered section ("2.3") is "Section 2.3"; one known by its heading is quoted.
  if (!s.section.empty()) {
    const bool numbered = s.section.front() >= '0' && s.section.front() <= '9';
    out += numbered ? ", Section " + s.section : ", section \"" + s.section + "\"";
  }
  if (!s.exercise.empty()) out += ", Exercise " + s.exercise;
  return out;
}

LessonSpec parse_lesson_spec(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  const nlohmann::json j = parse_json_text(json_text, source);
  if (!j.is_object()) throw InputError(src + ": lesson must be an object such as {\"view\": \"multi-head\"}");
  LessonSpec s;
  s.raw_json = j.dump();
  s.source = src;
  if (j.contains("view")) {
    if (!j.at("view").is_string()) throw InputError(src + ": lesson.view must be a string");
    s.view_name = j.at("view").get<std::string>();
  }
  s.text = parse_text(j, src);
  return s;
}

}  // namespace attnlab
