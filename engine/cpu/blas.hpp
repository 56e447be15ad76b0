// The engine's matrix products: single-threaded OpenBLAS sgemm calls on row-major float blocks.
// The engine parallelizes around them with OpenMP (one pool, no oversubscription on few cores),
// except where one product is the whole stage (OpenBlasThreads).
#pragma once

#include <cstdint>
#include <string>

namespace attnlab::blas {

// C (rows × cols, row stride ldc) = A · Bᵀ + beta·C, where A is rows × k (stride lda) and B is
// cols × k (stride ldb). This is the scores product S = Q Kᵀ on a tile.
void gemm_nt(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
             const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc);

// C (rows × cols) = A · B + beta·C, where A is rows × k and B is k × cols (the output P V).
void gemm_nn(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
             const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc);

// C (rows × cols) = op(A) · op(B) + beta·C with either operand transposed: the products of
// training's backward passes (engine/model/decoder_blocks.cpp). op(A) is rows × k, op(B) is
// k × cols; lda and ldb are the strides of A and B as stored.
void gemm(bool trans_a, bool trans_b, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
          const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc);

// B (rows × cols, row stride ldb) = A · B in place, where A is rows × rows lower triangular (row
// stride lda; the cells above its diagonal are not read). The output O = A V of a causal mask.
void trmm_lower(std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda, float* B, std::int64_t ldb);

// While one lives, the products run on OpenBLAS's own pool of `threads` threads instead of in the
// calling thread alone. For one large product called outside any OpenMP region, from a thread
// where no other engine product runs meanwhile: OpenBLAS's thread count is global to the process.
class OpenBlasThreads {
public:
  explicit OpenBlasThreads(int threads);
  ~OpenBlasThreads();
  OpenBlasThreads(const OpenBlasThreads&) = delete;
  OpenBlasThreads& operator=(const OpenBlasThreads&) = delete;
};

// How many threads OpenBLAS runs a product on now (1 outside an OpenBlasThreads).
int threads();

// "OpenBLAS 0.3.21 (SkylakeX kernels)" for logs and docs.
std::string description();

// Settings that can only be chosen through the environment before the libraries load, so this
// sets them and re-executes the program once with the same arguments (returns normally when
// nothing needs changing; call first thing in main(); ATTNLAB_NO_REEXEC=1 turns it off):
// - OPENBLAS_CORETYPE, when unset and OpenBLAS picked kernels below what the CPU supports:
//   0.3.21 does not know CPUs newer than its release (Sapphire/Emerald Rapids) and falls back to
//   its SSE3 "Prescott" kernels, ~6× slower (SkylakeX for AVX-512, Haswell for AVX2).
// - OMP_WAIT_POLICY=passive, when unset: idle OpenMP threads sleep instead of spinning.
// - glibc.malloc.hugetlb=1 in GLIBC_TUNABLES, when the kernel gives transparent huge pages only on
//   request (madvise mode): large matrices on 2 MiB pages, as numpy allocates its large arrays.
void reexec_with_tuned_runtime(char** argv);

}  // namespace attnlab::blas
