// The forward pass of every family, composed of the shared blocks (decoder_blocks.hpp) as the
// family's config says, in the order nanoGPT's and Hugging Face's models read: embeddings (plus
// learned positions), then per layer x += o(attention(qkv(norm(x)))) with the q/k norms and the
// rotation where the family has them, x += mlp(norm(x)); then the final norm and the output
// logits of the last position. Shapes: x n × d_model; q, k, v side by side in one n × (q_width +
// 2·kv_width) buffer; each head n × d_head.
#include "engine/model/decoder_blocks.hpp"
#include "engine/model/decoder_model.hpp"
#include "engine/model/interventions.hpp"
#include "engine/model/weight_products.hpp"

#include <cstring>
#include <numeric>

namespace attnlab::model {

struct DecoderModel::Activations {
  std::int64_t n = 0, start = 0, ld = 0;  // ld: the row stride of qkv
  std::vector<float> x, h, qkv, attn, up, gate;
  std::optional<RopeAngles> angles;      // positions start … start + n − 1
  std::vector<std::vector<float>> slot;  // weights converted from F16/BF16, a few at a time
};

namespace {

Matrix columns(const float* src, std::int64_t n, std::int64_t cols, std::int64_t stride) {
  Matrix m(n, cols);
  for (std::int64_t i = 0; i < n; ++i) std::memcpy(m.row(i).data(), src + i * stride, static_cast<std::size_t>(cols) * sizeof(float));
  return m;
}

// Appends n rows of `width` floats (row stride ld) to a cache layer that holds `start` rows.
void append_rows(std::vector<float>& layer, std::int64_t start, const float* rows, std::int64_t n, std::int64_t width, std::int64_t ld) {
  layer.resize(static_cast<std::size_t>((start + n) * width));
  for (std::int64_t i = 0; i < n; ++i) {
    std::memcpy(layer.data() + (start + i) * width, rows + i * ld, static_cast<std::size_t>(width) * sizeof(float));
  }
}

}  // namespace

void DecoderModel::layer_forward(int l, Activations& a, const ForwardOptions& opt, ForwardTrace& trace, KvCache* cache) const {
  const ModelConfig& c = config_;
  const LayerTensors& t = tensors_.layers[static_cast<std::size_t>(l)];
  const std::int64_t n = a.n, d = c.d_model, dh = c.d_head, qw = c.q_width(), kvw = c.kv_width(), ff = c.d_ff;
  const auto w = [&](TensorRef r, int slot) { return blocks::whole(r, a.slot[static_cast<std::size_t>(slot)]); };
  // Every weight matrix shares slot 2: each is converted (when it must be) just before its product
  // and not needed after it, so an F16 model holds one of them in F32 at a time.
  const auto project = [&](const float* X, std::int64_t in, const LinearRef& p, std::int64_t out, float* Y, std::int64_t ldy,
                           bool accumulate = false) {
    // [out, in] weights of any type are read where they are (weight_products.hpp); GPT-2's [in, out]
    // Conv1D weights in F16 or BF16 are converted whole first.
    if (p.layout == Layout::OutIn) blocks::linear_rows(X, n, in, p.w, w(p.b, 3), out, Y, ldy, accumulate);
    else blocks::linear(X, n, in, w(p.w, 2), p.layout, w(p.b, 3), out, Y, ldy, accumulate);
    if (p.interleaved) blocks::deinterleave_heads(Y, n, out, ldy, p.interleaved);
  };

  // Attention: q, k and v of the normed stream, each head's q/k norm, the rotation.
  blocks::norm(c.norm, a.x.data(), d, n, d, w(t.attn_norm.w, 0), w(t.attn_norm.b, 1), c.norm_eps, a.h.data(), d);
  float* q = a.qkv.data();
  float* k = q + qw;
  float* v = k + kvw;
  if (c.fused_qkv) {
    project(a.h.data(), d, t.qkv, qw + 2 * kvw, q, a.ld);
  } else {
    project(a.h.data(), d, t.q, qw, q, a.ld);
    project(a.h.data(), d, t.k, kvw, k, a.ld);
    project(a.h.data(), d, t.v, kvw, v, a.ld);
  }
  if (c.qk_norm) {
    const float *qn = w(t.q_norm, 4), *kn = w(t.k_norm, 5);
    for (int h = 0; h < c.n_head; ++h) blocks::norm(NormKind::Rms, q + h * dh, a.ld, n, dh, qn, nullptr, c.norm_eps, q + h * dh, a.ld);
    for (int g = 0; g < c.n_kv_head; ++g) blocks::norm(NormKind::Rms, k + g * dh, a.ld, n, dh, kn, nullptr, c.norm_eps, k + g * dh, a.ld);
  }
  auto& heads = trace.heads[static_cast<std::size_t>(l)];
  for (int h = 0; h < c.n_head; ++h) {
    if (!opt.keep_all_qkv && !(l == opt.qkv_layer && h == opt.qkv_head)) continue;
    const std::int64_t g = c.kv_group(h);  // kept before the rotation: what the lab lifts
    heads[static_cast<std::size_t>(h)].q = columns(q + h * dh, n, dh, a.ld);
    heads[static_cast<std::size_t>(h)].k = columns(k + g * dh, n, dh, a.ld);
    heads[static_cast<std::size_t>(h)].v = columns(v + g * dh, n, dh, a.ld);
  }
  if (a.angles) {
    for (int h = 0; h < c.n_head; ++h) rope_rotate(*a.angles, 0, q + h * dh, n, a.ld);
    for (int g = 0; g < c.n_kv_head; ++g) rope_rotate(*a.angles, 0, k + g * dh, n, a.ld);
  }
  // The keys and values attended over: this forward's own, or the cache's with these appended.
  const float *K = k, *V = v;
  std::int64_t ldkv = a.ld;
  if (cache) {
    append_rows(cache->k[static_cast<std::size_t>(l)], a.start, k, n, kvw, a.ld);
    append_rows(cache->v[static_cast<std::size_t>(l)], a.start, v, n, kvw, a.ld);
    K = cache->k[static_cast<std::size_t>(l)].data();
    V = cache->v[static_cast<std::size_t>(l)].data();
    ldkv = kvw;
  }
  std::vector<CausalWeights*> kept;
  if (opt.keep_weights) {
    for (auto& h : heads) {
      h.weights = CausalWeights(n, a.start);
      kept.push_back(&h.weights);
    }
  }
  const blocks::AttentionShape shape{n, a.start, c.n_head, c.n_kv_head, c.d_head, c.window(l)};
  blocks::attention(shape, q, a.ld, K, ldkv, V, ldkv, opt.keep_weights ? kept.data() : nullptr, a.attn.data(), qw);
  // Interventions change heads' outputs here, before the output projection mixes them.
  for (const HeadEdit& e : opt.edits) {
    if (e.layer != l) continue;
    apply_head_edit(e, shape, V, ldkv, a.attn.data(), qw, opt.keep_weights ? &heads[static_cast<std::size_t>(e.head)].weights : nullptr);
  }
  if (opt.keep_outputs) {
    for (int h = 0; h < c.n_head; ++h) heads[static_cast<std::size_t>(h)].output = columns(a.attn.data() + h * dh, n, dh, qw);
  }
  project(a.attn.data(), qw, t.o, d, a.x.data(), d, true);  // x += o(attention)

  // The MLP: SiLU-gated, or GPT-2's GELU.
  blocks::norm(c.norm, a.x.data(), d, n, d, w(t.ffn_norm.w, 0), w(t.ffn_norm.b, 1), c.norm_eps, a.h.data(), d);
  if (c.ffn == FfnKind::SiluGated) {
    project(a.h.data(), d, t.gate, ff, a.gate.data(), ff);
    project(a.h.data(), d, t.up, ff, a.up.data(), ff);
    blocks::silu_gate(a.gate.data(), a.up.data(), n * ff);
    project(a.gate.data(), ff, t.down, d, a.x.data(), d, true);  // x += mlp(x)
  } else {
    project(a.h.data(), d, t.up, ff, a.up.data(), ff);
    blocks::gelu(a.up.data(), n * ff);
    project(a.up.data(), ff, t.down, d, a.x.data(), d, true);
  }
}

ForwardTrace DecoderModel::forward(const std::vector<int>& ids, const ForwardOptions& opt, KvCache* cache) const {
  const ModelConfig& c = config_;
  const std::int64_t start = cache ? cache->length : 0;
  check_ids(ids, "the tokens", start);
  const std::int64_t n = static_cast<std::int64_t>(ids.size()), d = c.d_model;
  check_edits(opt.edits, c, n);
  if (opt.lens_position >= n) {
    throw InputError("the logit lens's position " + std::to_string(opt.lens_position) + ": the text has positions 0 to " + std::to_string(n - 1));
  }
  ForwardTrace trace;
  trace.ids = ids;
  trace.start = start;
  trace.heads.assign(static_cast<std::size_t>(c.n_layer), std::vector<HeadTrace>(static_cast<std::size_t>(c.n_head)));
  if (cache) {
    cache->k.resize(static_cast<std::size_t>(c.n_layer));
    cache->v.resize(static_cast<std::size_t>(c.n_layer));
  }

  Activations a;
  a.n = n;
  a.start = start;
  a.ld = c.q_width() + 2 * c.kv_width();
  const auto floats = [](std::int64_t count) { return std::vector<float>(static_cast<std::size_t>(count)); };
  a.x = floats(n * d);
  a.h = floats(n * d);
  a.qkv = floats(n * a.ld);
  a.attn = floats(n * c.q_width());
  a.up = floats(n * c.d_ff);
  if (c.ffn == FfnKind::SiluGated) a.gate = floats(n * c.d_ff);
  a.slot.resize(6);

  // x = embed[ids] (+ the position table's rows start … start + n − 1), converting only the rows used.
  std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
  std::iota(positions.begin(), positions.end(), start);
  blocks::embed(tensors_.embed, tensors_.position, ids.data(), positions.data(), n, d, a.x.data());
  if (c.positions == PositionKind::Rope) a.angles = rope_angles(rope_frequencies(c.rope_theta, c.rope_scaling, c.d_head), positions.data(), n);

  // The final norm of one position's stream against the output matrix: the next token's logits.
  const auto logits_at = [&](std::int64_t i) {
    std::vector<float> last(static_cast<std::size_t>(d));
    blocks::norm(c.norm, a.x.data() + i * d, d, 1, d, blocks::whole(tensors_.final_norm.w, a.slot[0]),
                 blocks::whole(tensors_.final_norm.b, a.slot[1]), c.norm_eps, last.data(), d);
    return blocks::output_logits(last.data(), d, tensors_.lm_head, c.vocab_size);
  };
  for (int l = 0; l < c.n_layer; ++l) {
    layer_forward(l, a, opt, trace, cache);
    if (opt.lens_position >= 0) trace.lens.push_back(blocks::top_tokens(logits_at(opt.lens_position), opt.top_k));
    if (opt.progress && !opt.progress(l + 1, c.n_layer)) {
      // A cancelled run leaves the cache as it found it.
      if (cache) {
        for (auto* layers : {&cache->k, &cache->v}) {
          for (auto& kv : *layers) kv.resize(std::min(kv.size(), static_cast<std::size_t>(start * c.kv_width())));
        }
      }
      trace.cancelled = true;
      return trace;
    }
  }
  if (cache) cache->length = start + n;

  if (opt.keep_predictions) {
    for (std::int64_t i = 0; i < n; ++i) trace.predictions.push_back(blocks::top_tokens(logits_at(i), 1).front());
  }
  // The next token: the last position's.
  std::vector<float> logits = logits_at(n - 1);
  trace.next_tokens = blocks::top_tokens(logits, opt.top_k);
  if (opt.keep_logits) trace.logits = std::move(logits);
  return trace;
}

}  // namespace attnlab::model
