// See causal_weights.hpp.
#include "engine/model/causal_weights.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace attnlab::model {

CausalWeights::CausalWeights(std::int64_t rows, std::int64_t start) : rows_(rows), start_(start) {
  if (rows < 0 || start < 0) throw std::logic_error("CausalWeights: a negative size");
  values_.resize(static_cast<std::size_t>(offset(rows)));
}

void CausalWeights::append(const CausalWeights& more) {
  if (more.empty()) return;
  if (empty()) {
    *this = more;
    return;
  }
  if (more.start_ != cols()) throw std::logic_error("CausalWeights::append: the rows do not continue these");
  values_.insert(values_.end(), more.values_.begin(), more.values_.end());
  rows_ += more.rows_;
}

void CausalWeights::truncate(std::int64_t rows) {
  if (rows >= rows_) return;
  rows_ = std::max<std::int64_t>(rows, 0);
  values_.resize(static_cast<std::size_t>(offset(rows_)));
}

Matrix CausalWeights::dense() const {
  Matrix m = Matrix::Zero(rows_, cols());
  for (std::int64_t i = 0; i < rows_; ++i) std::copy_n(row(i), row_length(i), m.row(i).data());
  return m;
}

double max_abs_difference(const CausalWeights& a, const CausalWeights& b) {
  if (a.rows_ != b.rows_ || a.start_ != b.start_) return std::numeric_limits<double>::infinity();
  double largest = 0;
  for (std::size_t k = 0; k < a.values_.size(); ++k) {
    const double d = std::fabs(static_cast<double>(a.values_[k]) - b.values_[k]);
    if (std::isnan(d)) return d;
    largest = std::max(largest, d);
  }
  return largest;
}

}  // namespace attnlab::model
