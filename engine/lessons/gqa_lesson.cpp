// Grouped-query attention on the lesson's input: each query head runs the ordinary pipeline on its
// group's K and V, computed on the given backend.
#include "engine/lessons/gqa_lesson.hpp"

#include <algorithm>

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

}  // namespace

GqaLesson gqa_lesson(const Matrix& X, const LessonSpec& spec, const Options& options, Backend& backend) {
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

}  // namespace attnlab
