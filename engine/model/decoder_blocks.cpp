// The decoder's shared blocks; see decoder_blocks.hpp. Shapes are in each function's comment there.
#include "engine/model/decoder_blocks.hpp"

#include "engine/cpu/blas.hpp"
#include "engine/cpu/softmax_kernels.hpp"
#include "engine/model/gelu.hpp"
#include "engine/model/weight_products.hpp"
#include "engine/platform/target_clones.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace attnlab::model::blocks {

const float* floats(TensorRef t, std::int64_t r0, std::int64_t r1, std::int64_t row_len, std::vector<float>& scratch) {
  const TensorType type = t.info->type;
  const std::byte* at = t.file->data(*t.info) + type_bytes(type, static_cast<std::uint64_t>(r0 * row_len));
  const auto count = static_cast<std::size_t>((r1 - r0) * row_len);
  if (type == TensorType::F32 && reinterpret_cast<std::uintptr_t>(at) % alignof(float) == 0) return reinterpret_cast<const float*>(at);
  scratch.resize(count);
  // Converted by every thread, a slice each (inside the logits' parallel loop this runs on the
  // one thread that asked: OpenMP does not nest by default). A slice is a whole number of blocks.
  const std::size_t chunk = std::size_t{1} << 16;
  const auto chunks = static_cast<std::int64_t>((count + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t first = static_cast<std::size_t>(c) * chunk;
    to_floats(type, at + type_bytes(type, first), static_cast<std::int64_t>(std::min(chunk, count - first)), scratch.data() + first);
  }
  return scratch.data();
}

const float* whole(TensorRef t, std::vector<float>& scratch) { return t ? floats(t, 0, 1, t.info->elements(), scratch) : nullptr; }

namespace {

// The parts [0, n) splits into, one per thread: the same thread count always gives the same
// parts, so every sum a part makes runs in a fixed order.
std::int64_t parts_of(std::int64_t n) { return std::max<std::int64_t>(1, std::min<std::int64_t>(omp_get_max_threads(), n)); }

}  // namespace

void embed(TensorRef embed, TensorRef position, const int* ids, const std::int64_t* positions, std::int64_t n, std::int64_t d, float* x) {
  // A forward's positions are consecutive: their rows are converted at once.
  bool consecutive = true;
  for (std::int64_t i = 1; position && i < n; ++i) consecutive = consecutive && positions[i] == positions[0] + i;
  std::vector<float> row, pos_rows;
  const float* pos = position && consecutive ? floats(position, positions[0], positions[0] + n, d, pos_rows) : nullptr;
  for (std::int64_t i = 0; i < n; ++i) {
    const int id = ids[i];
    const float* e = floats(embed, id, id + 1, d, row);
    const float* p = !position ? nullptr : pos ? pos + i * d : floats(position, positions[i], positions[i] + 1, d, pos_rows);
    for (std::int64_t j = 0; j < d; ++j) x[i * d + j] = e[j] + (p ? p[j] : 0.0f);
  }
}

void embed_backward(const float* dx, const int* ids, const std::int64_t* positions, std::int64_t n, std::int64_t d, float* d_embed,
                    float* d_position) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float* g = dx + i * d;
    float* e = d_embed + static_cast<std::int64_t>(ids[i]) * d;
    for (std::int64_t j = 0; j < d; ++j) e[j] += g[j];
    if (!d_position) continue;
    float* p = d_position + positions[i] * d;
    for (std::int64_t j = 0; j < d; ++j) p[j] += g[j];
  }
}

void norm(NormKind kind, const float* x, std::int64_t ldx, std::int64_t n, std::int64_t d, const float* w, const float* b, double eps,
          float* y, std::int64_t ldy, float* stats) {
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
    if (stats) {
      stats[2 * i] = static_cast<float>(mean);
      stats[2 * i + 1] = static_cast<float>(inv);
    }
  }
}

