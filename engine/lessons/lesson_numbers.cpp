// Each lesson view's numbers (see lesson_numbers.hpp), one function per view.
#include "engine/lessons/lesson_numbers.hpp"

#include "engine/attention/explain.hpp"
#include "engine/lessons/scaling.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/training_tasks.hpp"

#include <algorithm>
#include <cmath>
#include <new>

namespace attnlab {

namespace {

// The document's problem with `change` applied, computed.
template <class Change>
LessonVariant variant(Backend& backend, const Scenario& s, Change&& change) {
  try {
    Problem p = s.problem();
    change(p);
    return compute_variant(backend, p);
  } catch (const InputError& e) {
    LessonVariant v;
    v.error = e.what();
    return v;
  }
}

WorkedExampleNumbers worked_example(const Scenario& s, const Result& r) {
  const Problem p = s.problem();
  WorkedExampleNumbers w;
  for (Eigen::Index i = 0; i < r.n; ++i) {
    std::vector<std::vector<std::string>> keys;
    for (Eigen::Index j = 0; j < r.m; ++j) keys.push_back(explain_weight(p, r, i, j));
    w.weight_lines.push_back(std::move(keys));
    w.output_lines.push_back(explain_output(p, r, i));
  }
  return w;
}

CompareScalingNumbers compare_scaling(const Scenario& s, Backend& backend) {
  return {variant(backend, s, [](Problem& p) { p.options.scale = true; }),
          variant(backend, s, [](Problem& p) { p.options.scale = false; })};
}

ScalingLabNumbers scaling_lab(const Scenario& s, Backend& backend, const LessonDetail& detail) {
  const LessonSpec& l = s.lesson;
  ScalingLabNumbers n;
  n.scaled = variant(backend, s, [](Problem& p) { p.options.scale = true; });
  n.unscaled = variant(backend, s, [](Problem& p) { p.options.scale = false; });
  n.sweep_trials = detail.max_sweep_trials > 0 ? std::min(l.trials, detail.max_sweep_trials) : l.trials;
  // The sweep takes about half a second: complete numbers only, not every recompute of the text.
  if (detail.complete) n.sweep = lesson_scaling_sweep(l.dk, l.keys, n.sweep_trials, l.seed);
  return n;
}

MultiHeadNumbers multi_head(const Scenario& s) {
  const LessonSpec& l = s.lesson;
  MultiHeadNumbers n;
  const auto d = s.Q.cols();
  n.this_weights = random_multihead_weights(d, static_cast<int>(l.heads), l.seed, l.share_projections);
  n.switched_weights = random_multihead_weights(d, static_cast<int>(l.heads), l.seed, !l.share_projections);
  n.this_lesson = compute_multihead(s.Q, n.this_weights, s.options);
  n.switched = compute_multihead(s.Q, n.switched_weights, s.options);
  return n;
}

SelfCrossNumbers self_cross(const Scenario& s, Backend& backend) {
  SelfCrossNumbers n;
  n.self_twin = self_attention_twin(s);
  n.cross = compute_variant(backend, s.problem());
  n.self = compute_variant(backend, n.self_twin.problem());
  return n;
}

MaskFamilyNumbers mask_family(const Scenario& s, Backend& backend) {
  MaskFamilyNumbers n;
  n.specs = s.lesson.masks;
  for (const std::string& spec : n.specs) {
    n.variants.push_back(variant(backend, s, [&spec](Problem& p) {
      p.options.mask = parse_mask_spec(spec, "lesson.masks");
      validate_mask(p.options.mask, p.Q.rows(), p.K.rows(), "lesson.masks");
    }));
  }
  return n;
}

// The curves: the rows' mean largest weight and entropy at each of `count` temperatures.
void temperature_curves(TemperatureNumbers& n, const Scenario& s, Backend& backend, int count) {
  n.curve_taus = log_spaced(s.lesson.tau_min, s.lesson.tau_max, count);
  for (const double tau : n.curve_taus) {
    const LessonVariant v = variant(backend, s, [tau](Problem& p) { p.options.temperature = tau; });
    if (!v.ok()) {
      n.curve_taus.clear();
      n.curve_max_weight.clear();
      n.curve_entropy.clear();
      n.curve_error = v.error;
      return;
    }
    double a = 0, b = 0;
    for (const RowDiagnostics& row : v.result.rows) {
      a += row.max_weight;
      b += row.entropy;
    }
    const auto rows = static_cast<double>(v.result.rows.size());
    n.curve_max_weight.push_back(static_cast<float>(a / rows));
    n.curve_entropy.push_back(static_cast<float>(b / rows));
  }
}

TemperatureNumbers temperature(const Scenario& s, Backend& backend, const LessonDetail& detail) {
  const LessonSpec& l = s.lesson;
  const Problem p = s.problem();
  TemperatureNumbers n;
  n.frames = temperature_sweep(p, log_spaced(l.tau_min, l.tau_max, l.frames));
  n.one_hot = one_hot_limit(p);
  n.uniform = uniform_limit(p);
  temperature_curves(n, s, backend, detail.curve_points);
  return n;
}

NormalizersNumbers normalizers(const Scenario& s, Backend& backend) {
  NormalizersNumbers n;
  n.normalizers = {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Sigmoid, Normalizer::Hardmax};
  for (const Normalizer k : n.normalizers) n.variants.push_back(variant(backend, s, [k](Problem& p) { p.options.normalizer = k; }));
  return n;
}

TrainInductionNumbers train_induction(const Scenario& s, const Result& r) {
  TrainInductionNumbers n;
  n.example = document_head_verdict(s, r);
  n.train = model::resolved(model::TrainConfig{});
  n.probe = model::probe_sequence(n.train.task);
  return n;
}

// The pipeline's last query row computed alone from K and V (all the cache holds, every key being
// visible to the last query under a causal mask), against the whole computation's last row.
double last_row_difference(const Scenario& s, const Result& r, Backend& backend) {
  const Problem whole = s.problem();
  const Eigen::Index last = whole.Q.rows() - 1;
  if (last < 0 || whole.Q.rows() != whole.K.rows() || whole.options.mask.kind != MaskKind::Causal) {
    throw InputError("the kv-cache lesson needs self-attention under a causal mask (as many queries as keys)");
  }
  Problem one = whole;
  one.Q = whole.Q.bottomRows(1);
  one.options.mask = Mask{};  // the last query sees every key
  if (one.options.rope) {      // and keeps its own position
    one.options.rope->query_positions = {rope_positions(whole.options.rope->query_positions, whole.Q.rows()).back()};
  }
  const Result alone = backend.compute(one);
  return static_cast<double>((alone.output.row(0) - r.output.row(last)).cwiseAbs().maxCoeff());
}

KvCacheNumbers kv_cache(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail) {
  const LessonSpec& l = s.lesson;
  KvCacheNumbers n;
  n.model = l.cache_model;
  n.last_row_difference = last_row_difference(s, r, backend);
  const auto m = model::open_model(l.cache_model);
  std::vector<int> ids(l.cache_ids.begin(), l.cache_ids.end());
  if (ids.empty()) {
    if (!m->config().is_toy()) throw InputError("lesson.ids: give the text (token ids) for " + l.cache_model);
    ids = model::probe_sequence(model::parse_task_json(m->config().task_json, l.cache_model));
  }
  m->check_ids(ids, "lesson.ids");
  const std::int64_t prompt = l.cache_prompt > 0 ? l.cache_prompt : static_cast<std::int64_t>(ids.size()) / 2 + 1;
  if (prompt >= static_cast<std::int64_t>(ids.size())) throw InputError("lesson.prompt: it must leave some of lesson.ids to write");
  const std::vector<int> given(ids.begin(), ids.begin() + prompt);
  const int rest = static_cast<int>(ids.size()) - static_cast<int>(prompt);
  n.check = check_cache(*m, given, rest);
  n.cost = cache_cost(*m, given, rest, detail.measure && detail.complete);
  n.sizes.push_back(cache_size(cache_shape(m->config(), m->display_name())));
  for (const ModelShape& shape : l.shapes) {
    n.sizes.push_back(cache_size({shape.name, shape.layers, shape.heads, shape.kv_heads, shape.d_head, shape.context}));
  }
  n.exposure = exposure_bias(*m, ids, prompt, l.sample_temperature, l.seed);
  return n;
}

}  // namespace

LessonVariant compute_variant(Backend& backend, const Problem& p) {
  LessonVariant v;
  v.options = p.options;
  try {
    v.result = backend.compute(p);
    v.blocked = mask_grid(p.options.mask, v.result.n, v.result.m);
  } catch (const InputError& e) {
    v.error = e.what();
  } catch (const std::bad_alloc&) {
    v.error = "this view's computation ran out of memory";
  } catch (const std::exception& e) {
    v.error = "the " + backend.description() + " backend failed: " + e.what();
  }
  return v;
}

double sample_std(const MomentStats& m) {
  const double count = static_cast<double>(m.count);
  return count > 1 ? m.std * std::sqrt(count / (count - 1)) : 0.0;
}

model::HeadVerdict document_head_verdict(const Scenario& s, const Result& r) {
  std::vector<int> ids;
  const auto labels = display_tokens(s.query_tokens, r.n);
  for (const auto& l : labels) ids.push_back(static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin()));
  return model::classify_head(r.weights, ids);
}

