// The front doors of the compute interface (attention/backend.hpp): what every backend and path
// does before its own work, in one place.
#include "engine/attention/backend.hpp"

namespace attnlab {

namespace {

// The problem every path of every backend computes from, prepared here and nowhere else: checked
// (validate_problem). A stage that comes before the scores (the rotary positions' rotation of Q
// and K) is applied here too, so that each backend and path sees it exactly once.
const Problem& scores_inputs(const Problem& p) {
  validate_problem(p);
  return p;
}

}  // namespace

Result Backend::compute(const Problem& p, const DenseStages& keep) { return run_dense(scores_inputs(p), keep); }

Result Backend::compute_streaming(const Problem& p, const StreamingOptions& options) {
  return run_streaming(scores_inputs(p), options);
}

}  // namespace attnlab