void norm_backward(NormKind kind, const float* dy, const float* x, std::int64_t n, std::int64_t d, const float* stats, const float* w,
                   float* dx, float* dw, float* db) {
  // dx = (dn − mean(dn) − x̂·mean(dn·x̂))/σ with dn = w·dy (RMSNorm: no mean(dn) term, its x̂ = x/σ).
  const double centred = kind == NormKind::Layer ? 1.0 : 0.0;
  const std::int64_t parts = parts_of(d);
#pragma omp parallel if (n * d > 4096)
  {
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const float *xi = x + i * d, *gi = dy + i * d;
      const float mean = stats[2 * i], rstd = stats[2 * i + 1];
      // The sums in double over vector lanes, as the forward's.
      double dn_mean = 0, dn_xhat_mean = 0;
#pragma omp simd reduction(+ : dn_mean, dn_xhat_mean)
      for (std::int64_t c = 0; c < d; ++c) {
        const double dn = static_cast<double>(w[c]) * gi[c];
        dn_mean += dn;
        dn_xhat_mean += dn * ((xi[c] - mean) * rstd);
      }
      const auto a = static_cast<float>(centred * dn_mean / static_cast<double>(d));
      const auto b = static_cast<float>(dn_xhat_mean / static_cast<double>(d));
      float* dxi = dx + i * d;
#pragma omp simd
      for (std::int64_t c = 0; c < d; ++c) dxi[c] += (w[c] * gi[c] - a - ((xi[c] - mean) * rstd) * b) * rstd;
    }
    // The weight's and bias's sums run down the rows in order, a block of columns per part.
#pragma omp for schedule(static)
    for (std::int64_t p = 0; p < parts; ++p) {
      const std::int64_t c0 = p * d / parts, c1 = (p + 1) * d / parts;
      for (std::int64_t i = 0; i < n; ++i) {
        const float *xi = x + i * d, *gi = dy + i * d;
        const float mean = stats[2 * i], rstd = stats[2 * i + 1];
#pragma omp simd
        for (std::int64_t c = c0; c < c1; ++c) dw[c] += (xi[c] - mean) * rstd * gi[c];
        if (!db) continue;
#pragma omp simd
        for (std::int64_t c = c0; c < c1; ++c) db[c] += gi[c];
      }
    }
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

void deinterleave_heads(float* Y, std::int64_t n, std::int64_t cols, std::int64_t ldy, int width) {
  const int half = width / 2;
  std::vector<float> head(static_cast<std::size_t>(width));
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t h = 0; h + width <= cols; h += width) {
      float* y = Y + i * ldy + h;
      std::copy_n(y, width, head.data());
      for (int k = 0; k < half; ++k) {
        y[k] = head[static_cast<std::size_t>(2 * k)];
        y[k + half] = head[static_cast<std::size_t>(2 * k + 1)];
      }
    }
  }
}

