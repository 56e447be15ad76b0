// The Model window's interventions (intervention_actions.hpp).
#include "gui/model_window/intervention_actions.hpp"

#include "engine/model/sampling.hpp"

#include <algorithm>
#include <chrono>

namespace attnlab::gui {

bool knocked_out(const ModelUi& m, int layer, int head) {
  const auto& k = m.intervention.knocked_out;
  return std::find(k.begin(), k.end(), model::HeadIndex{layer, head}) != k.end();
}

void toggle_knock_out(ModelUi& m, int layer, int head) {
  auto& k = m.intervention.knocked_out;
  const model::HeadIndex h{layer, head};
  const auto at = std::find(k.begin(), k.end(), h);
  if (at != k.end()) k.erase(at);
  else k.push_back(h);
  m.intervention.changed = nullptr;  // made again by refresh_intervention
}

void refresh_intervention(ModelUi& m) {
  InterventionUi& iv = m.intervention;
  if (m.job || !m.run || !m.model) return;
  if (iv.knocked_out.empty() && !iv.lens) {
    iv.changed = nullptr;
    iv.error.clear();
    return;
  }
  if (iv.changed && iv.from == m.run) return;
  const auto& ids = m.run->trace.ids;
  model::ForwardOptions options;
  options.edits = model::ablation_edits(iv.knocked_out, iv.ablation);
  options.lens_position = static_cast<std::int64_t>(ids.size()) - 1;
  options.keep_logits = true;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    auto run = std::make_shared<model::ModelRun>(model::run_model(*m.model, ids, options));
    run->lens_position = options.lens_position;
    iv.after = model::next_distribution(run->trace.logits, {}).model;
    // The model as it is: the window's sequence holds its logits when it holds these tokens.
    std::vector<float> logits;
    if (m.sequence && m.sequence->ids() == ids && !m.sequence->logits().empty()) {
      logits = m.sequence->logits();
    } else {
      model::ForwardOptions clean;
      clean.keep_weights = false;
      clean.keep_logits = true;
      logits = m.model->forward(ids, clean).logits;
    }
    iv.before = model::next_distribution(logits, {}).model;
    iv.changed = std::move(run);
    iv.error.clear();
  } catch (const std::exception& e) {
    // A head the model does not have (a session's heads on another model): said, the run stays.
    iv.changed = nullptr;
    iv.knocked_out.clear();
    iv.error = e.what();
  }
  iv.from = m.run;
  iv.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

const model::ModelRun* shown_run(const ModelUi& m) {
  if (m.intervention.changed && !m.intervention.knocked_out.empty()) return m.intervention.changed.get();
  return m.run.get();
}

}  // namespace attnlab::gui
