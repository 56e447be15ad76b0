// Scaled dot-product attention, every stage kept: scores, logits, weights, output, saturation,
// per-row diagnostics and global statistics (docs/ARCHITECTURE.md, "The numbers").
#pragma once

#include "engine/attention/mask.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/attention/rope.hpp"

#include <atomic>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

enum class Normalizer { Softmax, Sparsemax, Sigmoid, Hardmax };

std::string_view normalizer_name(Normalizer n);
Normalizer parse_normalizer(std::string_view name, std::string_view where);
// Parses a number given as text that must be finite and greater than 0 (--temperature, --rope).
// Throws InputError naming `where`.
double parse_positive_number(std::string_view text, std::string_view where);

struct Options {
  bool scale = true;         // divide by √d_k
  double temperature = 1.0;  // T > 0
  Mask mask;
  Normalizer normalizer = Normalizer::Softmax;
  // Rotary positions: Q and K rotated by their positions before the scores (off when empty).
  std::optional<RopeSettings> rope;
};

// The inputs of one attention computation. Q: n × d_k, K: m × d_k, V: m × d_v.
struct Problem {
  Matrix Q, K, V;
  Options options;
};

struct RowDiagnostics {
  float max_weight = 0;      // largest weight in the row
  float entropy = 0;         // nats, over the row's weights normalized to sum 1
  float effective_keys = 0;  // exp(entropy)
  float jacobian_norm = 0;   // Frobenius norm of the normalizer's Jacobian at this row
  bool saturated = false;    // max_weight ≥ 0.99
  bool fully_masked = false; // every key blocked: weights and output are zeros
  bool padding = false;      // a padding query row (padding mask, i ≥ L)
  // Some of the row's scores were computed in double because their float32 sum could overflow
  // (ScoreOverflowGuard, attention/overflow_guard.hpp), so they do not depend on the order of summation.
  bool scores_recomputed = false;
};

struct MomentStats {
  double mean = 0;
  double std = 0;  // population standard deviation
  double min = 0;
  double max = 0;
  long long count = 0;  // cells counted (logits: unblocked cells only)
  // Cells min and max are taken over: `count`, except for a streamed result's scores under a mask,
  // whose min and max cover the unblocked cells only (the streaming paths never multiply the
  // blocked ones; attention/stats.hpp, score_range_note).
  long long range_count = 0;
};

struct Stats {
  MomentStats scores;
  MomentStats logits;
};

// The weights downsampled to at most rows × cols pixels. Pixel (y, x) covers query rows
// [⌈y·n/rows⌉, ⌈(y+1)·n/rows⌉) and key columns [⌈x·m/cols⌉, ⌈(x+1)·m/cols⌉) (see pixel_first);
// `mean` is the mean weight over those cells (blocked cells count as 0) and `max` the largest.
struct Heatmap {
  Matrix mean;  // rows × cols
  Matrix max;   // rows × cols
  bool empty() const { return mean.size() == 0; }
};

// First cell of pixel p when `cells` cells are shared among `pixels` pixels: ⌈p·cells/pixels⌉.
inline Eigen::Index pixel_first(Eigen::Index p, Eigen::Index cells, Eigen::Index pixels) {
  return (p * cells + pixels - 1) / pixels;
}
// The pixel that cell c falls in: the last p with pixel_first(p) ≤ c, which is ⌊c·pixels/cells⌋.
inline Eigen::Index pixel_of(Eigen::Index c, Eigen::Index cells, Eigen::Index pixels) {
  return c * pixels / cells;
}

// Pixel means from pixel sums: divides each of the rows × cols pixels of `sums` by the number of
// the n × m cells it covers (pixel_first), as every streaming path's heatmap does.
void divide_by_pixel_cells(Matrix& sums, Eigen::Index n, Eigen::Index m);

// The engine's backends. Identity is this enum, never a string compared by callers.
enum class BackendKind { Cpu, Gpu };
// "cpu" or "gpu".
std::string_view backend_kind_name(BackendKind kind);

// Which backend computed each part of a result: a GPU run may hand a part to the CPU (sparsemax's
// sort, a temperature outside float's range, scores near float's limit, rows its streaming
// kernels cannot finish), and says so.
struct ComputedBy {
  BackendKind scores = BackendKind::Cpu;
  BackendKind weights = BackendKind::Cpu;  // logits, weights, saturation and the row diagnostics
  BackendKind output = BackendKind::Cpu;
  std::string why;  // a sentence when a part ran elsewhere than the backend asked for, else empty
  bool all_on(BackendKind k) const { return scores == k && weights == k && output == k; }
};

