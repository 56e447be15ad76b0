// The document with scaling on and off.
#include "engine/lessons/compare_scaling.hpp"

#include "engine/lessons/lesson_json.hpp"

namespace attnlab {

namespace {

nlohmann::ordered_json scaling_rows_json(const Result& r) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& d : r.rows) {
    rows.push_back({{"max_weight", short_double(d.max_weight)},
                    {"entropy", short_double(d.entropy)},
                    {"effective_keys", short_double(d.effective_keys)},
                    {"saturated", d.saturated},
                    {"fully_masked", d.fully_masked}});
  }
  return rows;
}

}  // namespace

CompareScalingNumbers compute_compare_scaling(const Scenario& s, const Result&, Backend& backend, const LessonDetail&) {
  CompareScalingNumbers n;
  n.scaled = document_variant(backend, s, [](Problem& p) { p.options.scale = true; });
  n.unscaled = document_variant(backend, s, [](Problem& p) { p.options.scale = false; });
  return n;
}

nlohmann::ordered_json compare_scaling_to_json(const CompareScalingNumbers& n, const Scenario&, const Result&,
                                               const LessonDetail&) {
  nlohmann::ordered_json j;
  for (const LessonVariant* v : {&n.scaled, &n.unscaled}) {
    const Result& r = computed(*v);
    j[v == &n.scaled ? "scaled" : "unscaled"] = {{"effective_temperature", r.effective_temperature},
                                                 {"logits", matrix_to_json(r.logits)},
                                                 {"weights", matrix_to_json(r.weights)},
                                                 {"output", matrix_to_json(r.output)},
                                                 {"logits_std", r.stats.logits.std},
                                                 {"rows", scaling_rows_json(r)}};
  }
  return j;
}

}  // namespace attnlab
