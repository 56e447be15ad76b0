// One report per lesson view, built from the engine's lesson computations.
//
// [SECTION] Each view's numbers (plain, worked example, …, model heads, cost)
// [SECTION] The report: lesson_view_numbers, lesson_report
// [SECTION] The report as text for a terminal (write_lesson_text)
#include "engine/lessons/lesson_report.hpp"
#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/lesson_numbers.hpp"
#include "engine/model/head_kinds.hpp"
#include "engine/model/trainer.hpp"
#include "engine/model/training_tasks.hpp"

#include "engine/attention/explain.hpp"
#include "engine/lessons/lesson_math.hpp"
#include "engine/lessons/multihead.hpp"
#include "engine/lessons/online_softmax_lesson.hpp"
#include "engine/lessons/precision.hpp"
#include "engine/text/text_format.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/lessons/lesson_text.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

// [SECTION] Each view's numbers (plain, worked example, …, model heads, cost)

namespace {

using json = nlohmann::ordered_json;

json rows_json(const Result& r) {
  json rows = json::array();
  for (const auto& d : r.rows) {
    rows.push_back({{"max_weight", short_double(d.max_weight)},
                    {"entropy", short_double(d.entropy)},
                    {"effective_keys", short_double(d.effective_keys)},
                    {"saturated", d.saturated},
                    {"fully_masked", d.fully_masked}});
  }
  return rows;
}

json row_sums(const Matrix& W) {
  json out = json::array();
  for (Eigen::Index i = 0; i < W.rows(); ++i) out.push_back(static_cast<double>(W.row(i).cast<double>().sum()));
  return out;
}

json point_list(const std::vector<Point2>& pts) {
  json out = json::array();
  for (const auto& p : pts) out.push_back({p[0], p[1]});
  return out;
}

json plain(const Result& r) {
  return {{"weights", matrix_to_json(r.weights)}, {"output", matrix_to_json(r.output)}, {"row_sums", row_sums(r.weights)}};
}

// A variant's numbers; one that could not be computed makes the report fail with its sentence.
const Result& computed(const LessonVariant& v) {
  if (!v.ok()) throw InputError(v.error);
  return v.result;
}

json worked_example(const WorkedExampleNumbers& w, const Result& r) {
  json rows = json::array();
  for (size_t i = 0; i < w.weight_lines.size(); ++i) {
    const auto& keys = w.weight_lines[i];
    json lines = json::array();
    // Every score and logit of the row, then the row's exps once, then each quotient.
    for (const auto& k : keys) {
      lines.push_back(k[0]);
      lines.push_back(k[1]);
    }
    if (!keys.empty() && keys[0].size() > 3) lines.push_back(keys[0][2]);
    for (const auto& k : keys) lines.push_back(k.back());
    for (const auto& l : w.output_lines[i]) lines.push_back(l);
    rows.push_back(lines);
  }
  json j = plain(r);
  j["explain"] = rows;
  return j;
}

json compare_scaling(const CompareScalingNumbers& n) {
  json j;
  for (const LessonVariant* v : {&n.scaled, &n.unscaled}) {
    const Result& r = computed(*v);
    j[v == &n.scaled ? "scaled" : "unscaled"] = {{"effective_temperature", r.effective_temperature},
                                                 {"logits", matrix_to_json(r.logits)},
                                                 {"weights", matrix_to_json(r.weights)},
                                                 {"output", matrix_to_json(r.output)},
                                                 {"logits_std", r.stats.logits.std},
                                                 {"rows", rows_json(r)}};
  }
  return j;
}

json scaling_lab(const ScalingLabNumbers& n, const Scenario& s, bool complete) {
  const LessonSpec& l = s.lesson;
  json j;
  // This scenario's own draw, both ways (one query row against its keys).
  json draw;
  for (const LessonVariant* v : {&n.unscaled, &n.scaled}) {
    const Result& r = computed(*v);
    double mx = 0;
    for (const auto& d : r.rows) mx = std::max(mx, static_cast<double>(d.max_weight));
    draw[v == &n.scaled ? "scaled" : "unscaled"] = {{"logits_std", sample_std(r.stats.logits)}, {"max_prob", mx}};
  }
  draw["d_k"] = s.Q.cols();
  j["this_draw"] = draw;
  if (!complete) return j;
  json sweep = json::array();
  for (const auto& row : n.sweep) sweep.push_back(scaling_row_json(row));
  j["sweep"] = sweep;
  j["keys"] = l.keys;
  j["trials"] = n.sweep_trials;
  j["seed"] = l.seed;
  return j;
}

json multi_head(const MultiHeadNumbers& n, const Scenario& s) {
  const LessonSpec& l = s.lesson;
  json j;
  j["d_model"] = s.Q.cols();
  j["heads"] = l.heads;
  j["d_head"] = s.Q.cols() / std::max<long long>(1, l.heads);
  j["seed"] = l.seed;
  for (const bool share : {false, true}) {
    const bool mine = share == l.share_projections;
    const MultiHeadWeights& w = mine ? n.this_weights : n.switched_weights;
    const MultiHeadResult& r = mine ? n.this_lesson : n.switched;
    json heads = json::array();
    for (int i = 0; i < w.heads(); ++i) heads.push_back(matrix_to_json(r.heads[static_cast<size_t>(i)].weights));
    json v = {{"share_projections", share},
              {"head_weights", heads},
              {"concat", matrix_to_json(r.concat)},
              {"output_concat_then_W_O", matrix_to_json(r.output)},
              {"output_sum_of_slabs", matrix_to_json(r.output_from_slabs)},
              {"max_abs_difference", r.max_abs_difference},
              {"max_abs_output", r.max_abs_output},
              {"output_rank", r.output_rank},
              {"heads_identical", r.heads_identical}};
    j[mine ? "this_lesson" : "switched"] = v;
  }
  return j;
}

json self_cross(const SelfCrossNumbers& n, const Scenario& s) {
  const Result& rc = computed(n.cross);
  const Result& rs = computed(n.self);
  return {{"cross", {{"shape", {rc.n, rc.m}}, {"square", rc.n == rc.m}, {"weights", matrix_to_json(rc.weights)},
                     {"query_tokens", display_tokens(s.query_tokens, rc.n)}, {"key_tokens", display_tokens(s.key_tokens, rc.m)}}},
          {"self", {{"shape", {rs.n, rs.m}}, {"square", rs.n == rs.m}, {"weights", matrix_to_json(rs.weights)},
                    {"tokens", display_tokens(n.self_twin.query_tokens, rs.n)}}}};
}

json mask_family(const MaskFamilyNumbers& n) {
  json list = json::array();
  for (size_t k = 0; k < n.specs.size(); ++k) {
    const Result& r = computed(n.variants[k]);
    const BlockGrid& g = n.variants[k].blocked;
    json grid = json::array();
    for (Eigen::Index i = 0; i < g.rows(); ++i) {
      json row = json::array();
      for (Eigen::Index c = 0; c < g.cols(); ++c) row.push_back(static_cast<int>(g(i, c)));
      grid.push_back(row);
    }
    json padding_rows = json::array();
    for (Eigen::Index i = 0; i < r.n; ++i) {
      if (r.rows[static_cast<size_t>(i)].padding) padding_rows.push_back(i);
    }
    list.push_back({{"mask", n.specs[k]}, {"blocked", grid}, {"weights", matrix_to_json(r.weights)},
                    {"row_sums", row_sums(r.weights)}, {"padding_rows", padding_rows}});
  }
  return {{"masks", list}};
}

json temperature(const TemperatureNumbers& n) {
  json list = json::array();
  for (const auto& f : n.frames) {
    double mx = 0, h = 0;
    for (size_t i = 0; i < f.max_weight.size(); ++i) {
      mx += f.max_weight[i];
      h += f.entropy[i];
    }
    const double rows = static_cast<double>(f.max_weight.size());
    list.push_back({{"temperature", f.temperature},
                    {"effective_temperature", f.effective},
                    {"mean_max_weight", mx / rows},
                    {"mean_entropy", h / rows},
                    {"distance_to_one_hot", static_cast<double>((f.weights - n.one_hot).cwiseAbs().maxCoeff())},
                    {"distance_to_uniform", static_cast<double>((f.weights - n.uniform).cwiseAbs().maxCoeff())}});
  }
  return {{"frames", list},
          {"first_weights", matrix_to_json(n.frames.front().weights)},
          {"last_weights", matrix_to_json(n.frames.back().weights)},
          {"one_hot_limit", matrix_to_json(n.one_hot)},
          {"uniform_limit", matrix_to_json(n.uniform)}};
}

json normalizers(const NormalizersNumbers& n) {
  json j;
  for (size_t k = 0; k < n.normalizers.size(); ++k) {
    const Result& r = computed(n.variants[k]);
    const Mask& mask = n.variants[k].options.mask;
    long long zeros = 0;
    for (Eigen::Index i = 0; i < r.weights.rows(); ++i)
      for (Eigen::Index c = 0; c < r.weights.cols(); ++c) zeros += r.weights(i, c) == 0.0f && !mask.is_blocked(i, c);
    j[std::string(normalizer_name(n.normalizers[k]))] = {{"weights", matrix_to_json(r.weights)},
                                                         {"row_sums", row_sums(r.weights)},
                                                         {"exact_zeros", zeros},
                                                         {"output", matrix_to_json(r.output)}};
  }
  return {{"normalizers", j}};
}

json precision(const PrecisionNumbers& n, bool complete) {
  json limits = json::object();
  for (const Precision p : {Precision::Float32, Precision::Float16, Precision::BFloat16}) {
    const FormatLimits l = format_limits(p);
    limits[std::string(precision_name(p))] = {{"max_finite", l.max_finite},
                                              {"exp_overflows_above", l.exp_overflow},
                                              {"exp_is_zero_below", l.exp_underflow},
                                              {"minus_1e9_stored_as", std::isinf(l.minus_1e9) ? json("-inf") : json(l.minus_1e9)}};
  }
  if (!complete) return {{"formats", limits}};  // the 18 emulated runs are the costly part
  json runs = json::array();
  for (const auto& r : n.runs) {
    runs.push_back({{"precision", precision_name(r.options.precision)},
                    {"subtract_max", r.options.subtract_max},
                    {"mask_fill", mask_fill_name(r.options.fill)},
                    {"finite", r.finite},
                    {"inf_scores", r.scores_health.inf},
                    {"inf_exps", r.exps_health.inf},
                    {"nan_weights", r.weights_health.nan},
                    {"max_weight_error", r.max_weight_error},
                    {"verdict", r.verdict}});
  }
  return {{"formats", limits}, {"runs", runs}};
}

json geometry(const GeometryNumbers& n) {
  const GeometryView& g = n.geometry;
  json inside = json::array();
  for (const bool b : g.inside) inside.push_back(b);
  return {{"queries", point_list(g.queries)}, {"keys", point_list(g.keys)},   {"values", point_list(g.values)},
          {"outputs", point_list(g.outputs)}, {"values_hull", point_list(g.hull)}, {"inside_hull", inside}};
}

// The head's kind by the same detector the Model window uses (docs/MODELS.md, "Head kinds"), and
// where to find GPT-2, for a terminal with no model open.
json model_heads(const model::HeadVerdict& v, const Result& r) {
  json out = plain(r);
  out["example_head"] = {{"kind", std::string(model::head_kind_name(v.kind))}, {"score", short_double(v.score)}};
  out["get_gpt2"] = "attnlab model ~/.cache/huggingface/hub/models--gpt2/snapshots/<revision> --text \"...\": the folder holds "
                    "config.json, model.safetensors, vocab.json and merges.txt";
  return out;
}

// The hand-made induction head's kind, and the run the GUI trains live, for a terminal to repeat
// it with `attnlab train`.
json train_induction(const TrainInductionNumbers& n, const Result& r) {
  json out = model_heads(n.example, r);
  out.erase("get_gpt2");
  const model::TrainConfig& c = n.train;
  json probe = json::array();
  for (const int id : n.probe) probe.push_back(id);
  // The task, the model's shape, the optimiser's settings, and what the lesson watches.
  out["train"] = {{"task", std::string(model::task_name(c.task.kind))}, {"half_length", c.task.length}, {"symbols", c.task.symbols},
                  {"layers", c.n_layer}, {"heads", c.n_head}, {"d_model", c.d_model},
                  {"steps", c.steps}, {"batch", c.batch}, {"lr", c.lr}, {"seed", c.seed},
                  {"probe", probe},
                  {"command", "attnlab train --task induction --out induction-model"}};
  return out;
}

json cost(const CostNumbers& n, const Scenario& s) {
  json rows = json::array();
  for (const auto& c : n.rows) {
    rows.push_back({{"n", c.n},
                    {"entries", c.entries},
                    {"bytes_fp32", c.bytes_fp32},
                    {"bytes_fp16", c.bytes_fp16},
                    {"fp32", both_units(c.bytes_fp32)},
                    {"fp16", both_units(c.bytes_fp16)},
                    {"gflop", c.flops / 1e9},
                    {"engine_dense_bytes", c.engine_dense_bytes},
                    {"fits_dense_here", c.fits_dense}});
  }
  const MachineMemory& mem = n.machine;
  return {{"d_k", s.lesson.cost_d_k},
          {"per_head", rows},
          {"machine", {{"physical_bytes", mem.physical_bytes},
                       {"physical", both_units(mem.physical_bytes)},
                       {"dense_limit_bytes", mem.dense_limit_bytes},
                       {"dense_limit", both_units(mem.dense_limit_bytes)}}}};
}

json rope(const RopeLesson& l) {
  json frequencies = json::array(), distances = json::array();
  for (const RopeFrequency& f : l.frequencies) {
    frequencies.push_back({{"pair", f.pair}, {"frequency", f.frequency}, {"wavelength", f.wavelength}});
  }
  for (const RopeDistance& d : l.distances) {
    distances.push_back({{"distance", d.distance}, {"aligned", d.aligned}, {"lesson", d.lesson}});
  }
  return {{"rope_on", l.rope_on},
          {"theta", l.rope.theta},
          {"d_k", l.d_k},
          {"shift", l.shift},
          {"scores", matrix_to_json(l.scores)},
          {"shifted_scores", matrix_to_json(l.shifted_scores)},
          {"max_shift_change", l.max_shift_change},
          {"rounding_bound", l.rounding_bound},
          {"grid", l.grid},
          {"same_pair_scores", matrix_to_json(l.same_pair_scores)},
          {"max_diagonal_spread", l.max_diagonal_spread},
          {"frequencies", frequencies},
          {"fastest", frequencies.front()},
          {"slowest", frequencies.back()},
          {"unrotated_scores", matrix_to_json(l.unrotated_scores)},
          {"envelope_d_k", l.envelope_d_k},
          {"distances", distances}};
}

// A real model's KV cache (gqa_lesson.hpp's cache_row), for the gqa and kv-cache lessons.
json kv_cache_row(const KvCacheRow& r) {
  const KvCacheConfig& c = r.config;
  return {{"name", c.name},
          {"layers", c.layers},
          {"heads", c.heads},
          {"kv_heads", c.kv_heads},
          {"head_dim", c.head_dim},
          {"bytes_per_token", r.bytes_per_token},
          {"kib_per_token", static_cast<double>(r.bytes_per_token) / 1024.0},
          {"mha_bytes_per_token", r.mha_bytes_per_token},
          {"mha_kib_per_token", static_cast<double>(r.mha_bytes_per_token) / 1024.0},
          {"saving", r.saving},
          {"context_bytes", r.context_bytes},
          {"context", both_units(r.context_bytes)},
          {"mha_context_bytes", r.mha_context_bytes},
          {"mha_context", both_units(r.mha_context_bytes)}};
}

json gqa(const GqaLesson& l) {
  json variants = json::array(), configs = json::array();
  for (const GqaVariant& v : l.variants) {
    json heads = json::array();
    for (size_t h = 0; h < v.heads.size(); ++h) {
      heads.push_back({{"head", h}, {"kv_head", v.group[h]}, {"weights", matrix_to_json(v.heads[h].weights)}});
    }
    variants.push_back({{"kv_heads", v.kv_heads},
                        {"kind", v.kv_heads == l.heads ? "multi-head" : v.kv_heads == 1 ? "multi-query" : "grouped-query"},
                        {"queries_per_kv_head", l.heads / v.kv_heads},
                        {"cached_values_per_token", v.cached_values_per_token},
                        {"max_weight_change", v.max_weight_change},
                        {"max_output_change", v.max_output_change},
                        {"heads", heads},
                        {"output", matrix_to_json(v.output)}});
  }
  for (const KvCacheRow& r : l.configs) configs.push_back(kv_cache_row(r));
  return {{"heads", l.heads}, {"d_model", l.d_model}, {"d_head", l.d_head}, {"variants", variants},
          {"context_tokens", l.context}, {"kv_cache", configs}};
}

json id_list(const std::vector<int>& ids) {
  json out = json::array();
  for (const int id : ids) out.push_back(id);
  return out;
}

json number_list(const std::vector<double>& v) {
  json out = json::array();
  for (const double x : v) out.push_back(short_double(static_cast<float>(x)));
  return out;
}

// The cache check, the cost per token, the caches of real models, and exposure bias; the ms of
// the cost only when measured (they change run to run; a lesson's text never quotes them).
json kv_cache(const KvCacheNumbers& n) {
  const CacheCheck& c = n.check;
  json check = {{"prompt", id_list(c.prompt)},         {"tokens_cached", id_list(c.cached)},
                {"tokens_whole", id_list(c.whole)},    {"same_tokens", c.cached == c.whole},
                {"largest_difference", c.largest_difference}, {"largest_logit", c.largest_logit},
                {"bound", c.bound}};
  const CacheCost& k = n.cost;
  json cost = {{"prompt", k.prompt}, {"tokens", k.tokens}, {"flops_cached", k.flops_cached}, {"flops_whole", k.flops_whole},
               {"flops_ratio", k.flops_whole / k.flops_cached}};
  if (k.ms_cached > 0) cost["measured"] = {{"ms_cached", k.ms_cached}, {"ms_whole", k.ms_whole}, {"ratio", k.ms_whole / k.ms_cached}};
  json caches = json::array();
  for (const KvCacheRow& r : n.caches) caches.push_back(kv_cache_row(r));
  const ExposureBias& e = n.exposure;
  json exposure = {{"temperature", e.temperature},
                   {"seed", e.seed},
                   {"prompt", id_list(e.prompt)},
                   {"truth", id_list(e.truth)},
                   {"teacher", id_list(e.teacher)},
                   {"drawn", id_list(e.drawn)},
                   {"drawn_prob", number_list(e.drawn_prob)},
                   {"drawn_model_prob", number_list(e.drawn_model_prob)},
                   {"first_mistake", e.first_mistake},
                   {"greedy_after", id_list(e.greedy_after)},
                   {"greedy_after_steps", e.greedy_after.size()},
                   {"steps", e.truth.size()},
                   {"teacher_correct", e.teacher_correct},
                   {"drawn_correct", e.drawn_correct},
                   {"greedy_after_correct", e.greedy_after_correct}};
  return {{"model", n.model},       {"last_row_difference", n.last_row_difference}, {"check", check},
          {"cost", cost},          {"context_tokens", n.context},                  {"kv_cache", caches},
          {"exposure", exposure}, {"see_also", "gqa"}};
}

// The JSON of one view's numbers.
struct ViewJson {
  const Scenario& s;
  const Result& r;
  bool complete;
  json operator()(const PlainNumbers&) const { return plain(r); }
  json operator()(const WorkedExampleNumbers& n) const { return worked_example(n, r); }
  json operator()(const CompareScalingNumbers& n) const { return compare_scaling(n); }
  json operator()(const ScalingLabNumbers& n) const { return scaling_lab(n, s, complete); }
  json operator()(const MultiHeadNumbers& n) const { return multi_head(n, s); }
  json operator()(const SelfCrossNumbers& n) const { return self_cross(n, s); }
  json operator()(const MaskFamilyNumbers& n) const { return mask_family(n); }
  json operator()(const TemperatureNumbers& n) const { return temperature(n); }
  json operator()(const NormalizersNumbers& n) const { return normalizers(n); }
  json operator()(const PrecisionNumbers& n) const { return precision(n, complete); }
  json operator()(const GeometryNumbers& n) const { return geometry(n); }
  json operator()(const CostNumbers& n) const { return cost(n, s); }
  json operator()(const OnlineSoftmaxNumbers& n) const { return online_softmax_json(n.lesson); }
  json operator()(const ModelHeadsNumbers& n) const { return model_heads(n.example, r); }
  json operator()(const TrainInductionNumbers& n) const { return train_induction(n, r); }
  json operator()(const RopeNumbers& n) const { return rope(n.lesson); }
  json operator()(const GqaNumbers& n) const { return gqa(n.lesson); }
  json operator()(const KvCacheNumbers& n) const { return kv_cache(n); }
};

}  // namespace

