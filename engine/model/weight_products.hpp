// The decoder's products with a weight as its file stores it (docs/MODELS.md, "Quantized products";
// docs/PERFORMANCE.md, "GGUF files"): a Linear's weight [out, in] in any tensor type, read where it
// is mapped. float32 rows are used in place; the other types are converted a few rows at a time into
// a buffer each thread keeps, so a quantized model stays about its file's size in memory. A few query
// rows (a generated token) take each converted row's dot products while it is in the core's cache;
// more rows take OpenBLAS's product over blocks of converted rows.
#pragma once

#include "engine/model/weight_files.hpp"

#include <cstdint>

namespace attnlab::model::blocks {

// Y (n × out, row stride ldy) = X (n × in, contiguous) · Wᵀ (+ b), W [out, in] of any tensor type;
// with `accumulate`, Y += X · Wᵀ (+ b). The output rows of W are split between the OpenMP threads.
void linear_rows(const float* X, std::int64_t n, std::int64_t in, TensorRef W, const float* b, std::int64_t out, float* Y, std::int64_t ldy,
                 bool accumulate);

// Up to this many query rows take the dot products of each converted row; more take OpenBLAS's.
inline constexpr std::int64_t kDotRows = 4;

}  // namespace attnlab::model::blocks
