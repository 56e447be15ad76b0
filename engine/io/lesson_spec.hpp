// The optional "lesson" object of a scenario: which special view a built-in lesson opens, its text
// and (read by the lesson's own page, engine/lessons/) its parameters. It never changes the numbers
// of the plain pipeline, so a build that does not know a view or a field ignores it and still
// computes the scenario exactly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// Where a lesson comes from in the course, cited by the course text's own title
// (docs/ARCHITECTURE.md's glossary, "The course texts").
struct LessonSource {
  std::string title;     // "QKV, Scaled Dot-Product & Causal Masking"
  std::string section;   // "2.3", or a section's heading ("Computational cost"), or empty
  std::string exercise;  // "2.3.1", or empty
};
// "QKV, Scaled Dot-Product & Causal Masking", Section 2.3, Exercise 2.3.1; a section named by its
// heading: "13.2 Scaled dot-product attention", section "Computational cost"
std::string source_line(const LessonSource& s);

// A key or mouse action a lesson uses, for its reference card.
struct LessonKey {
  std::string key;   // "S", "Space", "click a cell"
  std::string what;  // "√d_k scaling on/off"
};

// The text a student reads, in four short parts. Its strings are templates (lesson_template.hpp):
// numbers from the scenario are references filled from the current result.
struct LessonText {
  std::string goal;                    // one sentence
  std::vector<std::string> look_at;    // two or three bullets
  std::vector<std::string> try_steps;  // two or three actions, each naming its control or key ("try")
  LessonSource source;
  // Claims about the course text's own printed numbers (its arithmetic slips): true only while
  // the scenario still holds the lesson's original numbers, so shown only then.
  std::vector<std::string> course_notes;
  std::vector<LessonKey> keys;  // "shortcuts" in the file: the keys it uses, for the reference card
  bool present() const { return !goal.empty(); }
};

// The lesson object as every lesson shares it. Its own parameters (heads, tau_min, kv_configs, …)
// are read from `raw_json` by the lesson's page on floor 7 (engine/lessons/<view>.cpp, listed in
// lessons/lesson_registry.cpp), which io cannot include; `check_lesson_fields` there refuses a bad
// one when a file is opened.
struct LessonSpec {
  std::string view_name;  // "view" as written in the file ("" when there is none)
  std::string raw_json;   // the lesson object as read, written back unchanged on save
  std::string source;     // the file it was read from, which a field's error sentence names
  LessonText text;        // goal, look_at, try, source (absent in files that have none)
};

// Parses the JSON text of a "lesson" object: its view's name and its text. The lesson's own fields
// are read by its page (above). A view or field this build does not know is ignored; a view that
// is not a string, and text templates with bad syntax, throw InputError naming `source` and the field.
LessonSpec parse_lesson_spec(std::string_view json_text, std::string_view source);

}  // namespace attnlab