LessonNumbers compute_lesson(LessonView view, const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail) {
  switch (view) {
    case LessonView::Plain: return PlainNumbers{};
    case LessonView::WorkedExample: return worked_example(s, r);
    case LessonView::CompareScaling: return compare_scaling(s, backend);
    case LessonView::ScalingLab: return scaling_lab(s, backend, detail);
    case LessonView::MultiHead: return multi_head(s);
    case LessonView::SelfCross: return self_cross(s, backend);
    case LessonView::MaskFamily: return mask_family(s, backend);
    case LessonView::Temperature: return temperature(s, backend, detail);
    case LessonView::Normalizers: return normalizers(s, backend);
    case LessonView::Precision: return PrecisionNumbers{detail.complete ? precision_table(s.problem()) : std::vector<PrecisionRun>{}};
    case LessonView::Geometry: return GeometryNumbers{geometry_view(s.problem(), r)};
    case LessonView::Cost: return CostNumbers{machine_memory(), cost_table(s.lesson.cost_n, s.lesson.cost_d_k)};
    case LessonView::OnlineSoftmax: return OnlineSoftmaxNumbers{online_softmax_lesson(s.problem(), s.lesson.tile, r.output)};
    case LessonView::ModelHeads: return ModelHeadsNumbers{document_head_verdict(s, r)};
    case LessonView::TrainInduction: return train_induction(s, r);
    case LessonView::Rope:
      return RopeNumbers{rope_lesson(s.problem(), r.scores, s.lesson.shift, s.lesson.grid, s.lesson.envelope_d_k)};
    case LessonView::GroupedQuery: return GqaNumbers{gqa_lesson(s.Q, s.lesson, s.options, backend)};
    case LessonView::KvCache: return kv_cache(s, r, backend, detail);
  }
  return PlainNumbers{};
}

}  // namespace attnlab
