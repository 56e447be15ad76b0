// OpenBLAS behind the engine's products, and the choice of its kernels for this CPU.
#include "engine/cpu/blas.hpp"

#include <cblas.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>

namespace attnlab::blas {

namespace {

void single_threaded() {
  // OpenBLAS's own pthread pool would fight OpenMP's for the same cores; the engine splits the
  // work itself, so every sgemm runs in the calling thread.
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

// Whether the kernel hands out transparent huge pages only to memory that asks (madvise mode):
// then the malloc tunable matters. "always" gives them anyway, "never" not at all.
bool transparent_huge_pages_on_request() {
  std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return false;
  char line[128] = {};
  const bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  return read && std::strstr(line, "[madvise]") != nullptr;
}

}  // namespace

namespace {

// C (rows × cols) = A (rows × k) · B or Bᵀ + beta·C, row-major, on the calling thread. One row of A
// is a matrix-vector product, which sgemv streams B for; OpenBLAS 0.3.21's sgemm packs B first and
// ran a one-row product 2.4× slower (a generated token's projections are all one row: they read
// every weight once, so memory speed is what they can reach).
void sgemm(CBLAS_TRANSPOSE b_op, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A,
           std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  if (rows <= 0 || cols <= 0) return;
  single_threaded();
  if (rows == 1) {
    // Bᵀ: B is cols × k and C = B·a; else B is k × cols and C = Bᵀ·a.
    const bool t = b_op == CblasTrans;
    cblas_sgemv(CblasRowMajor, t ? CblasNoTrans : CblasTrans, static_cast<blasint>(t ? cols : k), static_cast<blasint>(t ? k : cols), 1.0f, B,
                static_cast<blasint>(ldb), A, 1, beta, C, 1);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, b_op, static_cast<blasint>(rows), static_cast<blasint>(cols),
              static_cast<blasint>(k), 1.0f, A, static_cast<blasint>(lda), B, static_cast<blasint>(ldb), beta, C,
              static_cast<blasint>(ldc));
}

}  // namespace

void gemm_nt(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
             const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  sgemm(CblasTrans, rows, cols, k, A, lda, B, ldb, beta, C, ldc);
}

void gemm_nn(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
             const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  sgemm(CblasNoTrans, rows, cols, k, A, lda, B, ldb, beta, C, ldc);
}

void gemm(bool trans_a, bool trans_b, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
          const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  if (rows <= 0 || cols <= 0) return;
  single_threaded();
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(rows),
              static_cast<blasint>(cols), static_cast<blasint>(k), 1.0f, A, static_cast<blasint>(lda), B, static_cast<blasint>(ldb), beta,
              C, static_cast<blasint>(ldc));
}

void trmm_lower(std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda, float* B, std::int64_t ldb) {
  if (rows <= 0 || cols <= 0) return;
  single_threaded();
  cblas_strmm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, static_cast<blasint>(rows),
              static_cast<blasint>(cols), 1.0f, A, static_cast<blasint>(lda), B, static_cast<blasint>(ldb));
}

OpenBlasThreads::OpenBlasThreads(int threads) {
  single_threaded();  // first, so that its one-time setting does not undo this one
  openblas_set_num_threads(threads);
}

OpenBlasThreads::~OpenBlasThreads() { openblas_set_num_threads(1); }

int threads() {
  single_threaded();
  return openblas_get_num_threads();
}

std::string description() {
  const char* core = openblas_get_corename();
  const char* config = openblas_get_config();
  std::string version = "OpenBLAS";
  if (config && std::strncmp(config, "OpenBLAS ", 9) == 0) {
    const char* end = std::strchr(config + 9, ' ');
    version = end ? std::string(config, static_cast<size_t>(end - config)) : std::string(config);
  }
  return version + " (" + (core ? core : "?") + " kernels)";
}

void reexec_with_tuned_runtime(char** argv) {
  if (std::getenv("ATTNLAB_NO_REEXEC") || !argv || !argv[0]) return;
  bool changed = false;
#if defined(__x86_64__)
  if (!std::getenv("OPENBLAS_CORETYPE")) {
    const char* core_c = openblas_get_corename();
    const std::string_view core = core_c ? core_c : "";
    __builtin_cpu_init();
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    // Core names of OpenBLAS's kernels without AVX2/FMA: what it falls back to on unknown CPUs.
    const bool weak = core == "Prescott" || core == "Core2" || core == "Penryn" || core == "Dunnington" ||
                      core == "Nehalem" || core == "Atom" || core == "Sandybridge" || core == "Katmai" ||
                      core == "Northwood" || core == "Banias" || core.empty();
    const char* better = nullptr;
    if (avx512 && weak) better = "SkylakeX";
    else if (avx2 && weak) better = "Haswell";
    if (better) {
      setenv("OPENBLAS_CORETYPE", better, 1);
      changed = true;
    }
  }
#endif
  // libgomp's default lets idle threads spin at every barrier. On a loaded machine (or under
  // Linux's per-session CPU fairness) a spinning thread burns the time its partner needs to
  // finish its share: the dense bench ran 2× slower than with one thread. Passive threads sleep.
  if (!std::getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    changed = true;
  }
  // OpenBLAS's idle pool threads spin (sched_yield) for 2^28 cycles, about 0.1 s, after the library
  // loads and after every product they share, before they sleep. The engine runs OpenBLAS on the
  // calling thread except in one-product stages, so the spinner competes with OpenMP's threads for
  // the two cores: a fresh `bench --n 1024 --dk 512 --mask causal --runs 7 --warmup 2` ran in 10 ms
  // where it takes 5.6 (10 alternating pairs). 2^4 cycles: they sleep at once, and a product that
  // shares them wakes them through a condition variable.
  if (!std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
    changed = true;
  }
  // Transparent huge pages for the large matrices, as numpy gives its arrays of 4 MiB and more:
  // where the kernel only grants them on request ("madvise", Debian's default), glibc's malloc
  // asks for them when this tunable is on. With 4 KiB pages, OpenBLAS's packing walks the rows of
  // a 1024 × 4096 operand (16 KiB apart, one TLB entry each) and each product ran 3–4% slower.
  if (transparent_huge_pages_on_request()) {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    const std::string current = tunables ? tunables : "";
    if (current.find("glibc.malloc.hugetlb") == std::string::npos) {
      setenv("GLIBC_TUNABLES", (current.empty() ? "" : current + ":").append("glibc.malloc.hugetlb=1").c_str(), 1);
      changed = true;
    }
  }
  if (!changed) return;
  // The binary's own path rather than /proc/self/exe, which would rename the process "exe" in ps,
  // top and pkill (Linux names a process after the file it executes).
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) {
    self[len] = '\0';
    execv(self, argv);
  }
  execv("/proc/self/exe", argv);
  // exec failed: carry on with what we have
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("OMP_WAIT_POLICY");
}

}  // namespace attnlab::blas
