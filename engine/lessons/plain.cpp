// The plain view's numbers: the pipeline's own.
#include "engine/lessons/plain.hpp"

#include "engine/lessons/lesson_json.hpp"

namespace attnlab {

PlainNumbers compute_plain(const Scenario&, const Result&, Backend&, const LessonDetail&) { return {}; }

nlohmann::ordered_json plain_to_json(const PlainNumbers&, const Scenario&, const Result& r, const LessonDetail&) {
  return pipeline_json(r);
}

nlohmann::ordered_json pipeline_json(const Result& r) {
  return {{"weights", matrix_to_json(r.weights)}, {"output", matrix_to_json(r.output)}, {"row_sums", row_sums_json(r.weights)}};
}

}  // namespace attnlab
