// The Model window's interventions (intervention_actions.hpp).
#include "gui/model_window/intervention_actions.hpp"

#include "engine/model/sampling.hpp"
#include "gui/model_window/model_actions.hpp"

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
  m.intervention.dirty = true;
}

namespace {

// The model as it is after the window's tokens: the window's sequence holds its logits when it
// holds these tokens; else one forward.
std::vector<float> clean_logits(const ModelUi& m, const std::vector<int>& ids) {
  if (m.sequence && m.sequence->ids() == ids && !m.sequence->logits().empty()) return m.sequence->logits();
  model::ForwardOptions clean;
  clean.keep_weights = false;
  clean.keep_logits = true;
  return m.model->forward(ids, clean).logits;
}

void remake(ModelUi& m) {
  InterventionUi& iv = m.intervention;
  const auto& ids = m.run->trace.ids;
  model::ForwardOptions options;
  options.edits = model::ablation_edits(iv.knocked_out, iv.ablation);
  if (!iv.knocked_out.empty() || iv.lens) {
    options.lens_position = static_cast<std::int64_t>(ids.size()) - 1;
    options.keep_logits = true;
    auto run = std::make_shared<model::ModelRun>(model::run_model(*m.model, ids, options));
    run->lens_position = options.lens_position;
    iv.after = model::next_distribution(run->trace.logits, {}).model;
    iv.before = model::next_distribution(clean_logits(m, ids), {}).model;
    iv.changed = std::move(run);
  }
  if (iv.compare && !iv.second_text.empty()) {
    const std::vector<int> second = text_ids(*m.model, iv.second_text);
    if (second.size() != ids.size()) {
      throw InputError("The second text has " + std::to_string(second.size()) + " tokens and the first " + std::to_string(ids.size()) +
                       ": the heads are compared position by position, so give texts of the same token count");
    }
    options.lens_position = -1;
    options.keep_logits = false;
    auto run = std::make_shared<model::ModelRun>(model::run_model(*m.model, second, options));
    const model::ModelRun& first = iv.changed && !iv.knocked_out.empty() ? *iv.changed : *m.run;
    iv.differences = model::compare_heads(first.trace, run->trace);
    iv.second = std::move(run);
  }
}

}  // namespace

void refresh_intervention(ModelUi& m) {
  InterventionUi& iv = m.intervention;
  if (m.job || !m.run || !m.model || m.run->kinds.empty()) return;
  if (!iv.dirty && iv.from == m.run) return;
  iv.changed = iv.second = nullptr;
  iv.before.clear();
  iv.after.clear();
  iv.differences.clear();
  iv.error.clear();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    remake(m);
  } catch (const std::exception& e) {
    // A second text of another length, or heads a session kept from another model: said in place.
    iv.changed = iv.second = nullptr;
    iv.differences.clear();
    iv.error = e.what();
  }
  iv.from = m.run;
  iv.dirty = false;
  iv.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

const model::ModelRun* shown_run(const ModelUi& m) {
  const InterventionUi& iv = m.intervention;
  if (iv.compare && iv.show_second && iv.second) return iv.second.get();
  if (iv.changed && !iv.knocked_out.empty()) return iv.changed.get();
  return m.run.get();
}

const model::HeadComparison* head_difference(const ModelUi& m, int layer, int head) {
  const auto& d = m.intervention.differences;
  if (!m.intervention.compare || d.empty()) return nullptr;
  return &d.at(static_cast<std::size_t>(layer)).at(static_cast<std::size_t>(head));
}

}  // namespace attnlab::gui
