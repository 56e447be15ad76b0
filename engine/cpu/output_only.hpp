// The output-only softmax attention used by `attnlab bench`: the fast paths, with stage timings
// (StageTimes, attention/bench.hpp).
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/bench.hpp"

namespace attnlab {

// softmax(Q Kᵀ / (s·T) + mask) V for the problem (Q: n × d_k, K: m × d_k, V: m × d_v), returning
// the n × d_v output. Dense: the n × m weights in one buffer, each stage over all rows in turn;
// streaming: query/key tiles with an online softmax. Blocked tiles (causal, window, prefix,
// padding) are neither multiplied nor exponentiated. No diagnostics or statistics. Normalizers
// other than softmax go through compute_streaming_cpu. Throws InputError on invalid input.
Matrix attention_output_cpu(const Problem& p, bool streaming, StageTimes* timings = nullptr);

}  // namespace attnlab
