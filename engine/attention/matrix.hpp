// Matrix types shared by the engine, the files and the GL backend, and the input-error type.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace attnlab {

// ∞ in the two precisions the engine computes in: blocked logits, the running max before any key.
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr float kInfF = std::numeric_limits<float>::infinity();

// Row-major so that a matrix's data() can be handed to GL buffers and files as is.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// 1 = blocked, 0 = visible.
using BlockGrid = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

static_assert(Matrix::IsRowMajor, "attnlab::Matrix must be row-major: GL buffers and files rely on it");

// True when a double rounds to a finite float32. Doubles up to FLT_MAX + half an ulp round down
// to FLT_MAX (float32's max prints as 3.4028235e+38, just above it), and converting anything
// beyond that is undefined behaviour, so test before casting.
inline bool fits_float(double v) { return v > -0x1.ffffffp+127 && v < 0x1.ffffffp+127; }

// Bad input from a user: the message is one sentence naming the file, field or flag and what
// was expected. The CLI prints it and exits 2; the GUI shows it in place.
class InputError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

// A requested backend cannot run here (no GL 4.3 context, ...). The CLI exits 3.
class BackendUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace attnlab
