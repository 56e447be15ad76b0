// Grouped-query attention on the lesson's input: each query head runs the ordinary pipeline on its
// group's K and V, computed on the given backend.
#include "engine/lessons/gqa.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <utility>

namespace attnlab {

namespace {

// The mean of heads [first, first + count) of `w`: a group's shared projection.
Matrix group_mean(const std::vector<Matrix>& w, long long first, long long count) {
  Matrix sum = Matrix::Zero(w[0].rows(), w[0].cols());
  for (long long h = first; h < first + count; ++h) sum += w[static_cast<size_t>(h)];
  return sum / static_cast<float>(count);
}

GqaVariant grouped(const Matrix& X, const MultiHeadWeights& w, long long kv_heads, const Options& options,
                   Backend& backend) {
  const long long heads = w.heads(), per_group = heads / kv_heads;
  GqaVariant v;
  v.kv_heads = kv_heads;
  std::vector<Matrix> K, V;
  for (long long g = 0; g < kv_heads; ++g) {
    K.push_back(X * group_mean(w.W_K, g * per_group, per_group));
    V.push_back(X * group_mean(w.W_V, g * per_group, per_group));
  }
  const Eigen::Index d_head = w.W_Q[0].cols();
  Matrix concat(X.rows(), d_head * heads);
  for (long long h = 0; h < heads; ++h) {
    const long long g = h / per_group;
    v.group.push_back(g);
    v.heads.push_back(backend.compute(Problem{X * w.W_Q[static_cast<size_t>(h)], K[static_cast<size_t>(g)],
                                              V[static_cast<size_t>(g)], options}));
    concat.middleCols(h * d_head, d_head) = v.heads.back().output;
  }
  v.output = concat * w.W_O;
  v.cached_values_per_token = 2 * kv_heads * d_head;
  return v;
}

}  // namespace

std::vector<KvCacheConfig> kv_cache_configs(const LessonFields& f) {
  if (!f.has("kv_configs")) return {};
  const std::string& src = f.source();
  const nlohmann::json& j = f.at("kv_configs");
  if (!j.is_array()) throw InputError(src + ": lesson.kv_configs must be a list of {\"name\", \"layers\", \"heads\", \"kv_heads\", \"head_dim\"}");
  std::vector<KvCacheConfig> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = "lesson.kv_configs[" + std::to_string(i) + "]";
    const nlohmann::json& c = j[i];
    if (!c.is_object() || !c.contains("name") || !c.at("name").is_string()) throw InputError(src + ": " + at + " needs a \"name\"");
    KvCacheConfig k;
    k.name = c.at("name").get<std::string>();
    for (auto [field, value] : {std::pair{"layers", &k.layers}, {"heads", &k.heads}, {"kv_heads", &k.kv_heads}, {"head_dim", &k.head_dim}}) {
      if (!c.contains(field)) throw InputError(src + ": " + at + "." + field + " is missing");
      *value = lesson_positive_integer(c.at(field), src, at + "." + field, 1 << 20);
    }
    if (k.heads % k.kv_heads) {
      throw InputError(src + ": " + at + ": " + std::to_string(k.heads) + " query heads cannot share " +
                       std::to_string(k.kv_heads) + " K/V heads evenly");
    }
    out.push_back(std::move(k));
  }
  return out;
}

GqaParams gqa_params(const LessonFields& f) {
  GqaParams p;
  p.seed = f.seed(p.seed);
  p.heads = f.positive_integer("heads", 64, p.heads);
  p.kv_heads = f.integer_list("kv_heads", 64, p.kv_heads);
  p.kv_configs = kv_cache_configs(f);
  p.context = f.positive_integer("context", 1 << 24, p.context);
  return p;
}

KvCacheRow cache_row(const KvCacheConfig& c, long long context) {
  constexpr long long kBytes = 2;  // bfloat16, as these models ship
  KvCacheRow r;
  r.config = c;
  r.bytes_per_token = 2 * c.layers * c.kv_heads * c.head_dim * kBytes;
  r.mha_bytes_per_token = 2 * c.layers * c.heads * c.head_dim * kBytes;
  r.saving = static_cast<double>(c.heads) / static_cast<double>(c.kv_heads);
  r.context_bytes = r.bytes_per_token * context;
  r.mha_context_bytes = r.mha_bytes_per_token * context;
  return r;
}

GqaLesson gqa_lesson(const Matrix& X, const GqaParams& spec, const Options& options, Backend& backend) {
  const MultiHeadWeights w = random_multihead_weights(X.cols(), static_cast<int>(spec.heads), spec.seed, false);
  GqaLesson l;
  l.heads = spec.heads;
  l.d_model = X.cols();
  l.d_head = X.cols() / spec.heads;
  for (const long long g : spec.kv_heads) {
    if (g > spec.heads || spec.heads % g) {
      throw InputError("the gqa lesson: " + std::to_string(spec.heads) + " query heads cannot share " + std::to_string(g) +
                       " K/V heads evenly; each count in kv_heads must divide heads");
    }
  }
  Options plain = options;
  plain.rope.reset();  // the lesson is about sharing; a head of d_model / H columns may be odd
  const GqaVariant mha = grouped(X, w, spec.heads, plain, backend);
  for (const long long g : spec.kv_heads) {
    GqaVariant v = g == spec.heads ? mha : grouped(X, w, g, plain, backend);
    for (size_t h = 0; h < v.heads.size(); ++h) {
      v.max_weight_change = std::max(v.max_weight_change,
                                     static_cast<double>((v.heads[h].weights - mha.heads[h].weights).cwiseAbs().maxCoeff()));
    }
    v.max_output_change = static_cast<double>((v.output - mha.output).cwiseAbs().maxCoeff());
    l.variants.push_back(std::move(v));
  }
  l.context = spec.context;
  for (const KvCacheConfig& c : spec.kv_configs) l.configs.push_back(cache_row(c, spec.context));
  return l;
}