// Everything one computation produces. Dense stages are n × m; in streaming mode they are
// left empty (0 × 0), `dense` is false and `heatmap` holds the downsampled weights.
struct Result {
  Eigen::Index n = 0, m = 0, d_k = 0, d_v = 0;
  double scale_divisor = 1;          // s: √d_k when scaling is on, else 1
  double effective_temperature = 1;  // s · T
  bool dense = true;
  Matrix scores;      // n × m, S = Q Kᵀ
  Matrix logits;      // n × m, S / (s·T), blocked cells −∞
  Matrix weights;     // n × m, normalizer(logits) row-wise
  Matrix output;      // n × d_v, weights · V
  Matrix saturation;  // n × m, a(1 − a)
  // With rotary positions on: Q (n × d_k) and K (m × d_k) as rotated, what the scores are made of.
  Matrix rotated_q, rotated_k;
  std::vector<RowDiagnostics> rows;  // n
  Stats stats;
  Heatmap heatmap;  // streaming only: weights downsampled (StreamingOptions::heatmap_rows × _cols)
  ComputedBy computed_by;
};

// A Result with its sizes, s and s·T filled in and nothing computed yet: where every backend starts.
Result result_header(const Problem& p);

// s · T for the given d_k and options.
double effective_temperature(Eigen::Index d_k, const Options& options);

// 1/(s·T) as a float when it is a normal float, else 0: the fast float softmax of every path
// computes weights as exp((s − max s)·c) and falls back to double logits when c is 0 here.
float fast_inverse_divisor(double divisor);

// One cell of the logits stage from its score: S / (s·T) rounded to float (±∞ where it overflows
// float), −∞ where blocked. The dense paths fill Result::logits with exactly this.
inline float logit_of(float score, bool blocked, double divisor) {
  const double l = score / divisor;
  // The float copy saturates to ±∞ (casting an out-of-range double to float is undefined).
  if (blocked) return -std::numeric_limits<float>::infinity();
  return fits_float(l) ? static_cast<float>(l) : l > 0 ? std::numeric_limits<float>::infinity()
                                                         : -std::numeric_limits<float>::infinity();
}
// One cell of the saturation stage from its weight: a(1 − a) in float, as the dense paths fill it.
inline float saturation_of(float a) { return a * (1.0f - a); }

// The largest |entry| of Q and of K as given (before any rotary positions): the bound the overflow
// guard decides from (attention/overflow_guard.hpp).
struct Magnitudes {
  float q = 0, k = 0;
};
Magnitudes magnitudes(const Problem& p);
// The largest |x[i]| for i < len, or +∞ when some entry is not finite: one vectorized pass, which
// the file readers use to check a matrix read in place.
float max_magnitude(const float* x, Eigen::Index len);
// Checks shapes, finiteness and options; throws InputError with a sentence naming the matrix.
// Returns p's magnitudes, read in the same pass as the finiteness (a path that computes from p
// itself, not from its rotated Q and K, hands them to its ScoreOverflowGuard instead of reading
// Q and K again).
Magnitudes validate_problem(const Problem& p);
// The same for a problem's parts where they are not a Problem (a scenario's), without copying them.
Magnitudes validate_problem(const Matrix& Q, const Matrix& K, const Matrix& V, const Options& options);

// The positions rotary positions give Q's rows and K's rows: the settings' own, or 0 … count − 1.
std::vector<std::int64_t> rope_positions(const std::vector<std::int64_t>& given, Eigen::Index count);
// The problem the scores are computed from when rotary positions are on: Q and K rotated by their
// positions (attention/rope.hpp), the rope cleared; every later stage is as before.
Problem rope_applied(const Problem& p);
// `compute` on `p`, through rope_applied when its rope is on, with the rotated Q and K kept in the
// result (Result::rotated_q, rotated_k): the one place every backend's path and the CPU's own entry
// (compute_cpu) apply the stage that comes before the scores.
Result computed_with_rope(const Problem& p, const std::function<Result(const Problem&)>& compute);

// Applies the normalizer to one row of logits in double precision (blocked cells are −∞),
// writing weights; overflowed (+∞) logits win outright.
// Returns false when every cell is blocked (weights are then all zero).
bool normalize_row(Normalizer normalizer, const double* logits, float* weights, Eigen::Index m);

// Diagnostics of one row of weights for the given normalizer.
RowDiagnostics row_diagnostics(Normalizer normalizer, const float* weights, Eigen::Index m);

// Bytes that the dense n × m stages of one computation need (scores, logits, weights, saturation).
double dense_bytes(Eigen::Index n, Eigen::Index m);
// The memory the engine allows itself for dense stages: half of physical memory
// (ATTNLAB_DENSE_LIMIT_MIB overrides it, for tests of the streaming fallbacks).
double dense_memory_limit();
// True when the dense stages of an n × m problem fit under dense_memory_limit().
bool dense_fits(Eigen::Index n, Eigen::Index m);
// Throws InputError (stating the limit and the need, and pointing at --summary or export) when the
// dense stages would not fit.
void check_dense_fits(Eigen::Index n, Eigen::Index m);

}  // namespace attnlab
