// The output-only softmax attention used by `attnlab bench`: the fast paths, with stage timings
// (StageTimes, which the backends' bench methods return too).
#pragma once

#include "engine/attention/attention.hpp"

namespace attnlab {

// Wall-clock milliseconds of each stage of one computation (for `attnlab bench`): scores
// (S = Q Kᵀ), softmax (of S / (s·T) with the mask), output (A V).
struct StageTimes {
  double scores_ms = 0;
  double softmax_ms = 0;
  double output_ms = 0;
  // Streaming runs the stages interleaved tile by tile: only the total is measured.
  bool fused = false;
  double total_ms = 0;  // always set by attention_output_cpu; backends may leave it 0 unless fused
};

// softmax(Q Kᵀ / (s·T) + mask) V for the problem (Q: n × d_k, K: m × d_k, V: m × d_v), returning
// the n × d_v output. Dense: the n × m weights in one buffer, each stage over all rows in turn;
// streaming: query/key tiles with an online softmax. Blocked tiles (causal, window, prefix,
// padding) are neither multiplied nor exponentiated. No diagnostics or statistics. Normalizers
// other than softmax go through compute_streaming_cpu. Throws InputError on invalid input.
Matrix attention_output_cpu(const Problem& p, bool streaming, StageTimes* timings = nullptr);

}  // namespace attnlab
