// GPT-2's forward pass (docs/MODELS.md, "Forward pass"), laid out as nanoGPT's model.py reads:
// embeddings, then per layer x += attn(ln_1(x)), x += mlp(ln_2(x)), then ln_f and the tied
// output matrix on the last position only. Shapes: x n × d, qkv n × 3d, each head n × d_head.
#include "engine/model/gpt2_model.hpp"

#include "engine/cpu/blas.hpp"
#include "engine/model/gelu.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace attnlab::model {

namespace {

// Rows [r0, r1) of a tensor as floats: where they are mapped when F32 and 4-byte aligned (the
// file is never copied), else converted into `scratch`, which lives as long as one layer.
const float* floats(const SafetensorsFile& file, const TensorInfo& t, std::int64_t r0, std::int64_t r1, std::int64_t row_len,
                    std::vector<float>& scratch) {
  const std::byte* at = file.data(t) + static_cast<std::size_t>(r0 * row_len) * dtype_size(t.dtype);
  const auto count = static_cast<std::size_t>((r1 - r0) * row_len);
  if (t.dtype == DType::F32 && reinterpret_cast<std::uintptr_t>(at) % alignof(float) == 0) return reinterpret_cast<const float*>(at);
  scratch.resize(count);
  // Converted by every thread, a slice each (inside the logits' parallel loop this runs on the
  // one thread that asked: OpenMP does not nest by default).
  const std::size_t chunk = std::size_t{1} << 16, size = dtype_size(t.dtype);
  const auto chunks = static_cast<std::int64_t>((count + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t first = static_cast<std::size_t>(c) * chunk;
    to_float(t.dtype, at + first * size, std::min(chunk, count - first), scratch.data() + first);
  }
  return scratch.data();
}

const float* whole(const SafetensorsFile& file, const TensorInfo& t, std::vector<float>& scratch) {
  return floats(file, t, 0, 1, t.elements(), scratch);
}

// y (n × d) = layer_norm(x) · w + b, row by row; mean and variance in double, as a biased
// variance (PyTorch's layer_norm).
void layer_norm(const float* x, std::int64_t n, std::int64_t d, const float* w, const float* b, double eps, float* y) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float* xi = x + i * d;
    double mean = 0, var = 0;
    for (std::int64_t c = 0; c < d; ++c) mean += xi[c];
    mean /= static_cast<double>(d);
    for (std::int64_t c = 0; c < d; ++c) var += (xi[c] - mean) * (xi[c] - mean);
    const double inv = 1.0 / std::sqrt(var / static_cast<double>(d) + eps);
    float* yi = y + i * d;
    for (std::int64_t c = 0; c < d; ++c) yi[c] = static_cast<float>((xi[c] - mean) * inv) * w[c] + b[c];
  }
}

// Y (n × out) = X (n × in) · W (in × out) + b: Conv1D. The columns are split between the OpenMP
// threads, each running a single-threaded sgemm on its own slice of W.
void linear(const float* X, std::int64_t n, std::int64_t in, const float* W, const float* b, std::int64_t out, float* Y) {
  const int threads = omp_get_max_threads();
  const std::int64_t chunk = ((out + threads - 1) / threads + 15) / 16 * 16;
#pragma omp parallel for schedule(static)
  for (std::int64_t c0 = 0; c0 < out; c0 += chunk) {
    const std::int64_t c1 = std::min(out, c0 + chunk);
    blas::gemm_nn(n, c1 - c0, in, X, in, W + c0, out, 0.0f, Y + c0, out);
    for (std::int64_t i = 0; i < n; ++i) {
      float* yi = Y + i * out;
      for (std::int64_t c = c0; c < c1; ++c) yi[c] += b[c];
    }
  }
}

// GPT-2's "gelu_new" in place (engine/model/gelu.hpp).
void gelu_new(float* x, std::int64_t count) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) x[i] = gelu::value(x[i]);
}

