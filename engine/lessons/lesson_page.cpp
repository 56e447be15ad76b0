// The lesson object's fields, read with the sentences every page shares.
#include "engine/lessons/lesson_page.hpp"

#include "engine/io/json_matrix.hpp"

#include <utility>

namespace attnlab {

namespace {

std::string lesson_field(const char* field) { return std::string("lesson.") + field; }

}  // namespace

long long lesson_positive_integer(const nlohmann::json& j, const std::string& source, const std::string& path, long long max) {
  const long long v = json_to_integer(j, source, path);
  if (v < 1 || v > max) {
    throw InputError(source + ": " + path + " is " + std::to_string(v) + "; it must be between 1 and " + std::to_string(max));
  }
  return v;
}

LessonFields::LessonFields(const LessonSpec& spec) : object_(nlohmann::json::object()), source_(spec.source) {
  if (!spec.raw_json.empty()) object_ = parse_json_text(spec.raw_json, source_);
}

long long LessonFields::positive_integer(const char* field, long long max, long long fallback) const {
  return has(field) ? lesson_positive_integer(at(field), source_, lesson_field(field), max) : fallback;
}

std::vector<long long> LessonFields::integer_list(const char* field, long long max, std::vector<long long> fallback) const {
  if (!has(field)) return fallback;
  const nlohmann::json& j = at(field);
  const std::string path = lesson_field(field);
  if (!j.is_array() || j.empty()) throw InputError(source_ + ": " + path + " must be a non-empty list of whole numbers");
  std::vector<long long> out;
  for (size_t i = 0; i < j.size(); ++i) {
    out.push_back(lesson_positive_integer(j[i], source_, path + "[" + std::to_string(i) + "]", max));
  }
  return out;
}

double LessonFields::number(const char* field, double fallback) const {
  return has(field) ? json_to_number(at(field), source_, lesson_field(field)) : fallback;
}

bool LessonFields::flag(const char* field, bool fallback) const {
  if (!has(field)) return fallback;
  if (!at(field).is_boolean()) throw InputError(source_ + ": " + lesson_field(field) + " must be true or false");
  return at(field).get<bool>();
}

std::vector<std::string> LessonFields::strings(const char* field, std::vector<std::string> fallback) const {
  return has(field) ? json_to_strings(at(field), source_, lesson_field(field)) : std::move(fallback);
}

unsigned long long LessonFields::seed(unsigned long long fallback) const {
  if (!has("seed")) return fallback;
  const long long seed = json_to_integer(at("seed"), source_, "lesson.seed");
  if (seed < 0) throw InputError(source_ + ": lesson.seed must not be negative");
  return static_cast<unsigned long long>(seed);
}

}  // namespace attnlab
