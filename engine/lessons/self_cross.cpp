// The document and its self-attention twin.
#include "engine/lessons/self_cross.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"

namespace attnlab {

Scenario self_attention_twin(const Scenario& cross) {
  Scenario s = cross;
  s.Q = cross.K;
  s.query_tokens = cross.key_tokens;
  s.title = "Self-attention over the keys' sequence";
  s.lesson = LessonSpec{};
  // A mask written for n × m may not fit m × m; self-attention here is bidirectional.
  if (s.options.mask.kind == MaskKind::Custom) s.options.mask = Mask{};
  return s;
}

SelfCrossNumbers compute_self_cross(const Scenario& s, const Result&, Backend& backend, const LessonDetail&) {
  SelfCrossNumbers n;
  n.self_twin = self_attention_twin(s);
  n.cross = compute_variant(backend, s.problem());
  n.self = compute_variant(backend, n.self_twin.problem());
  return n;
}

nlohmann::ordered_json self_cross_to_json(const SelfCrossNumbers& n, const Scenario& s, const Result&, const LessonDetail&) {
  const Result& rc = computed(n.cross);
  const Result& rs = computed(n.self);
  return {{"cross", {{"shape", {rc.n, rc.m}}, {"square", rc.n == rc.m}, {"weights", matrix_to_json(rc.weights)},
                     {"query_tokens", display_tokens(s.query_tokens, rc.n)}, {"key_tokens", display_tokens(s.key_tokens, rc.m)}}},
          {"self", {{"shape", {rs.n, rs.m}}, {"square", rs.n == rs.m}, {"weights", matrix_to_json(rs.weights)},
                    {"tokens", display_tokens(n.self_twin.query_tokens, rs.n)}}}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise self_cross_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD V = rnd.integers(3, 2, 0, 3);
    const MatrixD given_q = rnd.integers(2, 2, -1, 2), given_k = rnd.integers(3, 2, -1, 2);
    d.set_given(given_q, given_k, V, exercise_options(true, 1), first_tokens(s.query_tokens, 2), first_tokens(s.key_tokens, 3));
    const Exercise& e = d.exercise();
    std::vector<std::string> working;
    for (Eigen::Index i = 0; i < 2; ++i) {
      for (const std::string& l : row_working(e.given, d.result(), PartKind::ScoresRow, i)) working.push_back(l);
    }
    d.matrix_part("Cross-attention: the whole score matrix Q Kᵀ, one row per decoder query and one column per encoder key "
                  "(what shape is it?), as whole numbers.",
                  d.stages().scores, 0, working);
    const Eigen::Index row = rnd.integer(0, 1);
    d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + query_label(e, row) + " over the encoder's keys, " + to_decimals(2) + ".");
    d.row_part(PartKind::OutputRow, row, output_decimals(V),
               "The output of " + query_label(e, row) + ": a mix of the encoder's values, " + to_decimals(output_decimals(V)) + ".");
    return true;
  });
}

}  // namespace attnlab
