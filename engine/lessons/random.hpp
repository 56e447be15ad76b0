// Seeded random numbers that are the same on every platform and compiler (the standard
// library's distributions are not), so a lesson's "seeded random" weights are reproducible.
#pragma once

#include "engine/attention/matrix.hpp"

#include <cmath>
#include <cstdint>

namespace attnlab {

// SplitMix64 for the bits, Box–Muller for N(0, 1).
class NormalRandom {
public:
  explicit NormalRandom(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next_bits() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1]: never 0, so log() below is finite.
  double uniform() { return (static_cast<double>(next_bits() >> 11) + 1.0) * 0x1.0p-53; }
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double t = 2.0 * 3.14159265358979323846 * uniform();
    spare_ = r * std::sin(t);
    has_spare_ = true;
    return r * std::cos(t);
  }
  // rows × cols entries drawn from N(0, sigma²).
  Matrix normal_matrix(Eigen::Index rows, Eigen::Index cols, double sigma) {
    Matrix M(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i) {
      for (Eigen::Index j = 0; j < cols; ++j) M(i, j) = static_cast<float>(sigma * normal());
    }
    return M;
  }

private:
  std::uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace attnlab