// One head's causal attention: S = q kᵀ / √d_head, softmax over keys 0 … i, out = A v.
// q, k, v are column slices of qkv (row stride 3d); out is a column slice of attn (stride d).
void head_attention(const float* q, const float* k, const float* v, std::int64_t n, std::int64_t dh, std::int64_t stride, float* A,
                    float* out, std::int64_t out_stride) {
  blas::gemm_nt(n, n, dh, q, stride, k, stride, 0.0f, A, n);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  for (std::int64_t i = 0; i < n; ++i) {
    float* a = A + i * n;
    float mx = -INFINITY;
    for (std::int64_t j = 0; j <= i; ++j) mx = std::max(mx, a[j] * scale);
    double sum = 0;
    for (std::int64_t j = 0; j <= i; ++j) {
      a[j] = std::exp(a[j] * scale - mx);
      sum += a[j];
    }
    const auto inv = static_cast<float>(1.0 / sum);
    for (std::int64_t j = 0; j <= i; ++j) a[j] *= inv;
    std::fill(a + i + 1, a + n, 0.0f);
  }
  blas::gemm_nn(n, dh, n, A, n, v, stride, 0.0f, out, out_stride);
}

Matrix columns(const float* src, std::int64_t n, std::int64_t cols, std::int64_t stride) {
  Matrix m(n, cols);
  for (std::int64_t i = 0; i < n; ++i) std::memcpy(m.row(i).data(), src + i * stride, static_cast<std::size_t>(cols) * sizeof(float));
  return m;
}

}  // namespace