// [SECTION] The report: lesson_view_numbers, lesson_report

double short_double(float v) {
  return std::isfinite(v) ? std::stod(float_json(v)) : static_cast<double>(v);
}

json matrix_to_json(const Matrix& M) {
  json out = json::array();
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    json row = json::array();
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      const float v = M(i, j);
      row.push_back(std::isfinite(v) ? json(short_double(v)) : json(nullptr));
    }
    out.push_back(row);
  }
  return out;
}

json lesson_view_numbers(const Scenario& s, const Result& r, bool complete) {
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  LessonDetail detail;
  detail.complete = complete;
  return std::visit(ViewJson{s, r, complete}, compute_lesson(s.lesson.view, s, r, *cpu, detail));
}

json lesson_report(const std::string& name, const Scenario& s) {
  const Result r = compute_cpu(s.problem());
  const json view = lesson_view_numbers(s, r, true);
  json out = {{"name", name},
              {"title", s.title},
              {"view", lesson_view_name(s.lesson.view)},
              {"description", s.description}};
  if (s.lesson.text.present()) {
    out["text"] = lesson_text_json(render_lesson_text(s, lesson_values(s, r), lesson_origin(s).edited));
  }
  for (auto& [k, v] : view.items()) out[k] = v;
  return out;
}

// [SECTION] Text rendering

