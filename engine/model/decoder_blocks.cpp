// The decoder's shared blocks; see decoder_blocks.hpp. Shapes are in each function's comment there.
#include "engine/model/decoder_blocks.hpp"

#include "engine/cpu/blas.hpp"
#include "engine/cpu/softmax_kernels.hpp"
#include "engine/model/gelu.hpp"
#include "engine/platform/target_clones.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnlab::model::blocks {

const float* floats(TensorRef t, std::int64_t r0, std::int64_t r1, std::int64_t row_len, std::vector<float>& scratch) {
  const std::byte* at = t.file->data(*t.info) + static_cast<std::size_t>(r0 * row_len) * bytes_per_value(t.info->dtype);
  const auto count = static_cast<std::size_t>((r1 - r0) * row_len);
  if (t.info->dtype == Precision::Float32 && reinterpret_cast<std::uintptr_t>(at) % alignof(float) == 0) return reinterpret_cast<const float*>(at);
  scratch.resize(count);
  // Converted by every thread, a slice each (inside the logits' parallel loop this runs on the
  // one thread that asked: OpenMP does not nest by default).
  const std::size_t chunk = std::size_t{1} << 16, size = bytes_per_value(t.info->dtype);
  const auto chunks = static_cast<std::int64_t>((count + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t first = static_cast<std::size_t>(c) * chunk;
    to_float(t.info->dtype, at + first * size, std::min(chunk, count - first), scratch.data() + first);
  }
  return scratch.data();
}

const float* whole(TensorRef t, std::vector<float>& scratch) { return t ? floats(t, 0, 1, t.info->elements(), scratch) : nullptr; }

void norm(NormKind kind, const float* x, std::int64_t ldx, std::int64_t n, std::int64_t d, const float* w, const float* b, double eps,
          float* y, std::int64_t ldy) {
#pragma omp parallel for schedule(static) if (n * d > 4096)
  for (std::int64_t i = 0; i < n; ++i) {
    const float* xi = x + i * ldx;
    float* yi = y + i * ldy;
    // The sums in double, over vector lanes (their order differs from a plain loop's by far less
    // than float32 rounding).
    double mean = 0, var = 0;
    if (kind == NormKind::Layer) {
#pragma omp simd reduction(+ : mean)
      for (std::int64_t c = 0; c < d; ++c) mean += xi[c];
      mean /= static_cast<double>(d);
    }
#pragma omp simd reduction(+ : var)
    for (std::int64_t c = 0; c < d; ++c) var += (xi[c] - mean) * (xi[c] - mean);
    const double inv = 1.0 / std::sqrt(var / static_cast<double>(d) + eps);
#pragma omp simd
    for (std::int64_t c = 0; c < d; ++c) yi[c] = static_cast<float>((xi[c] - mean) * inv) * w[c] + (b ? b[c] : 0.0f);
  }
}

void linear(const float* X, std::int64_t n, std::int64_t in, const float* W, Layout layout, const float* b, std::int64_t out, float* Y,
            std::int64_t ldy, bool accumulate) {
  const int threads = omp_get_max_threads();
  const std::int64_t chunk = ((out + threads - 1) / threads + 15) / 16 * 16;
#pragma omp parallel for schedule(static)
  for (std::int64_t c0 = 0; c0 < out; c0 += chunk) {
    const std::int64_t c1 = std::min(out, c0 + chunk);
    // The bias goes into Y before the product, which then adds to it (beta = 1): one pass over Y
    // fewer than zeroing it (OpenBLAS's beta = 0) and adding the bias after.
    for (std::int64_t i = 0; b && i < n; ++i) {
      float* yi = Y + i * ldy;
      if (accumulate) {
        for (std::int64_t c = c0; c < c1; ++c) yi[c] += b[c];
      } else {
        std::copy(b + c0, b + c1, yi + c0);
      }
    }
    const float beta = accumulate || b ? 1.0f : 0.0f;
    if (layout == Layout::InOut) blas::gemm_nn(n, c1 - c0, in, X, in, W + c0, out, beta, Y + c0, ldy);
    else blas::gemm_nt(n, c1 - c0, in, X, in, W + c0 * in, in, beta, Y + c0, ldy);
  }
}

namespace {

// gelu over one span, compiled for AVX-512 and AVX2 besides the baseline and chosen when the
// program loads (GCC's target_clones): at the baseline's 4 lanes it took 4% of a 1024-token forward.
ATTNLAB_TARGET_CLONES
void gelu_span(float* x, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) x[i] = gelu::value(x[i]);
}

}  // namespace