ForwardTrace Gpt2Model::forward(const std::vector<int>& ids, const ForwardOptions& opt) const {
  check_ids(ids, "the tokens");
  const std::int64_t n = static_cast<std::int64_t>(ids.size());
  const std::int64_t d = config_.n_embd, H = config_.n_head, dh = config_.d_head(), V = config_.vocab_size;
  const double eps = config_.layer_norm_epsilon;
  ForwardTrace trace;
  trace.ids = ids;
  trace.heads.assign(static_cast<std::size_t>(config_.n_layer), std::vector<HeadTrace>(static_cast<std::size_t>(H)));

  // x (n × d) = wte[ids] + wpe[0 … n-1], converting only the rows used.
  std::vector<float> x(static_cast<std::size_t>(n * d)), scratch_row, scratch_pos;
  const float* pos = floats(file_, *wpe_, 0, n, d, scratch_pos);
  for (std::int64_t i = 0; i < n; ++i) {
    const float* e = floats(file_, *wte_, ids[static_cast<std::size_t>(i)], ids[static_cast<std::size_t>(i)] + 1, d, scratch_row);
    for (std::int64_t c = 0; c < d; ++c) x[static_cast<std::size_t>(i * d + c)] = e[c] + pos[i * d + c];
  }

  std::vector<float> ln(static_cast<std::size_t>(n * d)), qkv(static_cast<std::size_t>(n * 3 * d)), attn(static_cast<std::size_t>(n * d)),
      proj(static_cast<std::size_t>(n * d)), fc(static_cast<std::size_t>(n * 4 * d));
  std::vector<std::vector<float>> scratch(12);
  const int threads = omp_get_max_threads();
  // Attention weights nobody keeps go to one n × n buffer per thread.
  std::vector<std::vector<float>> thread_A(opt.keep_weights ? 0 : static_cast<std::size_t>(threads));
  for (auto& a : thread_A) a.resize(static_cast<std::size_t>(n * n));

  for (int l = 0; l < config_.n_layer; ++l) {
    const Gpt2LayerTensors& t = layers_[static_cast<std::size_t>(l)];
    const auto w = [&](const TensorInfo* ti, int slot) { return whole(file_, *ti, scratch[static_cast<std::size_t>(slot)]); };
    layer_norm(x.data(), n, d, w(t.ln_1_w, 0), w(t.ln_1_b, 1), eps, ln.data());
    linear(ln.data(), n, d, w(t.c_attn_w, 2), w(t.c_attn_b, 3), 3 * d, qkv.data());
    auto& heads = trace.heads[static_cast<std::size_t>(l)];
    if (opt.keep_weights) {
      for (auto& h : heads) h.weights.resize(n, n);
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t h = 0; h < H; ++h) {
      float* A = opt.keep_weights ? heads[static_cast<std::size_t>(h)].weights.data() : thread_A[static_cast<std::size_t>(omp_get_thread_num())].data();
      head_attention(qkv.data() + h * dh, qkv.data() + d + h * dh, qkv.data() + 2 * d + h * dh, n, dh, 3 * d, A, attn.data() + h * dh, d);
    }
    for (std::int64_t h = 0; h < H; ++h) {
      if (opt.keep_all_qkv || (l == opt.qkv_layer && h == opt.qkv_head)) {
        auto& ht = heads[static_cast<std::size_t>(h)];
        ht.q = columns(qkv.data() + h * dh, n, dh, 3 * d);
        ht.k = columns(qkv.data() + d + h * dh, n, dh, 3 * d);
        ht.v = columns(qkv.data() + 2 * d + h * dh, n, dh, 3 * d);
      }
    }
    // The four weight matrices share slot 2: each is converted (when it must be) just before its
    // product and not needed after it, so an F16 model holds one of them in F32 at a time.
    linear(attn.data(), n, d, w(t.attn_proj_w, 2), w(t.attn_proj_b, 5), d, proj.data());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += proj[i];
    layer_norm(x.data(), n, d, w(t.ln_2_w, 6), w(t.ln_2_b, 7), eps, ln.data());
    linear(ln.data(), n, d, w(t.c_fc_w, 2), w(t.c_fc_b, 9), 4 * d, fc.data());
    gelu_new(fc.data(), n * 4 * d);
    linear(fc.data(), n, 4 * d, w(t.mlp_proj_w, 2), w(t.mlp_proj_b, 11), d, proj.data());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += proj[i];
    if (opt.progress && !opt.progress(l + 1, config_.n_layer)) {
      trace.cancelled = true;
      return trace;
    }
  }

  // The next token: ln_f of the last position, times the tied wte (V × d) transposed, a chunk of
  // vocabulary rows at a time so that an F16 wte is never converted whole.
  std::vector<float> last(static_cast<std::size_t>(d)), logits(static_cast<std::size_t>(V));
  layer_norm(x.data() + (n - 1) * d, 1, d, whole(file_, *ln_f_w_, scratch[0]), whole(file_, *ln_f_b_, scratch[1]), eps, last.data());
  constexpr std::int64_t kChunk = 1024;  // 3 MiB of F32 rows per thread when wte must be converted
#pragma omp parallel
  {
    std::vector<float> rows;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t r0 = 0; r0 < V; r0 += kChunk) {
      const std::int64_t r1 = std::min(V, r0 + kChunk);
      blas::gemm_nt(1, r1 - r0, d, last.data(), d, floats(file_, *wte_, r0, r1, d, rows), d, 0.0f, logits.data() + r0, V);
    }
  }
  // Weights holding NaN or ∞ (a broken file) must not break the sort below: NaN ranks last.
  for (float& v : logits) {
    if (std::isnan(v)) v = -INFINITY;
  }
  const float mx = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  if (std::isfinite(mx)) {
    for (float v : logits) sum += std::exp(static_cast<double>(v) - mx);
  }
  std::vector<int> order(static_cast<std::size_t>(V));
  std::iota(order.begin(), order.end(), 0);
  const auto k = static_cast<std::size_t>(std::clamp<std::int64_t>(opt.top_k, 0, V));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), [&](int a, int b) {
    const float la = logits[static_cast<std::size_t>(a)], lb = logits[static_cast<std::size_t>(b)];
    return la != lb ? la > lb : a < b;
  });
  for (std::size_t i = 0; i < k; ++i) {
    const int id = order[i];
    const double p = sum > 0 ? std::exp(static_cast<double>(logits[static_cast<std::size_t>(id)]) - mx) / sum : 0.0;
    trace.next_tokens.push_back({id, static_cast<float>(p)});
  }
  return trace;
}

}  // namespace attnlab::model