void linear_backward(const float* dY, std::int64_t lddy, const float* X, std::int64_t n, std::int64_t in, const float* W, Layout layout,
                     std::int64_t out, float* dX, bool accumulate_dx, float* dW, float* db) {
  // Parts 0 … P − 1 are blocks of dX's rows, parts P … 2P − 1 blocks of dW's output columns (with
  // db's): one parallel region, each part one thread's, the two products' work about equal.
  const std::int64_t P = parts_of(std::max(n, out)), first = dX ? 0 : P;
  const float beta = accumulate_dx ? 1.0f : 0.0f;
#pragma omp parallel for schedule(static)
  for (std::int64_t p = first; p < 2 * P; ++p) {
    if (p < P) {
      const std::int64_t r0 = p * n / P, r1 = (p + 1) * n / P;
      if (r0 == r1) continue;
      // dX = dY·Wᵀ: W [in, out] (InOut) read transposed, or [out, in] (OutIn) as it is.
      if (layout == Layout::InOut) blas::gemm(false, true, r1 - r0, in, out, dY + r0 * lddy, lddy, W, out, beta, dX + r0 * in, in);
      else blas::gemm(false, false, r1 - r0, in, out, dY + r0 * lddy, lddy, W, in, beta, dX + r0 * in, in);
      continue;
    }
    const std::int64_t c0 = (p - P) * out / P, c1 = (p - P + 1) * out / P;
    if (c0 == c1) continue;
    // dW += Xᵀ·dY as W is laid out: [in, out] takes columns c0 … c1, [out, in] rows c0 … c1.
    if (layout == Layout::InOut) blas::gemm(true, false, in, c1 - c0, n, X, in, dY + c0, lddy, 1.0f, dW + c0, out);
    else blas::gemm(true, false, c1 - c0, in, n, dY + c0, lddy, X, in, 1.0f, dW + c0 * in, in);
    for (std::int64_t i = 0; db && i < n; ++i) {
      const float* g = dY + i * lddy;
      for (std::int64_t c = c0; c < c1; ++c) db[c] += g[c];
    }
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

void gelu_backward(const float* x, const float* y, const float* dy, float* dx, std::int64_t count) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) dx[i] = dy[i] * gelu::derivative_from_value(x[i], y[i]);
}

void silu_gate(float* gate, const float* up, std::int64_t count) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void silu_gate_backward(const float* gate, const float* up, const float* dy, float* d_gate, float* d_up, std::int64_t count) {
  // silu(g) = g·σ(g), silu′(g) = σ(g)·(1 + g·(1 − σ(g))), with σ as the forward computes it.
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const float g = gate[i], sigma = 1.0f / (1.0f + std::exp(-g));
    d_up[i] = dy[i] * g * sigma;
    d_gate[i] = dy[i] * up[i] * sigma * (1.0f + g * (1.0f - sigma));
  }
}