// [SECTION] The report as text for a terminal (write_lesson_text)

namespace {

using json = nlohmann::ordered_json;

std::string num(const json& v) {
  if (v.is_null()) return "nan";
  if (v.is_array()) {  // a short vector inside a table row: "(0.1235, -0.4560)"
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + num(v[i]);
    return s + ")";
  }
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) return format_number(v.get<double>(), NumberUse::LessonReport);
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

bool is_matrix(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& row : v) {
    if (!row.is_array() || row.empty()) return false;
    for (const auto& x : row) if (!x.is_number() && !x.is_null()) return false;
  }
  return true;
}

// A short list of numbers, printed in one table cell (the online softmax's partial output o).
bool is_short_vector(const json& v) {
  if (!v.is_array() || v.empty() || v.size() > 8) return false;
  for (const auto& x : v) if (!x.is_number() && !x.is_null()) return false;
  return true;
}

bool is_flat_object_list(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& o : v) {
    if (!o.is_object()) return false;
    for (const auto& [k, x] : o.items()) if (x.is_structured() && !is_short_vector(x)) return false;
  }
  return true;
}

void write_value(std::ostream& out, const std::string& key, const json& v, const std::string& indent);

void write_matrix(std::ostream& out, const json& M, const std::string& indent) {
  size_t width = 1;
  for (const auto& row : M) for (const auto& x : row) width = std::max(width, num(x).size());
  for (const auto& row : M) {
    out << indent;
    for (const auto& x : row) {
      const std::string s = num(x);
      out << std::string(width + 2 - s.size(), ' ') << s;
    }
    out << "\n";
  }
}

