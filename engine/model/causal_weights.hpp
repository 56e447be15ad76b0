// One head's attention weights over a causal sequence, kept without the cells the mask blocks: n
// query rows at positions start … start + n − 1 over m = start + n keys, row i holding keys
// 0 … start + i, one row after the other. Every cell past a row's end is the causal mask's 0 and
// is not stored, so a forward keeps about half the bytes of the n × m matrix (at 1024 tokens the
// 144 heads of GPT-2 small keep 290 MiB instead of 580, and a forward that must touch fresh pages
// for them runs that much less; docs/PERFORMANCE.md, "The 1024-token forward").
#pragma once

#include "engine/attention/matrix.hpp"

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace attnlab::model {

class CausalWeights {
public:
  CausalWeights() = default;
  // `rows` rows after `start` cached positions, their values not yet written (a forward writes
  // each row once, from its own thread).
  CausalWeights(std::int64_t rows, std::int64_t start);

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return start_ + rows_; }
  std::int64_t start() const { return start_; }
  bool empty() const { return rows_ == 0; }
  // The keys stored for row i: 0 … start + i.
  std::int64_t row_length(std::int64_t i) const { return start_ + i + 1; }
  const float* row(std::int64_t i) const { return values_.data() + offset(i); }
  float* row(std::int64_t i) { return values_.data() + offset(i); }
  // Cell (i, j) of the n × m matrix: 0 past the row's end.
  float operator()(std::int64_t i, std::int64_t j) const { return j < row_length(i) ? row(i)[j] : 0.0f; }

  // Appends the rows of `more`, which must continue these (more.start() == cols()).
  void append(const CausalWeights& more);
  // Keeps rows 0 … rows − 1.
  void truncate(std::int64_t rows);
  // The n × m matrix, 0 past each row's end.
  Matrix dense() const;
  // The largest |a − b| over the cells of two of the same shape (∞ when their shapes differ).
  friend double max_abs_difference(const CausalWeights& a, const CausalWeights& b);

private:
  // Floats before row i: Σ_{r<i} (start + r + 1).
  std::int64_t offset(std::int64_t i) const { return i * start_ + i * (i + 1) / 2; }

  // std::allocator whose resize leaves the new floats unwritten (default-initialized), so that their
  // pages are first touched by the threads that write them, not zeroed by the one that allocates.
  template <class T>
  struct Unzeroed : std::allocator<T> {
    template <class U>
    struct rebind {
      using other = Unzeroed<U>;
    };
    Unzeroed() = default;
    template <class U>
    Unzeroed(const Unzeroed<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept {
      ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  };
  std::int64_t rows_ = 0, start_ = 0;
  std::vector<float, Unzeroed<float>> values_;
};

}  // namespace attnlab::model
