// The plain view's numbers: the pipeline's own.
#include "engine/lessons/plain.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"

#include <algorithm>

namespace attnlab {

PlainNumbers compute_plain(const Scenario&, const Result&, Backend&, const LessonDetail&) { return {}; }

nlohmann::ordered_json plain_to_json(const PlainNumbers&, const Scenario&, const Result& r, const LessonDetail&) {
  return pipeline_json(r);
}

nlohmann::ordered_json pipeline_json(const Result& r) {
  return {{"weights", matrix_to_json(r.weights)}, {"output", matrix_to_json(r.output)}, {"row_sums", row_sums_json(r.weights)}};
}


// ---- The exercise ----------------------------------------------------------------------------

Exercise plain_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  const Eigen::Index n = std::min<Eigen::Index>({s.Q.rows(), s.K.rows(), 6});
  // A custom grid of another size cannot be kept; a mask kind carries over to n positions.
  const Mask mask = s.options.mask.kind == MaskKind::Custom ? Mask{} : s.options.mask;
  const std::vector<std::string> tokens = first_tokens(s.query_tokens, n);
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD Q = rnd.integers(n, 2, -2, 2), K = rnd.integers(n, 2, -2, 2), V = rnd.integers(n, 2, -2, 3);
    d.set_given(Q, K, V, exercise_options(true, 1, mask), tokens, tokens);
    const Exercise& e = d.exercise();
    if (mask.kind == MaskKind::None) {
      const Eigen::Index row = rnd.integer(0, n - 1);
      d.row_part(PartKind::LogitsRow, row, 2, "The logits of " + query_label(e, row) + ": each score ÷ √d_k, " + to_decimals(2) + ".");
      d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + query_label(e, row) + ": the softmax of those logits, " + to_decimals(2) + ".");
      d.row_part(PartKind::OutputRow, row, output_decimals(V), "The output of " + query_label(e, row) + ": the weights times V, " + to_decimals(output_decimals(V)) + ".");
      return true;
    }
    // A row with a hidden key and at least two seen ones, low enough to work by hand.
    std::vector<Eigen::Index> rows;
    for (Eigen::Index i = 0; i < n; ++i) {
      Eigen::Index hidden = 0;
      for (Eigen::Index j = 0; j < n; ++j) hidden += mask.is_blocked(i, j);
      if (hidden > 0 && n - hidden >= 2 && n - hidden <= 4) rows.push_back(i);
    }
    if (rows.empty()) return false;
    const Eigen::Index row = rnd.pick(rows);
    d.blocked_part("Which cells does the " + std::string(mask_kind_name(mask.kind)) +
                   " mask block? List every [query row, key] pair it hides.");
    d.row_part(PartKind::LogitsRow, row, 2, "The logits of " + query_label(e, row) + ": each score ÷ √d_k, with null for a blocked key (−∞), " + to_decimals(2) + ".");
    d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + query_label(e, row) + ": the softmax of those logits, " + to_decimals(2) + ".");
    return true;
  });
}

}  // namespace attnlab
