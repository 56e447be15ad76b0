// Products with a weight as its file stores it; see weight_products.hpp.
#include "engine/model/weight_products.hpp"

#include "engine/cpu/blas.hpp"
#include "engine/platform/target_clones.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

namespace attnlab::model::blocks {

namespace {

// y[r] (+)= x · w_r for `rows` rows of w (row stride `in`), four at a time so that four streams of
// the weight are in flight (a generated token's products read every weight once: memory speed is
// what they can reach).
ATTNLAB_TARGET_CLONES
void dot_rows(const float* x, const float* w, std::int64_t rows, std::int64_t in, float* y, bool accumulate) {
  std::int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const float *w0 = w + r * in, *w1 = w0 + in, *w2 = w1 + in, *w3 = w2 + in;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (std::int64_t i = 0; i < in; ++i) {
      const float xi = x[i];
      s0 += xi * w0[i];
      s1 += xi * w1[i];
      s2 += xi * w2[i];
      s3 += xi * w3[i];
    }
    if (accumulate) y[r] += s0, y[r + 1] += s1, y[r + 2] += s2, y[r + 3] += s3;
    else y[r] = s0, y[r + 1] = s1, y[r + 2] = s2, y[r + 3] = s3;
  }
  for (; r < rows; ++r) {
    const float* wr = w + r * in;
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (std::int64_t i = 0; i < in; ++i) s += x[i] * wr[i];
    y[r] = accumulate ? y[r] + s : s;
  }
}

// Rows [r0, r1) of W as float32: where they are mapped (float32, aligned), else converted into `buf`.
const float* rows_of(TensorRef W, std::int64_t r0, std::int64_t r1, std::int64_t in, std::vector<float>& buf) {
  const TensorType type = W.info->type;
  const std::byte* at = W.file->data(*W.info) + type_bytes(type, static_cast<std::uint64_t>(r0 * in));
  if (type == TensorType::F32 && reinterpret_cast<std::uintptr_t>(at) % alignof(float) == 0) return reinterpret_cast<const float*>(at);
  buf.resize(static_cast<std::size_t>((r1 - r0) * in));
  to_floats(type, at, (r1 - r0) * in, buf.data());
  return buf.data();
}

// One thread's output rows [c0, c1): the bias first (the products then add to it), then the rows of W
// a block at a time.
void rows_product(const float* X, std::int64_t n, std::int64_t in, TensorRef W, const float* b, std::int64_t c0, std::int64_t c1, float* Y,
                  std::int64_t ldy, bool accumulate, std::vector<float>& buf) {
  for (std::int64_t i = 0; b && i < n; ++i) {
    float* yi = Y + i * ldy;
    for (std::int64_t c = c0; c < c1; ++c) yi[c] = accumulate ? yi[c] + b[c] : b[c];
  }
  const bool add = accumulate || b;
  if (n <= kDotRows) {
    // A block small enough to stay in the first-level cache while each query row reads it.
    const std::int64_t block = std::max<std::int64_t>(4, (std::int64_t{8} << 10) / std::max<std::int64_t>(in, 1) / 4 * 4);
    for (std::int64_t r = c0; r < c1; r += block) {
      const std::int64_t r1 = std::min(c1, r + block);
      const float* w = rows_of(W, r, r1, in, buf);
      for (std::int64_t i = 0; i < n; ++i) dot_rows(X + i * in, w, r1 - r, in, Y + i * ldy + r, add);
    }
    return;
  }
  // Blocks of about 512 KiB of float32 rows (in the core's second-level cache) for OpenBLAS.
  const std::int64_t block = W.info->type == TensorType::F32 ? c1 - c0 : std::max<std::int64_t>(16, (std::int64_t{128} << 10) / in);
  for (std::int64_t r = c0; r < c1; r += block) {
    const std::int64_t r1 = std::min(c1, r + block);
    blas::gemm_nt(n, r1 - r, in, X, in, rows_of(W, r, r1, in, buf), in, add ? 1.0f : 0.0f, Y + r, ldy);
  }
}

}  // namespace

// Multiply-adds below which a product is not shared among threads (about a tenth of a millisecond).
constexpr std::int64_t kParallelWork = std::int64_t{1} << 20;

void linear_rows(const float* X, std::int64_t n, std::int64_t in, TensorRef W, const float* b, std::int64_t out, float* Y, std::int64_t ldy,
                 bool accumulate) {
  const int threads = omp_get_max_threads();
  // Each thread's share, a whole number of 16 rows (a K type's row is whole blocks already).
  const std::int64_t chunk = ((out + threads - 1) / threads + 15) / 16 * 16;
  const std::int64_t parts = (out + chunk - 1) / chunk;
  // A small product (the built-in models' 64-wide layers on a few dozen tokens) stays on this thread:
  // its threads' start and join cost more than it, and far more while another program keeps the
  // cores busy (two lessons' knock-out runs side by side took 70 s instead of 1).
  const bool parallel = n * in * out >= kParallelWork;
#pragma omp parallel for schedule(static) num_threads(static_cast<int>(std::min<std::int64_t>(parts, threads))) if (parallel)
  for (std::int64_t p = 0; p < parts; ++p) {
    // Each thread's conversion buffer lives as long as the thread (OpenMP keeps its team): at most a
    // block of rows, and no allocation (nor its fresh pages' faults) per product.
    thread_local std::vector<float> buf;
    const std::int64_t c0 = p * chunk, c1 = std::min(out, c0 + chunk);
    rows_product(X, n, in, W, b, c0, c1, Y, ldy, accumulate, buf);
  }
}

}  // namespace attnlab::model::blocks
