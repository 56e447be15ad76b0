// What every lesson page (engine/lessons/<view>.hpp, one per view a lesson file can name) is written
// against: the base of its numbers, how much of them to compute, and its fields read from the
// lesson object with the sentences every page's errors share. A page holds, in this order: its
// parameters (`<View>Params`, read by `<view>_params`), its numbers (`<View>Numbers`, computed by
// `compute_<view>` on the backend it is given), their JSON (`<view>_to_json`) and, where a lesson
// has one, its exercise. lesson_registry.cpp lists the pages, one line each.
#pragma once

#include "engine/io/lesson_spec.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace attnlab {

// How much of a lesson's numbers to compute.
struct LessonDetail {
  // false leaves out the costly parts a lesson's text does not quote: the d_k sweep of a
  // scaling-lab lesson (about half a second) and the precision lesson's 18 emulated runs.
  bool complete = true;
  // The d_k sweep averages over at most this many trials (0: the lesson's own): the GUI keeps it
  // small enough to stay responsive.
  long long max_sweep_trials = 0;
  int curve_points = 81;  // temperatures on the temperature view's curves
  // The kv-cache lesson times a token with and without the cache (a few milliseconds on its
  // built-in model): complete numbers only, since a text's numbers must not change run to run.
  bool measure = true;
};

// A lesson's numbers. Each page derives its own (TemperatureNumbers, …); the registry hands them
// out as this base, and whoever knows the page (its view in the GUI) casts back to the page's type.
struct LessonNumbers {
  LessonNumbers() = default;
  LessonNumbers(const LessonNumbers&) = default;
  LessonNumbers& operator=(const LessonNumbers&) = default;
  LessonNumbers(LessonNumbers&&) = default;
  LessonNumbers& operator=(LessonNumbers&&) = default;
  virtual ~LessonNumbers() = default;
};

// The lesson object's fields as a page reads them. Every reader names the field as the file does
// ("lesson.heads") after the file it came from, in the sentences all pages share ("lesson.json:
// lesson.heads is 0; it must be between 1 and 64"), and leaves `fallback` where the field is absent.
class LessonFields {
public:
  // The lesson object of `spec` (an empty one when the scenario has none).
  explicit LessonFields(const LessonSpec& spec);

  bool has(const char* field) const { return object_.contains(field); }
  const nlohmann::json& at(const char* field) const { return object_.at(field); }
  const std::string& source() const { return source_; }

  // A whole number from 1 to `max`.
  long long positive_integer(const char* field, long long max, long long fallback) const;
  // A non-empty list of whole numbers from 1 to `max`.
  std::vector<long long> integer_list(const char* field, long long max, std::vector<long long> fallback) const;
  double number(const char* field, double fallback) const;
  bool flag(const char* field, bool fallback) const;
  std::vector<std::string> strings(const char* field, std::vector<std::string> fallback) const;
  // The seed of a page's random-number generator: a whole number, not negative.
  unsigned long long seed(unsigned long long fallback) const;

private:
  nlohmann::json object_;
  std::string source_;
};

// positive_integer for a value inside a field (lesson.kv_configs[0].layers), named `path`.
long long lesson_positive_integer(const nlohmann::json& j, const std::string& source, const std::string& path, long long max);

}  // namespace attnlab
