// Reading the "lesson" object of a scenario, tolerant of what later versions add.
#include "engine/lessons/lesson_spec.hpp"

#include "engine/io/json_matrix.hpp"
#include "engine/attention/matrix.hpp"

#include <array>
#include <utility>

namespace attnlab {

namespace {

constexpr std::array<std::pair<LessonView, const char*>, 12> kViews{{
    {LessonView::Plain, "plain"},
    {LessonView::WorkedExample, "worked-example"},
    {LessonView::CompareScaling, "compare-scaling"},
    {LessonView::ScalingLab, "scaling-lab"},
    {LessonView::MultiHead, "multi-head"},
    {LessonView::SelfCross, "self-cross"},
    {LessonView::MaskFamily, "mask-family"},
    {LessonView::Temperature, "temperature"},
    {LessonView::Normalizers, "normalizers"},
    {LessonView::Precision, "precision"},
    {LessonView::Geometry, "geometry"},
    {LessonView::Cost, "cost"},
}};

long long positive_integer(const nlohmann::json& j, std::string_view source, const std::string& field,
                           long long max) {
  const long long v = json_to_integer(j, source, field);
  if (v < 1 || v > max) {
    throw InputError(std::string(source) + ": " + field + " is " + std::to_string(v) + "; it must be between 1 and " +
                     std::to_string(max));
  }
  return v;
}

std::vector<long long> integer_list(const nlohmann::json& j, std::string_view source, const std::string& field,
                                    long long max) {
  if (!j.is_array() || j.empty()) {
    throw InputError(std::string(source) + ": " + field + " must be a non-empty list of whole numbers");
  }
  std::vector<long long> out;
  for (size_t i = 0; i < j.size(); ++i) {
    out.push_back(positive_integer(j[i], source, field + "[" + std::to_string(i) + "]", max));
  }
  return out;
}

}  // namespace

std::string_view lesson_view_name(LessonView v) {
  for (const auto& [view, name] : kViews) {
    if (view == v) return name;
  }
  return "plain";
}

LessonView lesson_view_from_name(std::string_view name) {
  for (const auto& [view, n] : kViews) {
    if (name == n) return view;
  }
  return LessonView::Plain;
}

std::vector<LessonView> all_lesson_views() {
  std::vector<LessonView> out;
  for (const auto& [view, name] : kViews) out.push_back(view);
  return out;
}

LessonSpec parse_lesson_spec(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  const nlohmann::json j = parse_json_text(json_text, source);
  if (!j.is_object()) throw InputError(src + ": lesson must be an object such as {\"view\": \"multi-head\"}");
  LessonSpec s;
  s.raw_json = j.dump();
  if (j.contains("view")) {
    if (!j.at("view").is_string()) throw InputError(src + ": lesson.view must be a string");
    s.view_name = j.at("view").get<std::string>();
    s.view = lesson_view_from_name(s.view_name);
  }
  if (j.contains("dk")) s.dk = integer_list(j.at("dk"), source, "lesson.dk", 1 << 20);
  if (j.contains("keys")) s.keys = positive_integer(j.at("keys"), source, "lesson.keys", 1 << 20);
  if (j.contains("trials")) s.trials = positive_integer(j.at("trials"), source, "lesson.trials", 10'000'000);
  if (j.contains("seed")) {
    const long long seed = json_to_integer(j.at("seed"), source, "lesson.seed");
    if (seed < 0) throw InputError(src + ": lesson.seed must not be negative");
    s.seed = static_cast<unsigned long long>(seed);
  }
  if (j.contains("heads")) s.heads = positive_integer(j.at("heads"), source, "lesson.heads", 64);
  if (j.contains("share_projections")) {
    if (!j.at("share_projections").is_boolean()) throw InputError(src + ": lesson.share_projections must be true or false");
    s.share_projections = j.at("share_projections").get<bool>();
  }
  if (j.contains("masks")) s.masks = json_to_strings(j.at("masks"), source, "lesson.masks");
  if (j.contains("tau_min")) s.tau_min = json_to_number(j.at("tau_min"), source, "lesson.tau_min");
  if (j.contains("tau_max")) s.tau_max = json_to_number(j.at("tau_max"), source, "lesson.tau_max");
  if (!(s.tau_min > 0) || !(s.tau_max > s.tau_min)) {
    throw InputError(src + ": lesson.tau_min and lesson.tau_max must satisfy 0 < tau_min < tau_max");
  }
  if (j.contains("frames")) s.frames = positive_integer(j.at("frames"), source, "lesson.frames", 10000);
  if (j.contains("n")) s.cost_n = integer_list(j.at("n"), source, "lesson.n", 100'000'000);
  if (j.contains("d_k")) s.cost_d_k = positive_integer(j.at("d_k"), source, "lesson.d_k", 1 << 20);
  return s;
}

}  // namespace attnlab
