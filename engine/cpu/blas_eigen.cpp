// The engine's products (engine/cpu/blas.hpp) by Eigen, for builds without OpenBLAS
// (ATTNLAB_OPENBLAS=OFF: the browser). Eigen's products are blocked and vectorized (wasm SIMD with
// -msimd128), so the same stride-aware calls keep their meaning and most of their speed.
#include "engine/cpu/blas.hpp"

#include <Eigen/Core>

namespace attnlab::blas {

namespace {

using Strided = Eigen::OuterStride<>;
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstBlock = Eigen::Map<const RowMajor, Eigen::Unaligned, Strided>;
using Block = Eigen::Map<RowMajor, Eigen::Unaligned, Strided>;

ConstBlock view(const float* p, std::int64_t rows, std::int64_t cols, std::int64_t stride) {
  return ConstBlock(p, rows, cols, Strided(stride));
}

Block view(float* p, std::int64_t rows, std::int64_t cols, std::int64_t stride) {
  return Block(p, rows, cols, Strided(stride));
}

}  // namespace

void gemm_nt(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
             const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  if (rows <= 0 || cols <= 0) return;
  Block c = view(C, rows, cols, ldc);
  // beta = 0 must not read C: BLAS allows it to hold anything, NaN included.
  if (beta == 0.0f) {
    c.noalias() = view(A, rows, k, lda) * view(B, cols, k, ldb).transpose();
  } else {
    c *= beta;
    c.noalias() += view(A, rows, k, lda) * view(B, cols, k, ldb).transpose();
  }
}

void gemm_nn(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* A, std::int64_t lda,
             const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  if (rows <= 0 || cols <= 0) return;
  Block c = view(C, rows, cols, ldc);
  if (beta == 0.0f) {
    c.noalias() = view(A, rows, k, lda) * view(B, k, cols, ldb);
  } else {
    c *= beta;
    c.noalias() += view(A, rows, k, lda) * view(B, k, cols, ldb);
  }
}

void trmm_lower(std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda, float* B, std::int64_t ldb) {
  if (rows <= 0 || cols <= 0) return;
  Block b = view(B, rows, cols, ldb);
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