// A table cell: an absent value (an online-softmax row's first rescale) as "-", not "nan".
std::string cell(const json& v) { return v.is_null() ? "-" : num(v); }

void write_table(std::ostream& out, const json& list, const std::string& indent) {
  std::vector<std::string> cols;
  for (const auto& [k, x] : list[0].items()) cols.push_back(k);
  std::vector<size_t> w;
  for (const auto& c : cols) {
    size_t m = c.size();
    for (const auto& o : list) m = std::max(m, o.contains(c) ? cell(o.at(c)).size() : 0);
    w.push_back(m);
  }
  out << indent;
  for (size_t c = 0; c < cols.size(); ++c) out << cols[c] << std::string(w[c] - cols[c].size() + 2, ' ');
  out << "\n";
  for (const auto& o : list) {
    out << indent;
    for (size_t c = 0; c < cols.size(); ++c) {
      const std::string s = o.contains(cols[c]) ? cell(o.at(cols[c])) : "";
      out << s << std::string(w[c] - std::min(w[c], s.size()) + 2, ' ');
    }
    out << "\n";
  }
}

void write_value(std::ostream& out, const std::string& key, const json& v, const std::string& indent) {
  if (is_matrix(v)) {
    out << indent << key << ":\n";
    write_matrix(out, v, indent);
  } else if (is_flat_object_list(v)) {
    out << indent << key << ":\n";
    write_table(out, v, indent + "  ");
  } else if (v.is_array() && !v.empty() && v[0].is_string() && key != "tokens" && key != "query_tokens" &&
             key != "key_tokens") {
    out << indent << key << ":\n";
    for (const auto& line : v) out << indent << "  " << num(line) << "\n";
  } else if (v.is_array() && !v.empty() && v[0].is_array() && v[0].size() > 0 && v[0][0].is_string()) {
    out << indent << key << ":\n";
    for (const auto& block : v) {
      for (const auto& line : block) out << indent << "  " << num(line) << "\n";
      out << "\n";
    }
  } else if (v.is_array() && !v.empty() && (v[0].is_array() || v[0].is_object())) {
    out << indent << key << ":\n";
    for (size_t i = 0; i < v.size(); ++i) write_value(out, "[" + std::to_string(i + 1) + "]", v[i], indent + "  ");
  } else if (v.is_array()) {
    out << indent << key << ": ";
    for (size_t i = 0; i < v.size(); ++i) out << (i ? "  " : "") << num(v[i]);
    out << "\n";
  } else if (v.is_object()) {
    out << indent << key << ":\n";
    for (const auto& [k, x] : v.items()) write_value(out, k, x, indent + "  ");
  } else {
    out << indent << key << ": " << num(v) << "\n";
  }
}

