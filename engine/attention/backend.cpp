// The front doors of the compute interface (attention/backend.hpp): what every backend and path
// does before its own work, in one place.
#include "engine/attention/backend.hpp"

namespace attnlab {

// The problem every path of every backend computes from is prepared here and nowhere else: checked
// (validate_problem), and with rotary positions on, Q and K rotated (computed_with_rope), so that
// each backend and path sees the stage before the scores exactly once.

Result Backend::compute(const Problem& p, const DenseStages& keep) {
  validate_problem(p);
  return computed_with_rope(p, [&](const Problem& q) { return run_dense(q, keep); });
}

Result Backend::compute_streaming(const Problem& p, const StreamingOptions& options) {
  validate_problem(p);
  return computed_with_rope(p, [&](const Problem& q) { return run_streaming(q, options); });
}

}  // namespace attnlab
