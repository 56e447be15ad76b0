// The Model window's generation; see generate_actions.hpp.
#include "gui/model_window/generate_actions.hpp"

#include "gui/model_window/model_job.hpp"

#include <algorithm>

namespace attnlab::gui {

void generate_tokens(ModelUi& m, int count, bool threaded) {
  if (!m.model || !m.sequence) return;
  if (m.job) {
    m.error = "Generate waits for the run in progress: let it finish or press Cancel";
    return;
  }
  if (!m.run || m.sequence->logits().empty() || m.sequence->ids() != m.ids) {
    m.error = "Generate needs the text's run first: type a text and wait for its maps";
    return;
  }
  try {
    model::check_generate(*m.model, m.sequence->size(), count);
    model::check_sampling(m.generate.sampling);
  } catch (const InputError& e) {
    m.error = e.what();
    return;
  }
  m.error.clear();
  m.cancelled = false;
  GenerateUi& g = m.generate;
  if (!g.sampler) g.sampler = std::make_shared<model::Sampler>(g.sampling.seed);
  g.base_text = m.text;
  ModelRequest r;
  r.generate = count;
  r.sampling = g.sampling;
  r.sampler = g.sampler;
  m.job = std::make_shared<ModelJob>(m.model, m.sequence, std::move(r), threaded);
}

void stop_generation(ModelUi& m) {
  if (m.job && m.job->generating()) m.job->cancel();
}

void take_generated(ModelUi& m, const model::ModelRun& run) {
  GenerateUi& g = m.generate;
  const auto& ids = run.trace.ids;
  // Draws of positions the text no longer has, or holds another token at, are forgotten.
  for (auto it = g.drawn.begin(); it != g.drawn.end();) {
    const bool kept = it->first < static_cast<std::int64_t>(ids.size()) && ids[static_cast<std::size_t>(it->first)] == it->second.id;
    it = kept ? std::next(it) : g.drawn.erase(it);
  }
  if (run.generated.empty()) return;
  const auto first = static_cast<std::int64_t>(ids.size() - run.generated.size());
  std::vector<int> written;
  for (std::size_t i = 0; i < run.generated.size(); ++i) {
    g.drawn[first + static_cast<std::int64_t>(i)] = run.generated[i];
    written.push_back(run.generated[i].id);
  }
  m.text = model::append_tokens_text(*m.model, g.base_text, written);
}

const model::TokenDistribution* next_token_bars(ModelUi& m, std::vector<int>* ids) {
  if (!m.run || m.run->trace.logits.empty()) return nullptr;
  GenerateUi& g = m.generate;
  const model::SamplingOptions& s = g.sampling;
  const model::SamplingOptions& was = g.bars_sampling;
  const bool same_settings = s.temperature == was.temperature && s.top_k == was.top_k && s.top_p == was.top_p;
  if (g.bars_run.lock() != m.run || !same_settings) {
    try {
      model::check_sampling(s);
    } catch (const InputError&) {
      return nullptr;  // the controls clamp their values: only a half-typed entry gets here
    }
    g.bars = model::next_distribution(m.run->trace.logits, s);
    g.bars_ids = model::top_ids(m.run->trace.logits, 10);
    g.bars_run = m.run;
    g.bars_sampling = s;
  }
  if (ids) *ids = g.bars_ids;
  return &g.bars;
}

void set_generate_seed(ModelUi& m, std::uint64_t seed) {
  m.generate.sampling.seed = seed;
  m.generate.sampler.reset();
}

}  // namespace attnlab::gui