void gelu(float* x, std::int64_t count) {
  constexpr std::int64_t kSpan = 1 << 14;
  const std::int64_t spans = (count + kSpan - 1) / kSpan;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < spans; ++c) gelu_span(x + c * kSpan, std::min(kSpan, count - c * kSpan));
}

void silu_gate(float* gate, const float* up, std::int64_t count) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

namespace {

// Row i of one head's scores in place: scaled, the visible keys [lo, hi] softmaxed (row max
// subtracted, the sum in double), every other key of a[0, m) 0. The exponentials are the softmax
// kernels' (an exp that vectorizes, for this CPU's instruction set): libm's scalar expf took a
// sixth of a 1024-token forward.
void softmax_row(float* a, std::int64_t m, std::int64_t lo, std::int64_t hi, float scale) {
  const kernels::Table& kt = kernels::table();
  const std::int64_t len = hi - lo + 1;
  const float mx = kt.row_max(a + lo, len);
  if (std::isfinite(mx)) {
    const double z = kt.exp_row(a + lo, a + lo, len, mx, scale, false).z;
    kt.scale(a + lo, len, static_cast<float>(1.0 / z));
  } else {
    // Scores that overflowed (weights holding ∞ or NaN, a broken file): plain arithmetic, whose
    // NaN weights say so, since the kernels need a finite max.
    double sum = 0;
    for (std::int64_t j = lo; j <= hi; ++j) sum += a[j] = std::exp(a[j] * scale - mx * scale);
    for (std::int64_t j = lo; j <= hi; ++j) a[j] = static_cast<float>(a[j] / sum);
  }
  std::fill(a, a + lo, 0.0f);
  std::fill(a + hi + 1, a + m, 0.0f);
}

}  // namespace

namespace {

// The keys the products of query rows [r0, r1) run over: every key one of them sees, from the
// first row's window start (0 without a window) to the last row's own position.
std::pair<std::int64_t, std::int64_t> block_keys(const AttentionShape& s, std::int64_t r0, std::int64_t r1) {
  const std::int64_t hi = s.start + r1 - 1;
  const std::int64_t lo = s.window > 0 ? std::max<std::int64_t>(0, s.start + r0 - s.window + 1) : 0;
  return {lo, hi};
}

}  // namespace

double attention_pairs(const AttentionShape& s) {
  double pairs = 0;
  for (std::int64_t r0 = 0; r0 < s.n; r0 += kQueryBlock) {
    const std::int64_t r1 = std::min(s.n, r0 + kQueryBlock);
    const auto [lo, hi] = block_keys(s, r0, r1);
    pairs += static_cast<double>(r1 - r0) * static_cast<double>(hi - lo + 1);
  }
  return pairs;
}