RopeAngles rope_backward_angles(RopeAngles angles) {
  for (float& s : angles.sin) s = -s;
  return angles;
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
  if (s.batch > 1 && s.start != 0) throw std::logic_error("attention: a batch of sequences has no cached positions");
  const std::int64_t n = s.n, m = s.start + s.n, dh = s.d_head;
  const int group = s.n_head / s.n_kv_head;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const std::int64_t blocks = (n + kQueryBlock - 1) / kQueryBlock, per_sequence = blocks * s.n_head, tasks = per_sequence * s.batch;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(omp_get_max_threads()));
  // The products run on the CPU's own tile kernels (cpu/tile_kernels.cpp, AVX-512) where it has
  // them, a head's strip of 32 keys (8 KiB at d_head = 64) within half of the smallest L1, and the
  // rows are enough to repay packing each K/V head's keys once (OpenBLAS packed them again for
  // every block). Else OpenBLAS, as a generated token's single row always does.
  const kernels::TileProducts& tiles = kernels::tile_products();
  const bool own = tiles.scores && tiles.output && dh % 16 == 0 && kernels::kKeyStrip * dh * 4 <= (16 << 10) && n >= 16;
  const std::int64_t strip_floats = (m + kernels::kKeyStrip - 1) / kernels::kKeyStrip * kernels::kKeyStrip * dh;
  const std::int64_t kv_heads = std::int64_t{s.n_kv_head} * s.batch;  // every sequence's K/V heads
  std::vector<float> strips(own ? static_cast<std::size_t>(strip_floats * kv_heads) : 0);
  for (std::int64_t sg = 0; own && sg < kv_heads; ++sg) {
    const std::int64_t seq = sg / s.n_kv_head, g = sg % s.n_kv_head;
    kernels::pack_key_strips(k + seq * m * ldk + g * dh, m, dh, ldk, strips.data() + sg * strip_floats);
  }
  // One task per sequence, head and block of query rows, the last blocks (the most keys) first:
  // each block's scores, softmax and A·V stay in the core's cache, and no block multiplies the
  // keys above the causal diagonal of its last row.
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t t = 0; t < tasks; ++t) {
    const std::int64_t seq = t / per_sequence, u = t % per_sequence;
    const int h = static_cast<int>(u % s.n_head);
    const std::int64_t b = blocks - 1 - u / s.n_head;
    const std::int64_t r0 = b * kQueryBlock, r1 = std::min(n, r0 + kQueryBlock), rows = r1 - r0;
    const auto [lo, hi] = block_keys(s, r0, r1);
    // The block's scores and weights in the thread's own buffer (rows × keys 0 … hi, stride m),
    // which stays in cache; the kept weights get a copy of each row's stored keys at the end.
    auto& buf = scratch[static_cast<std::size_t>(omp_get_thread_num())];
    buf.resize(static_cast<std::size_t>(std::min(n, kQueryBlock) * m));
    float* A = buf.data();
    const std::int64_t g = h / group;
    const float* qb = q + (seq * n + r0) * ldq + h * dh;
    const float* kg = k + seq * m * ldk + g * dh;
    const float* vg = v + seq * m * ldv + g * dh;
    float* ob = out + (seq * n + r0) * ldo + h * dh;
    if (own) {
      // The scores from the strip boundary at or before lo (the softmax zeroes the keys before lo).
      const std::int64_t first = lo - lo % kernels::kKeyStrip;
      tiles.scores(qb, ldq, strips.data() + (seq * s.n_kv_head + g) * strip_floats + first * dh, rows, hi - first + 1, dh, A + first, m);
    } else {
      blas::gemm_nt(rows, hi - lo + 1, dh, qb, ldq, kg + lo * ldk, ldk, 0.0f, A + lo, m);
    }
    for (std::int64_t i = r0; i < r1; ++i) {
      const std::int64_t row_hi = s.start + i, row_lo = s.window > 0 ? std::max<std::int64_t>(0, row_hi - s.window + 1) : 0;
      softmax_row(A + (i - r0) * m, hi + 1, row_lo, row_hi, scale);
    }
    if (own) {
      for (std::int64_t i = 0; i < rows; ++i) std::fill(ob + i * ldo, ob + i * ldo + dh, 0.0f);
      tiles.output(A + lo, m, vg + lo * ldv, ldv, rows, hi - lo + 1, dh, ob, ldo);
    } else {
      blas::gemm_nn(rows, dh, hi - lo + 1, A + lo, m, vg + lo * ldv, ldv, 0.0f, ob, ldo);
    }
    if (CausalWeights* kept = weights ? weights[seq * s.n_head + h] : nullptr) {
      for (std::int64_t i = r0; i < r1; ++i) std::copy_n(A + (i - r0) * m, kept->row_length(i), kept->row(i));
    }
  }
}

