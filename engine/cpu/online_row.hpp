// The online softmax of one query row (FlashAttention's running max and sum): the state the
// streaming path (cpu/streaming.cpp) keeps per row while keys arrive tile by tile, and the two
// steps that change it. Header-inline because it sits in the streaming path's innermost loop; the
// online-softmax lesson (lessons/online_softmax.cpp) runs the same steps to show them.
#pragma once

#include "engine/attention/online_softmax.hpp"
#include "engine/cpu/softmax_kernels.hpp"

#include <cmath>
#include <limits>

namespace attnlab {

// A row's running maximum score and its sums in that maximum's frame (OnlineSums, with the
// derivation and the diagnostics they give: attention/online_softmax.hpp).
struct OnlineRow : OnlineSums {
  float max = -std::numeric_limits<float>::infinity();
  bool exact = false;  // an overflowed (+inf) score: the row is redone by the exact path
  bool recomputed = false;  // some score was recomputed in double (ScoreOverflowGuard)

  // Moves every sum into the frame of the new running maximum M (> max; c = 1/(s·T)) and returns
  // α = exp((max − M)·c), by which the caller multiplies what it keeps in the old frame (the
  // output accumulator O). Returns 1 while nothing was summed (the row's first visible keys):
  // there is nothing to rescale then, and O is still zero.
  double raise_max(float M, double c) {
    double alpha = 1;
    if (z > 0) {
      const double shift = (static_cast<double>(max) - M) * c;
      alpha = std::exp(shift);
      t = alpha * (t + shift * z);
      z *= alpha;
      rest = alpha * (rest + ties);
      u2 = alpha * alpha * (u2 + ties);
      u3 = alpha * alpha * alpha * (u3 + ties);
      ties = 0;
    }
    max = M;
    return alpha;
  }

  // Adds one tile's sums, computed in the frame of the current maximum (kernels::Table::exp_row
  // with mx = max).
  void add(const kernels::ExpSums& s) {
    z += s.z;
    rest += s.rest;
    ties += static_cast<double>(s.ties);
    t += s.t;
    u2 += s.u2;
    u3 += s.u3;
  }
};

}  // namespace attnlab