GqaNumbers compute_gqa(const Scenario& s, const Result&, Backend& backend, const LessonDetail&) {
  GqaNumbers n;
  n.lesson = gqa_lesson(s.Q, gqa_params(LessonFields(s.lesson)), s.options, backend);
  return n;
}

nlohmann::ordered_json kv_cache_row_json(const KvCacheRow& r) {
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

nlohmann::ordered_json gqa_to_json(const GqaNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  using json = nlohmann::ordered_json;
  const GqaLesson& l = n.lesson;
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
  for (const KvCacheRow& r : l.configs) configs.push_back(kv_cache_row_json(r));
  return {{"heads", l.heads}, {"d_model", l.d_model}, {"d_head", l.d_head}, {"variants", variants},
          {"context_tokens", l.context}, {"kv_cache", configs}};
}

// ---- The exercise ----------------------------------------------------------------------------

namespace {

// "Llama 3.1 8B: 32 layers, 32 query heads over 8 K/V heads of width 128".
std::string config_sentence(const KvCacheConfig& c) {
  return c.name + ": " + std::to_string(c.layers) + " layers, " + std::to_string(c.heads) + " query heads over " +
         count_of(c.kv_heads, "K/V head") + " of width " + std::to_string(c.head_dim) +
         "; K and V are cached in bfloat16 (2 bytes a number); 1 KiB = 1024 bytes";
}

}  // namespace

std::vector<std::string> cache_working(const KvCacheConfig& c) {
  const KvCacheRow row = cache_row(c, 1);
  return {"K and V (2) × " + std::to_string(c.layers) + " layers × " + std::to_string(c.kv_heads) + " K/V heads × " +
              std::to_string(c.head_dim) + " numbers × 2 bytes = " + std::to_string(row.bytes_per_token) + " bytes",
          std::to_string(row.bytes_per_token) + " ÷ 1024 = " + hand_number(static_cast<double>(row.bytes_per_token) / 1024) + " KiB"};
}

Exercise gqa_exercise(const ExerciseRequest& request) {
  const GqaParams params = gqa_params(LessonFields(request.preset.lesson));
  std::vector<KvCacheConfig> configs = params.kv_configs;
  if (configs.empty()) configs.push_back({"Llama 3.1 8B", 32, 32, 8, 128});
  const Mask causal = parse_mask_spec("causal");
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const KvCacheConfig& c = rnd.pick(configs);
    const long long group = c.heads / c.kv_heads, head = rnd.integer(0, c.heads - 1), kv = head / group;
    const MatrixD given_q = rnd.integers(3, 2, -1, 2), given_k = rnd.integers(3, 2, -1, 2), given_v = rnd.integers(3, 2, 0, 2);
    d.set_given(given_q, given_k, given_v, exercise_options(true, 1, causal), first_tokens(request.preset.query_tokens, 3), first_tokens(request.preset.key_tokens, 3));
    Exercise& e = d.exercise();
    e.extra["config"] = {{"name", c.name}, {"layers", c.layers}, {"heads", c.heads}, {"kv_heads", c.kv_heads}, {"head_dim", c.head_dim}};
    e.extra["query_head"] = head;
    e.facts.push_back(config_sentence(c));
    e.facts.push_back("Q is query head " + std::to_string(head) + "'s, K and V its group's shared K/V head's (query heads are "
                      "numbered from 0)");
    d.number_part("Which K/V head does query head " + std::to_string(head) + " read? Its number, counted from 0.", static_cast<double>(kv), 0, {},
                  {std::to_string(c.heads) + " ÷ " + std::to_string(c.kv_heads) + " = " + std::to_string(group) +
                       " query heads share each K/V head",
                   "query head " + std::to_string(head) + " reads K/V head ⌊" + std::to_string(head) + " ÷ " +
                       std::to_string(group) + "⌋ = " + std::to_string(kv)});
    const Eigen::Index row = rnd.integer(1, 2);
    d.row_part(PartKind::WeightsRow, row, 2, "Query head " + std::to_string(head) + "'s weights of " + query_label(e, row) +
               " over its group's keys, " + to_decimals(2) + ".");
    const KvCacheRow cache = cache_row(c, 1);
    d.number_part("The KV cache per token of " + c.name + ", all layers, in KiB, " + to_decimals(1) + ".",
                  static_cast<double>(cache.bytes_per_token) / 1024, 1, {}, cache_working(c));
    d.number_part("How many times smaller is that than with a K/V head per query head?", cache.saving, 0, {},
                  {"a K/V head per query head caches " + std::to_string(c.heads) + " heads instead of " +
                   std::to_string(c.kv_heads) + ": " + std::to_string(c.heads) + " ÷ " + std::to_string(c.kv_heads) +
                   " = " + hand_number(cache.saving) + " times more"});
    return true;
  });
}

}  // namespace attnlab
