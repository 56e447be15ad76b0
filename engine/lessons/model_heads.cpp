// The document's head by the Model window's detector.
#include "engine/lessons/model_heads.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/lessons/plain.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {

model::HeadVerdict document_head_verdict(const Scenario& s, const Result& r) {
  std::vector<int> ids;
  const auto labels = display_tokens(s.query_tokens, r.n);
  for (const auto& l : labels) ids.push_back(static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin()));
  return model::classify_head(r.weights, ids);
}

ModelHeadsNumbers compute_model_heads(const Scenario& s, const Result& r, Backend&, const LessonDetail&) {
  ModelHeadsNumbers n;
  n.example = document_head_verdict(s, r);
  return n;
}

nlohmann::ordered_json model_heads_to_json(const ModelHeadsNumbers& n, const Scenario&, const Result& r, const LessonDetail&) {
  return head_verdict_json(n.example, r);
}

nlohmann::ordered_json head_verdict_json(const model::HeadVerdict& v, const Result& r) {
  nlohmann::ordered_json out = pipeline_json(r);
  out["example_head"] = {{"kind", std::string(model::head_kind_name(v.kind))}, {"score", short_double(v.score)}};
  out["get_gpt2"] = "attnlab model ~/.cache/huggingface/hub/models--gpt2/snapshots/<revision> --text \"...\": the folder holds "
                    "config.json, model.safetensors, vocab.json and merges.txt";
  return out;
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise model_heads_exercise(const ExerciseRequest& request) {
  const std::vector<std::vector<std::string>> texts{
      {"The", "cat", "sat", "down"}, {"A", "dog", "ran", "home"}, {"We", "like", "green", "tea"}, {"Birds", "sing", "at", "dawn"}};
  const Mask causal = parse_mask_spec("causal");
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    // Query i points along key i − 1 (query 0 along key 0), `a` long: a previous-token head.
    const double a = static_cast<double>(rnd.integer(2, 6)) / 2;
    MatrixD Q = MatrixD::Zero(4, 4), K = MatrixD::Zero(4, 4);
    for (Eigen::Index i = 0; i < 4; ++i) {
      Q(i, std::max<Eigen::Index>(i - 1, 0)) = a;
      K(i, i) = a;
    }
    const std::vector<std::string>& tokens = rnd.pick(texts);
    d.set_given(Q, K, rnd.integers(4, 2, 0, 2), exercise_options(true, 1, causal), tokens, tokens);
    const Exercise& e = d.exercise();
    d.exercise().facts.push_back("a previous-token head made by hand: each query points along the key of the token before it");
    const Eigen::Index row = rnd.integer(2, 3), other = row == 2 ? 3 : rnd.integer(1, 2);
    d.row_part(PartKind::ScoresRow, row, 2, "The scores of " + query_label(e, row) + ", " + to_decimals(2) + ".");
    d.row_part(PartKind::WeightsRow, row, 2, "Its weights under the causal mask, " + to_decimals(2) + ".");
    d.row_part(PartKind::ArgmaxKey, other, 0, "Which earlier token does " + query_label(e, other) + " attend to most? Its key's number, counted from 0.");
    return true;
  });
}

}  // namespace attnlab
