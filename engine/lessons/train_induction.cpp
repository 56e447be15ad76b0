// The induction lesson's head and the run it trains.
#include "engine/lessons/train_induction.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/model_heads.hpp"
#include "engine/model/training_tasks.hpp"

#include <algorithm>
#include <string>

namespace attnlab {

TrainInductionNumbers compute_train_induction(const Scenario& s, const Result& r, Backend&, const LessonDetail&) {
  TrainInductionNumbers n;
  n.example = document_head_verdict(s, r);
  n.train = model::resolved(model::TrainConfig{});
  n.probe = model::probe_sequence(n.train.task);
  return n;
}

nlohmann::ordered_json train_induction_to_json(const TrainInductionNumbers& n, const Scenario&, const Result& r,
                                               const LessonDetail&) {
  nlohmann::ordered_json out = head_verdict_json(n.example, r);
  out.erase("get_gpt2");
  const model::TrainConfig& c = n.train;
  nlohmann::ordered_json probe = nlohmann::ordered_json::array();
  for (const int id : n.probe) probe.push_back(id);
  // The task, the model's shape, the optimiser's settings, and what the lesson watches.
  out["train"] = {{"task", std::string(model::task_name(c.task.kind))}, {"half_length", c.task.length}, {"symbols", c.task.symbols},
                  {"layers", c.n_layer}, {"heads", c.n_head}, {"d_model", c.d_model},
                  {"steps", c.steps}, {"batch", c.batch}, {"lr", c.lr}, {"seed", c.seed},
                  {"probe", probe},
                  {"command", "attnlab train --task induction --out induction-model"}};
  return out;
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise train_induction_exercise(const ExerciseRequest& request) {
  const Mask causal = parse_mask_spec("causal");
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    // Four distinct symbols, then the first two again: A B C D A B.
    std::vector<long long> symbols;
    while (symbols.size() < 4) {
      const long long v = rnd.integer(0, 9);
      if (std::find(symbols.begin(), symbols.end(), v) == symbols.end()) symbols.push_back(v);
    }
    const std::vector<size_t> order{0, 1, 2, 3, 0, 1};
    const double a = static_cast<double>(rnd.integer(2, 6)) / 2;
    // Query i is its token's direction; key j the direction of the token before j (key 0: none).
    MatrixD Q = MatrixD::Zero(6, 4), K = MatrixD::Zero(6, 4), V = MatrixD::Zero(6, 4);
    std::vector<std::string> tokens;
    for (Eigen::Index i = 0; i < 6; ++i) {
      const auto slot = static_cast<Eigen::Index>(order[static_cast<size_t>(i)]);
      Q(i, slot) = a;
      V(i, slot) = 1;
      if (i > 0) K(i, static_cast<Eigen::Index>(order[static_cast<size_t>(i - 1)])) = a;
      tokens.push_back(std::to_string(symbols[static_cast<size_t>(slot)]));
    }
    d.set_given(Q, K, V, exercise_options(true, 1, causal), tokens, tokens);
    Exercise& e = d.exercise();
    e.facts.push_back("an induction head made by hand: query i is its token's direction (one per symbol), and key j the "
                      "direction of the token before j, which a previous-token head wrote there");
    const Eigen::Index row = rnd.integer(4, 5);
    const auto copied = static_cast<double>(symbols[order[static_cast<size_t>(row - 3)]]);
    d.row_part(PartKind::ArgmaxKey, row, 0, "Which key does " + query_label(e, row) + " attend to most? Its number, counted from 0.");
    d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + query_label(e, row) + ", " + to_decimals(2) + ".");
    d.number_part("Which symbol does the head copy forward from that key (its guess for the next token)?", copied, 0, {},
                  {query_label(e, row) + " is " + tokens[static_cast<size_t>(row)] + "; the key whose previous token is also " +
                       tokens[static_cast<size_t>(row)] + " is key " + std::to_string(row - 3) + ", which holds " +
                       tokens[static_cast<size_t>(row - 3)],
                   "so the head copies " + tokens[static_cast<size_t>(row - 3)] + " forward: the token that followed " +
                       tokens[static_cast<size_t>(row)] + " last time"});
    return true;
  });
}

}  // namespace attnlab
