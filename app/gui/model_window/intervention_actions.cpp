// The Model window's interventions (intervention_actions.hpp).
#include "gui/model_window/intervention_actions.hpp"

#include "engine/model/sampling.hpp"
#include "gui/model_window/model_actions.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace attnlab::gui {

bool knocked_out(const ModelUi& m, int layer, int head) {
  const auto& k = m.intervention.knocked_out;
  return std::find(k.begin(), k.end(), model::HeadIndex{layer, head}) != k.end();
}

void toggle_knock_out(ModelUi& m, int layer, int head) {
  auto& k = m.intervention.knocked_out;
  const model::HeadIndex h{layer, head};
  std::erase(m.intervention.patched, h);  // knocked out, it is no longer patched
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

// The lab's edit of its lifted head as an edit of the model, when asked and the window's text is
// the one the head was lifted from.
std::optional<model::HeadEdit> lab_edit(const ModelUi& m) {
  const InterventionUi& iv = m.intervention;
  if (!iv.use_lab || iv.lab.version == 0) return std::nullopt;
  const model::HeadIndex h = iv.lab.lifted.head;
  if (iv.lab.lifted.ids != m.run->trace.ids) {
    throw InputError("The lab's head was lifted from another text (" + std::to_string(iv.lab.lifted.ids.size()) +
                     " tokens): put that text back, or lift L" + std::to_string(h.layer) + "H" + std::to_string(h.head) + " again from this one");
  }
  return model::HeadEdit{h.layer, h.head, model::HeadEdit::Kind::Replace, iv.lab.output, iv.lab.weights};
}

// The second text's run, with the same heads changed, keeping its heads' outputs when some are
// patched from it.
void run_second(ModelUi& m, const std::vector<model::HeadEdit>& edits) {
  InterventionUi& iv = m.intervention;
  const std::vector<int> second = text_ids(*m.model, iv.second_text);
  const std::size_t n = m.run->trace.ids.size();
  if (second.size() != n) {
    throw InputError("The second text has " + std::to_string(second.size()) + " tokens and the first " + std::to_string(n) +
                     ": the heads are compared position by position, so give texts of the same token count");
  }
  model::ForwardOptions options;
  options.edits = edits;
  options.keep_outputs = !iv.patched.empty();
  iv.second = std::make_shared<model::ModelRun>(model::run_model(*m.model, second, options));
}

// `first` with each head's weights replaced by |first − second| (the two of the same token count).
std::shared_ptr<model::ModelRun> difference_run(const model::ModelRun& first, const model::ModelRun& second) {
  auto run = std::make_shared<model::ModelRun>(first);
  for (std::size_t l = 0; l < run->trace.heads.size(); ++l) {
    for (std::size_t h = 0; h < run->trace.heads[l].size(); ++h) {
      model::CausalWeights& a = run->trace.heads[l][h].weights;
      const model::CausalWeights& b = second.trace.heads[l][h].weights;
      for (std::int64_t i = 0; i < a.rows(); ++i) {
        for (std::int64_t j = 0; j < a.row_length(i); ++j) a.row(i)[j] = std::abs(a.row(i)[j] - b.row(i)[j]);
      }
    }
  }
  return run;
}

void remake(ModelUi& m) {
  InterventionUi& iv = m.intervention;
  const auto& ids = m.run->trace.ids;
  std::vector<model::HeadEdit> edits = model::ablation_edits(iv.knocked_out, iv.ablation);
  // The second text first, with the same heads out: a patch takes its heads' outputs from it.
  if (iv.compare && !iv.second_text.empty()) run_second(m, edits);
  if (auto lab = lab_edit(m)) edits.push_back(std::move(*lab));
  if (!iv.patched.empty() && iv.second) {
    const auto patches = model::patch_edits(iv.patched, iv.second->trace);
    edits.insert(edits.end(), patches.begin(), patches.end());
  }
  if (!edits.empty() || iv.lens) {
    model::ForwardOptions options;
    options.edits = std::move(edits);
    options.lens_position = static_cast<std::int64_t>(ids.size()) - 1;
    options.keep_logits = true;
    auto run = std::make_shared<model::ModelRun>(model::run_model(*m.model, ids, options));
    run->lens_position = options.lens_position;
    iv.after = model::next_distribution(run->trace.logits, {}).model;
    iv.before = model::next_distribution(clean_logits(m, ids), {}).model;
    iv.changed = std::move(run);
  }
  if (iv.second) {
    const model::ModelRun& first = changes_model(m) ? *iv.changed : *m.run;
    iv.differences = model::compare_heads(first.trace, iv.second->trace);
    iv.difference = difference_run(first, *iv.second);
  }
}

}  // namespace

void refresh_intervention(ModelUi& m) {
  InterventionUi& iv = m.intervention;
  if (m.job || !m.run || !m.model || m.run->kinds.empty()) return;
  if (!iv.dirty && iv.from == m.run) return;
  iv.changed = iv.second = iv.difference = nullptr;
  iv.before.clear();
  iv.after.clear();
  iv.differences.clear();
  iv.error.clear();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    remake(m);
  } catch (const std::exception& e) {
    // A second text of another length, or heads a session kept from another model: said in place.
    iv.changed = iv.second = iv.difference = nullptr;
    iv.differences.clear();
    iv.error = e.what();
  }
  iv.from = m.run;
  iv.dirty = false;
  iv.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool changes_model(const ModelUi& m) {
  const InterventionUi& iv = m.intervention;
  return iv.changed && (!iv.knocked_out.empty() || (!iv.patched.empty() && iv.second) || (iv.use_lab && iv.lab.version != 0));
}

const model::ModelRun* shown_run(const ModelUi& m) {
  const InterventionUi& iv = m.intervention;
  if (iv.compare && iv.maps == InterventionUi::Maps::Second && iv.second) return iv.second.get();
  if (iv.compare && iv.maps == InterventionUi::Maps::Difference && iv.difference) return iv.difference.get();
  if (changes_model(m)) return iv.changed.get();
  return m.run.get();
}

void toggle_patch(ModelUi& m, int layer, int head) {
  InterventionUi& iv = m.intervention;
  const model::HeadIndex h{layer, head};
  // A head is changed one way at a time: patched, it is no longer knocked out.
  std::erase(iv.knocked_out, h);
  if (std::erase(iv.patched, h) == 0) iv.patched.push_back(h);
  iv.dirty = true;
}

bool patched(const ModelUi& m, int layer, int head) {
  const auto& p = m.intervention.patched;
  return std::find(p.begin(), p.end(), model::HeadIndex{layer, head}) != p.end();
}

void take_lab_head(ModelUi& m, const ViewContext& ctx) {
  InterventionUi& iv = m.intervention;
  const LiftedHead* lifted = lifted_head(m, ctx.shown());
  if (!lifted || !ctx.results.has_result || !ctx.results.result.dense) return;
  if (iv.lab.version == ctx.results.result_version && iv.lab.lifted.title == lifted->title) return;
  const Result& r = ctx.results.result;
  if (r.output.rows() != static_cast<Eigen::Index>(lifted->ids.size()) || r.output.cols() != m.model->config().d_head) return;
  iv.lab = {*lifted, r.output, r.weights, ctx.results.result_version};
  if (iv.use_lab) iv.dirty = true;
}

const model::HeadComparison* head_difference(const ModelUi& m, int layer, int head) {
  const auto& d = m.intervention.differences;
  if (!m.intervention.compare || d.empty()) return nullptr;
  return &d.at(static_cast<std::size_t>(layer)).at(static_cast<std::size_t>(head));
}

}  // namespace attnlab::gui
