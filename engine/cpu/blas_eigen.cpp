// The engine's products (engine/cpu/blas.hpp) by Eigen, for builds without OpenBLAS
// (ATTNLAB_OPENBLAS=OFF: the browser). Eigen's products are blocked and vectorized (wasm SIMD with
// -msimd128), so the same stride-aware calls keep their meaning and most of their speed.
#include "engine/cpu/blas.hpp"

#include <Eigen/Core>

namespace attnlab::blas {

namespace {

using Strided = Eigen::OuterStride<>;
template <class T>
using RowMajorOf = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMajor = RowMajorOf<float>;

template <class T>
Eigen::Map<const RowMajorOf<T>, Eigen::Unaligned, Strided> view(const T* p, std::int64_t rows, std::int64_t cols, std::int64_t stride) {
  return {p, static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols), Strided(static_cast<Eigen::Index>(stride))};
}

template <class T>
Eigen::Map<RowMajorOf<T>, Eigen::Unaligned, Strided> view(T* p, std::int64_t rows, std::int64_t cols, std::int64_t stride) {
  return {p, static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols), Strided(static_cast<Eigen::Index>(stride))};
}

// c = a · b + beta·c, where beta = 0 must not read c: BLAS allows it to hold anything, NaN included.
template <class C, class A, class B, class T>
void multiply_into(C&& c, const A& a, const B& b, T beta) {
  if (beta == T(0)) {
    c.noalias() = a * b;
  } else {
    c *= beta;
    c.noalias() += a * b;
  }
}

template <class T>
void gemm_any(bool trans_a, bool trans_b, std::int64_t rows, std::int64_t cols, std::int64_t k, const T* A, std::int64_t lda,
              const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc) {
  if (rows <= 0 || cols <= 0) return;
  auto c = view(C, rows, cols, ldc);
  // op(A) is rows × k: stored k × rows when transposed; op(B) is k × cols: stored cols × k.
  const auto a = view(A, trans_a ? k : rows, trans_a ? rows : k, lda);
  const auto b = view(B, trans_b ? cols : k, trans_b ? k : cols, ldb);
  if (trans_a && trans_b) multiply_into(c, a.transpose(), b.transpose(), beta);
  else if (trans_a) multiply_into(c, a.transpose(), b, beta);
  else if (trans_b) multiply_into(c, a, b.transpose(), beta);
  else multiply_into(c, a, b, beta);
}

}  // namespace

void gemm_nt(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
             const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  gemm_any(false, true, rows, cols, k, A, lda, B, ldb, beta, C, ldc);
}

void gemm_nn(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
             const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  gemm_any(false, false, rows, cols, k, A, lda, B, ldb, beta, C, ldc);
}

void gemm(bool trans_a, bool trans_b, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
          const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  gemm_any(trans_a, trans_b, rows, cols, k, A, lda, B, ldb, beta, C, ldc);
}

void trmm_lower(std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda, float* B, std::int64_t ldb) {
  if (rows <= 0 || cols <= 0) return;
  auto b = view(B, rows, cols, ldb);
  // In place, as BLAS's trmm: Eigen's triangular product reads only the lower triangle.
  const RowMajor product = view(A, rows, rows, lda).triangularView<Eigen::Lower>() * b;
  b = product;
}

// Eigen runs in the calling thread only: there is no pool to widen.
OpenBlasThreads::OpenBlasThreads(int) {}
OpenBlasThreads::~OpenBlasThreads() = default;

int threads() { return 1; }

std::string description() { return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                                   std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) +
                                   " products"; }

// Nothing to tune: no OpenBLAS kernels to pick, no OpenMP pool, no re-execution in a browser.
void reexec_with_tuned_runtime(char**) {}

}  // namespace attnlab::blas