void attention(const AttentionShape& s, const float* q, std::int64_t ldq, const float* k, std::int64_t ldk, const float* v, std::int64_t ldv,
               CausalWeights* const* weights, float* out, std::int64_t ldo) {
  const std::int64_t n = s.n, m = s.start + s.n, dh = s.d_head;
  const int group = s.n_head / s.n_kv_head;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const std::int64_t blocks = (n + kQueryBlock - 1) / kQueryBlock, tasks = blocks * s.n_head;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(omp_get_max_threads()));
  // The products run on the CPU's own tile kernels (cpu/tile_kernels.cpp, AVX-512) where it has
  // them, a head's strip of 32 keys (8 KiB at d_head = 64) within half of the smallest L1, and the
  // rows are enough to repay packing each K/V head's keys once (OpenBLAS packed them again for
  // every block). Else OpenBLAS, as a generated token's single row always does.
  const kernels::TileProducts& tiles = kernels::tile_products();
  const bool own = tiles.scores && tiles.output && dh % 16 == 0 && kernels::kKeyStrip * dh * 4 <= (16 << 10) && n >= 16;
  const std::int64_t strip_floats = (m + kernels::kKeyStrip - 1) / kernels::kKeyStrip * kernels::kKeyStrip * dh;
  std::vector<float> strips(own ? static_cast<std::size_t>(strip_floats * s.n_kv_head) : 0);
  for (int g = 0; own && g < s.n_kv_head; ++g) kernels::pack_key_strips(k + g * dh, m, dh, ldk, strips.data() + g * strip_floats);
  // One task per head and block of query rows, the last blocks (the most keys) first: each block's
  // scores, softmax and A·V stay in the core's cache, and no block multiplies the keys above the
  // causal diagonal of its last row.
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t t = 0; t < tasks; ++t) {
    const int h = static_cast<int>(t % s.n_head);
    const std::int64_t b = blocks - 1 - t / s.n_head;
    const std::int64_t r0 = b * kQueryBlock, r1 = std::min(n, r0 + kQueryBlock), rows = r1 - r0;
    const auto [lo, hi] = block_keys(s, r0, r1);
    // The block's scores and weights in the thread's own buffer (rows × keys 0 … hi, stride m),
    // which stays in cache; the kept weights get a copy of each row's stored keys at the end.
    auto& buf = scratch[static_cast<std::size_t>(omp_get_thread_num())];
    buf.resize(static_cast<std::size_t>(std::min(n, kQueryBlock) * m));
    float* A = buf.data();
    const std::int64_t g = h / group;
    const float* qb = q + r0 * ldq + h * dh;
    float* ob = out + r0 * ldo + h * dh;
    if (own) {
      // The scores from the strip boundary at or before lo (the softmax zeroes the keys before lo).
      const std::int64_t first = lo - lo % kernels::kKeyStrip;
      tiles.scores(qb, ldq, strips.data() + g * strip_floats + first * dh, rows, hi - first + 1, dh, A + first, m);
    } else {
      blas::gemm_nt(rows, hi - lo + 1, dh, qb, ldq, k + lo * ldk + g * dh, ldk, 0.0f, A + lo, m);
    }
    for (std::int64_t i = r0; i < r1; ++i) {
      const std::int64_t row_hi = s.start + i, row_lo = s.window > 0 ? std::max<std::int64_t>(0, row_hi - s.window + 1) : 0;
      softmax_row(A + (i - r0) * m, hi + 1, row_lo, row_hi, scale);
    }
    if (own) {
      for (std::int64_t i = 0; i < rows; ++i) std::fill(ob + i * ldo, ob + i * ldo + dh, 0.0f);
      tiles.output(A + lo, m, v + lo * ldv + g * dh, ldv, rows, hi - lo + 1, dh, ob, ldo);
    } else {
      blas::gemm_nn(rows, dh, hi - lo + 1, A + lo, m, v + lo * ldv + g * dh, ldv, 0.0f, ob, ldo);
    }
    if (weights) {
      for (std::int64_t i = r0; i < r1; ++i) std::copy_n(A + (i - r0) * m, weights[h]->row_length(i), weights[h]->row(i));
    }
  }
}

std::vector<float> output_logits(const float* x, std::int64_t d, TensorRef lm_head, std::int64_t V) {
  std::vector<float> logits(static_cast<std::size_t>(V));
  constexpr std::int64_t kChunk = 1024;  // 3 MiB of F32 rows per thread when the matrix must be converted
#pragma omp parallel
  {
    std::vector<float> rows;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t r0 = 0; r0 < V; r0 += kChunk) {
      const std::int64_t r1 = std::min(V, r0 + kChunk);
      blas::gemm_nt(1, r1 - r0, d, x, d, floats(lm_head, r0, r1, d, rows), d, 0.0f, logits.data() + r0, V);
    }
  }
  return logits;
}

std::vector<NextToken> top_tokens(std::vector<float> logits, int k) {
  const auto V = static_cast<std::int64_t>(logits.size());
  // Weights holding NaN or ∞ (a broken file) must not break the sort below: NaN ranks last.
  for (float& l : logits) {
    if (std::isnan(l)) l = -INFINITY;
  }
  const float mx = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  if (std::isfinite(mx)) {
    for (float l : logits) sum += std::exp(static_cast<double>(l) - mx);
  }
  std::vector<int> order(static_cast<std::size_t>(V));
  std::iota(order.begin(), order.end(), 0);
  const auto top = static_cast<std::size_t>(std::clamp<std::int64_t>(k, 0, V));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(), [&](int a, int b) {
    const float la = logits[static_cast<std::size_t>(a)], lb = logits[static_cast<std::size_t>(b)];
    return la != lb ? la > lb : a < b;
  });
  std::vector<NextToken> out;
  for (std::size_t i = 0; i < top; ++i) {
    const int id = order[i];
    const double p = sum > 0 ? std::exp(static_cast<double>(logits[static_cast<std::size_t>(id)]) - mx) / sum : 0.0;
    out.push_back({id, static_cast<float>(p)});
  }
  return out;
}

}  // namespace attnlab::model::blocks
