// Picks the softmax kernel variant for the CPU this process runs on.
#include "engine/cpu/softmax_kernels.hpp"

#include <algorithm>
#include <cstdlib>

namespace attnlab::kernels {

// ATTNLAB_ISA_KERNELS: the build has the x86 variants (engine/CMakeLists.txt); without them (the
// browser's WebAssembly) the portable one is the only one.
#ifdef ATTNLAB_ISA_KERNELS
namespace avx512 { extern const Table kTable; }
namespace avx2 { extern const Table kTable; }
#endif
namespace baseline { extern const Table kTable; }

namespace {

bool has_avx512() {
#if defined(ATTNLAB_ISA_KERNELS) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

bool has_avx2() {
#if defined(ATTNLAB_ISA_KERNELS) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

}  // namespace

int variant_count() { return has_avx512() ? 3 : has_avx2() ? 2 : 1; }

const Table& variant(int i) {
  const int skip = 3 - variant_count();
  switch (i + skip) {
#ifdef ATTNLAB_ISA_KERNELS
    case 0: return avx512::kTable;
    case 1: return avx2::kTable;
#endif
    default: return baseline::kTable;
  }
}

void pack_key_strips(const float* K, std::int64_t m, std::int64_t d, std::int64_t ldk, float* out) {
  const std::int64_t strips = (m + kKeyStrip - 1) / kKeyStrip;
  const auto pack = tile_products().pack;
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < strips; ++s) {
    float* strip = out + s * kKeyStrip * d;
    const std::int64_t first = s * kKeyStrip, keys = std::min(kKeyStrip, m - first);
    if (pack) {
      pack(K + first * ldk, ldk, keys, d, strip);
      continue;
    }
    for (std::int64_t j = 0; j < kKeyStrip; ++j) {
      if (j < keys) {
        const float* row = K + (first + j) * ldk;
        for (std::int64_t k = 0; k < d; ++k) strip[k * kKeyStrip + j] = row[k];
      } else {
        for (std::int64_t k = 0; k < d; ++k) strip[k * kKeyStrip + j] = 0.0f;
      }
    }
  }
}

const Table& table() {
  static const Table& chosen = variant(0);
  return chosen;
}

const TileProducts& tile_products() {
  static const TileProducts none{nullptr, nullptr, nullptr, nullptr, nullptr};
  static const TileProducts& chosen = std::getenv("ATTNLAB_TILE_BLAS") ? none : *table().tiles;
  return chosen;
}

}  // namespace attnlab::kernels
