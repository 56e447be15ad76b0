// The induction lesson's head and the run it trains.
#include "engine/lessons/train_induction.hpp"

#include "engine/lessons/model_heads.hpp"
#include "engine/model/training_tasks.hpp"

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

}  // namespace attnlab
