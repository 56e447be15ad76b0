// Picks the softmax kernel variant for the CPU this process runs on.
#include "engine/cpu/softmax_kernels.hpp"

namespace attnlab::kernels {

namespace avx512 { extern const Table kTable; }
namespace avx2 { extern const Table kTable; }
namespace baseline { extern const Table kTable; }

namespace {

bool has_avx512() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

bool has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
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
    case 0: return avx512::kTable;
    case 1: return avx2::kTable;
    default: return baseline::kTable;
  }
}

const Table& table() {
  static const Table& chosen = variant(0);
  return chosen;
}

}  // namespace attnlab::kernels
