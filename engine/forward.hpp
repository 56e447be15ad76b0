// The output-only softmax attention used by `attnlab bench`: the fast paths, with stage timings.
#pragma once

#include "engine/attention.hpp"

namespace attnlab {

struct ForwardTimings {
  double scores_ms = 0;   // S = Q Kᵀ (dense path)
  double softmax_ms = 0;  // row-wise softmax of S / (s·T) with the mask (dense path)
  double output_ms = 0;   // O = A V (dense path)
  double total_ms = 0;
  bool fused = false;  // streaming: the three stages run interleaved tile by tile, only total_ms is set
};

// softmax(Q Kᵀ / (s·T) + mask) V for the problem (Q: n × d_k, K: m × d_k, V: m × d_v), returning
// the n × d_v output. Dense: the n × m weights in one buffer, each stage over all rows in turn;
// streaming: query/key tiles with an online softmax. Blocked tiles (causal, window, prefix,
// padding) are neither multiplied nor exponentiated. No diagnostics or statistics. Normalizers
// other than softmax go through compute_streaming_cpu. Throws InputError on invalid input.
Matrix attention_output_cpu(const Problem& p, bool streaming, ForwardTimings* timings = nullptr);

}  // namespace attnlab
