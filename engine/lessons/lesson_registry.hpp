// Every lesson view this build knows, one row each (lesson_registry.cpp): the name a lesson file
// gives its view, and its page's parameters, numbers, JSON and text. Who holds a scenario asks the
// registry for its lesson's page; who draws a view (the GUI) knows the page's own types and casts
// the numbers back to them. A page's exercise is its last column.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/plain.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <ostream>
#include <span>
#include <string_view>

namespace attnlab {

// One page of the registry. The functions take the page's own types through the base types here;
// lesson_registry.cpp makes them from the page's typed functions.
struct LessonPage {
  std::string_view view;  // the lesson object's "view" ("temperature")
  // Reads the page's parameters from the lesson object, throwing InputError for a bad one.
  void (*check_fields)(const LessonFields& fields);
  // The page's numbers for the scenario `s`, whose own result is `r`, every variant computed on
  // `backend`. Throws InputError when they cannot be computed for these sizes.
  std::unique_ptr<LessonNumbers> (*compute)(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
  // What `attnlab lesson NAME --format json` prints of them (numbers made by this page's compute).
  nlohmann::ordered_json (*to_json)(const LessonNumbers& n, const Scenario& s, const Result& r, const LessonDetail& detail);
  // The view's fields of a report for a terminal; null: the generic rendering (write_lesson_text).
  void (*write_text)(std::ostream& out, const nlohmann::ordered_json& report);
  // The exercise of a lesson on this view (make_exercise, exercise.hpp), drawn from the request's
  // seed in the lesson's own terms; every page has one.
  Exercise (*exercise)(const ExerciseRequest& request);
};

// Every page, in the order of the views' first lessons.
std::span<const LessonPage> lesson_pages();
// The page of the view named `view`; the plain page for "" and for a view this build does not know
// (it never changes numbers).
const LessonPage& find_lesson_page(std::string_view view);
// The page of the scenario's lesson.
const LessonPage& lesson_page(const LessonSpec& lesson);
// Its view's name, "plain" when the scenario has none or one this build does not know.
inline std::string_view lesson_view(const LessonSpec& lesson) { return lesson_page(lesson).view; }

// Refuses a lesson object whose fields are bad, whatever its view: every page reads the fields it
// knows, as a file has always been read (a field of another view is checked all the same). What
// opening a file adds to io's parse_scenario, which cannot see the pages: load_preset, the command
// line's inputs and the app's open, session and recovery files call it. Throws InputError naming
// the file and the field.
void check_lesson_fields(const LessonSpec& lesson);

// The numbers of the scenario's lesson view (lesson_page(s.lesson).compute).
std::unique_ptr<LessonNumbers> compute_lesson(const Scenario& s, const Result& r, Backend& backend,
                                              const LessonDetail& detail = {});

}  // namespace attnlab