void attention_backward(const AttentionShape& s, const float* q, const float* k, const float* v, std::int64_t ld,
                        const CausalWeights* const* weights, const float* d_out, std::int64_t ldo, float* dq, float* dk, float* dv,
                        std::int64_t ldd) {
  if (s.start != 0) throw std::logic_error("attention_backward: training runs without cached positions");
  const std::int64_t T = s.n, dh = s.d_head, group = s.n_head / s.n_kv_head, tasks = std::int64_t{s.batch} * s.n_kv_head;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
#pragma omp parallel
  {
    std::vector<float> A(static_cast<std::size_t>(T * T)), D(static_cast<std::size_t>(T * T));
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < tasks; ++t) {
      const std::int64_t seq = t / s.n_kv_head, g = t % s.n_kv_head, row0 = seq * T;
      const float *kg = k + row0 * ld + g * dh, *vg = v + row0 * ld + g * dh;
      float *dkg = dk + row0 * ldd + g * dh, *dvg = dv + row0 * ldd + g * dh;
      for (std::int64_t i = 0; i < T; ++i) {
        std::fill_n(dkg + i * ldd, dh, 0.0f);
        std::fill_n(dvg + i * ldd, dh, 0.0f);
      }
      for (std::int64_t h = g * group; h < (g + 1) * group; ++h) {
        const CausalWeights& w = *weights[seq * s.n_head + h];
        for (std::int64_t i = 0; i < T; ++i) {
          std::copy_n(w.row(i), w.row_length(i), A.data() + i * T);
          std::fill(A.data() + i * T + w.row_length(i), A.data() + (i + 1) * T, 0.0f);
        }
        const float* dy = d_out + row0 * ldo + h * dh;
        const float* qh = q + row0 * ld + h * dh;
        // dA = dy·vᵀ and dv += Aᵀ·dy.
        blas::gemm(false, true, T, T, dh, dy, ldo, vg, ld, 0.0f, D.data(), T);
        blas::gemm(true, false, T, dh, T, A.data(), T, dy, ldo, 1.0f, dvg, ldd);
        // Through the softmax and the scale: dS_ij = a_ij·(dA_ij − Σ_k a_ik·dA_ik)/√d_head, 0 where
        // the mask kept a_ij at 0.
        for (std::int64_t i = 0; i < T; ++i) {
          const float* a = A.data() + i * T;
          float* d = D.data() + i * T;
          double dot = 0;
          for (std::int64_t j = 0; j < T; ++j) dot += static_cast<double>(a[j]) * d[j];
          for (std::int64_t j = 0; j < T; ++j) d[j] = a[j] * (d[j] - static_cast<float>(dot)) * scale;
        }
        // dq = dS·k; dk += dSᵀ·q.
        blas::gemm(false, false, T, dh, T, D.data(), T, kg, ld, 0.0f, dq + row0 * ldd + h * dh, ldd);
        blas::gemm(true, false, T, dh, T, D.data(), T, qh, ld, 1.0f, dkg, ldd);
      }
    }
  }
}

std::vector<float> output_logits(const float* x, std::int64_t d, TensorRef lm_head, std::int64_t V) {
  std::vector<float> logits(static_cast<std::size_t>(V));
  linear_rows(x, 1, d, lm_head, nullptr, V, logits.data(), V, false);
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

double cross_entropy(float* logits, const int* targets, std::int64_t n, std::int64_t V) {
  std::vector<double> row_loss(static_cast<std::size_t>(n), 0.0);
#pragma omp parallel for schedule(static) if (n * V > 4096)
  for (std::int64_t i = 0; i < n; ++i) {
    float* p = logits + i * V;
    const float mx = *std::max_element(p, p + V);
    const int t = targets[i];
    const double target_logit = t >= 0 ? static_cast<double>(p[t] - mx) : 0.0;
    // Each exponential once, kept in place, the sum in double.
    double sum = 0;
    for (std::int64_t v = 0; v < V; ++v) {
      const double e = std::exp(static_cast<double>(p[v] - mx));
      sum += e;
      p[v] = static_cast<float>(e);
    }
    if (t >= 0) row_loss[static_cast<std::size_t>(i)] = std::log(sum) - target_logit;
    const auto inv = static_cast<float>(1.0 / sum);
    for (std::int64_t v = 0; v < V; ++v) p[v] *= inv;
  }
  double loss = 0;
  for (const double l : row_loss) loss += l;
  return loss;
}

void cross_entropy_backward(float* probs, const int* targets, int counted, std::int64_t n, std::int64_t V) {
  const float inv = counted > 0 ? 1.0f / static_cast<float>(counted) : 0.0f;
#pragma omp parallel for schedule(static) if (n * V > 4096)
  for (std::int64_t i = 0; i < n; ++i) {
    float* p = probs + i * V;
    const int t = targets[i];
    if (t < 0) {
      std::fill(p, p + V, 0.0f);
      continue;
    }
    for (std::int64_t v = 0; v < V; ++v) p[v] *= inv;
    p[t] -= inv;
  }
}

}  // namespace attnlab::model::blocks