// Characters on screen, not bytes: "−" and "•" are one column each.
size_t columns(const std::string& s) {
  size_t n = 0;
  for (const unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Writes `text` wrapped at 96 columns for a terminal, `first` before its first line and `rest`
// before the others.
void wrap(std::ostream& out, const std::string& text, const std::string& first, const std::string& rest) {
  size_t col = 0;
  size_t pos = 0;
  out << first;
  col = columns(first);
  const size_t start = col;
  while (pos < text.size()) {
    size_t sp = text.find(' ', pos);
    if (sp == std::string::npos) sp = text.size();
    const std::string word = text.substr(pos, sp - pos);
    if (col + columns(word) > 96 && col > start) {
      out << "\n" << rest;
      col = columns(rest);
    } else if (col > start) {
      out << " ";
      ++col;
    }
    out << word;
    col += columns(word);
    pos = sp + 1;
  }
  out << "\n";
}

}  // namespace

void write_lesson_text(std::ostream& out, const json& report) {
  out << report.value("title", std::string()) << "  [" << report.value("name", std::string()) << ", view "
      << report.value("view", std::string()) << "]\n\n";
  if (report.contains("text") && report.at("text").is_object()) {
    const json& t = report.at("text");
    wrap(out, "Goal: " + t.value("goal", std::string()), "", "");
    auto list = [&](const char* heading, const char* key) {
      if (!t.contains(key)) return;
      out << heading << "\n";
      for (const auto& line : t.at(key)) wrap(out, line.get<std::string>(), "  • ", "    ");
    };
    list("Look at:", "look_at");
    list("Try:", "try");
    list("In the course text's original numbers:", "course_notes");
    if (t.value("edited", false)) {
      wrap(out, "These are not the lesson's original numbers: notes on the course text's own numbers are left out.", "", "");
    }
    wrap(out, "Source: " + t.value("source", std::string()), "", "");
    out << "\n";
  } else {
    const std::string desc = report.value("description", std::string());
    if (!desc.empty()) {
      wrap(out, desc, "", "");
      out << "\n";
    }
  }
  for (const auto& [k, v] : report.items()) {
    if (k == "name" || k == "title" || k == "view" || k == "description" || k == "text") continue;
    write_value(out, k, v, "");
  }
}

}  // namespace attnlab
