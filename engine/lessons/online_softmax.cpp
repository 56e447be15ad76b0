// The online-softmax lesson's numbers: the streaming engine's per-row state (OnlineRow) and SIMD
// kernels run over a small scenario one tile of keys at a time, every step kept.
#include "engine/lessons/online_softmax.hpp"

#include "engine/cpu/cpu_internal.hpp"
#include "engine/cpu/online_row.hpp"
#include "engine/cpu/softmax_kernels.hpp"
#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attnlab {

namespace {

using Index = Eigen::Index;
using json = nlohmann::ordered_json;

json finite_or_null(double v) { return std::isfinite(v) ? json(short_double(static_cast<float>(v))) : json(nullptr); }

json float_list(const std::vector<float>& v) {
  json out = json::array();
  for (const float x : v) out.push_back(finite_or_null(x));
  return out;
}

}  // namespace

OnlineSoftmaxParams online_softmax_params(const LessonFields& f) {
  OnlineSoftmaxParams p;
  p.tile = f.positive_integer("tile", 1 << 20, p.tile);
  return p;
}

OnlineSoftmaxLesson online_softmax_lesson(const Problem& p, Index tile, const Matrix& dense_output) {
  validate_problem(p);
  if (p.options.normalizer != Normalizer::Softmax) {
    throw InputError(std::string("online-softmax: the online softmax is softmax's; this scenario uses ") +
                     std::string(normalizer_name(p.options.normalizer)) + ", which the streaming engine computes a block of whole rows at a time");
  }
  const Index n = p.Q.rows(), m = p.K.rows(), dv = p.V.cols();
  if (tile < 1) throw InputError("online-softmax: the tile must hold at least one key");
  if (dense_output.rows() != n || dense_output.cols() != dv) {
    throw InputError("online-softmax: the dense output is " + std::to_string(dense_output.rows()) + " × " +
                     std::to_string(dense_output.cols()) + ", not " + std::to_string(n) + " × " + std::to_string(dv));
  }
  // The streaming path's own constant and test (detail::run_rows tiles only a normal c > 0).
  const double divisor = effective_temperature(p.Q.cols(), p.options);
  const float c = fast_inverse_divisor(divisor);
  if (!std::isnormal(c) || c <= 0) {
    throw InputError("online-softmax: 1/(s·T) = 1/" + fixed_decimals(divisor, 6) +
                     " is too small for float32, so the streaming engine computes these rows exactly; lower the temperature");
  }
  const kernels::Table& k = kernels::table();
  const Mask& mask = p.options.mask;

  OnlineSoftmaxLesson out;
  out.tile = tile;
  out.dense_output = dense_output;
  out.scores_held = static_cast<long long>(n) * static_cast<long long>(std::min(tile, m));
  out.dense_scores = static_cast<long long>(n) * static_cast<long long>(m);
  std::vector<OnlineRow> st(static_cast<size_t>(n));
  Matrix O = Matrix::Zero(n, dv);  // the partial outputs, in each row's current frame
  std::vector<float> prow(static_cast<size_t>(std::min(tile, m)));
  for (Index c0 = 0; c0 < m; c0 += tile) {
    const Index w = std::min(tile, m - c0);
    OnlineSoftmaxStep step;
    step.first = c0;
    step.last = c0 + w - 1;
    // The tile's scores, the only ones that exist during this step (n × w).
    Matrix S = p.Q * p.K.middleRows(c0, w).transpose();
    step.logits.resize(n, w);
    for (Index i = 0; i < n; ++i) {
      OnlineRow& row = st[static_cast<size_t>(i)];
      OnlineSoftmaxRow shown;
      float* s = S.row(i).data();
      for (Index j = 0; j < w; ++j) {
        if (mask.is_blocked(i, c0 + j)) {
          s[j] = -kInfF;
          continue;
        }
        ++shown.visible;
        if (!std::isfinite(s[j])) {
          throw InputError("online-softmax: row " + std::to_string(i + 1) + "'s score on key " + std::to_string(c0 + j + 1) +
                           " overflows float32, so the streaming engine computes that row exactly; make Q or K smaller");
        }
      }
      for (Index j = 0; j < w; ++j) step.logits(i, j) = s[j] == -kInfF ? -kInfF : static_cast<float>(s[j] * c);
      // As in the streaming path's tile loop (cpu/streaming.cpp, query_tile): the tile's max, the
      // frame moved when it is larger, the tile's exps and sums in that frame, O ← α O + P V.
      const float M = std::max(row.max, k.row_max(s, w));
      if (M != -kInfF) {
        const bool seen_before = row.z > 0;
        if (M != row.max) {
          const double alpha = row.raise_max(M, c);
          if (alpha != 1.0) k.scale(O.row(i).data(), dv, static_cast<float>(alpha));
          if (seen_before) shown.rescale = alpha;
        } else if (seen_before) {
          shown.rescale = 1.0;
        }
        row.add(k.exp_row(s, prow.data(), w, M, c, true));
        for (Index j = 0; j < w; ++j) {
          if (prow[static_cast<size_t>(j)] != 0.0f) O.row(i) += prow[static_cast<size_t>(j)] * p.V.row(c0 + j);
        }
      }
      out.rescales += shown.max_raised();
      shown.running_max = row.max == -kInfF ? -INFINITY : static_cast<double>(row.max) * c;
      shown.running_sum = row.z;
      shown.output.assign(O.row(i).data(), O.row(i).data() + dv);
      step.rows.push_back(std::move(shown));
    }
    out.steps.push_back(std::move(step));
  }
  // o ÷ ℓ, as the streaming path finishes a row.
  out.output = Matrix::Zero(n, dv);
  for (Index i = 0; i < n; ++i) {
    const double z = st[static_cast<size_t>(i)].z;
    const float inv = z > 0 ? static_cast<float>(1.0 / z) : 0.0f;
    out.output.row(i) = O.row(i) * inv;
  }
  out.max_difference = n > 0 && dv > 0 ? static_cast<double>((out.output - dense_output).cwiseAbs().maxCoeff()) : 0.0;
  return out;
}

json online_softmax_json(const OnlineSoftmaxLesson& l) {
  json steps = json::array();
  for (const OnlineSoftmaxStep& s : l.steps) {
    json rows = json::array();
    for (const OnlineSoftmaxRow& r : s.rows) {
      rows.push_back({{"visible", r.visible},
                      {"running_max", finite_or_null(r.running_max)},
                      {"running_sum", r.running_sum},
                      {"output", float_list(r.output)},
                      {"rescale", r.rescale ? json(*r.rescale) : json(nullptr)}});
    }
    steps.push_back({{"keys", {s.first, s.last}}, {"logits", matrix_to_json(s.logits)}, {"rows", rows}});
  }
  // The tile and its steps; the two outputs and how far apart they are; what each way held.
  return {{"tile", l.tile}, {"steps", steps},
          {"online_output", matrix_to_json(l.output)}, {"dense_output", matrix_to_json(l.dense_output)},
          {"max_difference", l.max_difference},
          {"rescales", l.rescales}, {"scores_held", l.scores_held}, {"dense_scores", l.dense_scores}};
}

OnlineSoftmaxNumbers compute_online_softmax(const Scenario& s, const Result& r, Backend&, const LessonDetail&) {
  OnlineSoftmaxNumbers n;
  n.lesson = online_softmax_lesson(s.problem(), online_softmax_params(LessonFields(s.lesson)).tile, r.output);
  return n;
}

json online_softmax_to_json(const OnlineSoftmaxNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  return online_softmax_json(n.lesson);
}

// ---- The exercise ----------------------------------------------------------------------------

namespace {

// The online softmax of one row of logits over tiles of `tile` keys, up to and including tile
// `upto` (1-based): the running max, the last rescale factor and the running sum.
struct OnlineState {
  double max = 0, rescale = 1, sum = 0;
  std::vector<std::string> working;
};

OnlineState online_state(const std::vector<double>& logits, size_t tile, size_t upto) {
  OnlineState st;
  st.max = -std::numeric_limits<double>::infinity();
  for (size_t t = 0; t < upto; ++t) {
    const std::vector<double> part(logits.begin() + static_cast<std::ptrdiff_t>(t * tile),
                                   logits.begin() + static_cast<std::ptrdiff_t>((t + 1) * tile));
    const double before = st.max, now = std::max(before, *std::max_element(part.begin(), part.end()));
    st.rescale = t == 0 ? 1.0 : std::exp(before - now);
    st.sum *= st.rescale;
    for (const double l : part) st.sum += std::exp(l - now);
    st.max = now;
    std::string line = "tile " + std::to_string(t + 1) + ", logits " + hand_tuple(part) + ": m = " + hand_number(now);
    if (t > 0) line += ", rescale e^(" + hand_number(before) + " − " + hand_number(now) + ") = " + hand_number(st.rescale);
    st.working.push_back(line + ", ℓ = " + hand_number(st.sum));
  }
  return st;
}

}  // namespace

Exercise online_softmax_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  constexpr size_t kTile = 2, kUpto = 2;
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD given_q = rnd.integers(1, 4, -1, 2), given_k = rnd.integers(6, 4, -1, 2), given_v = rnd.integers(6, 2, 0, 2);
    d.set_given(given_q, given_k, given_v, exercise_options(true, 1), first_tokens(s.query_tokens, 1), first_tokens(s.key_tokens, 6));
    Exercise& e = d.exercise();
    e.extra["tile"] = kTile;
    e.extra["after_tile"] = kUpto;
    e.facts.push_back("the keys come in tiles of 2 (keys 0–1, 2–3, 4–5); the online softmax keeps a running max m and a "
                      "running sum ℓ of e^(logit − m), rescaled by e^(m_old − m_new) when m grows");
    // Each slip works the same steps on its own logits.
    const auto state = [&](std::optional<Mistake> m) { return online_state(row_of(worked_stages(d.givens(), m).logits, 0), kTile, kUpto); };
    const OnlineState right = state(std::nullopt), unscaled = state(Mistake::NoScaling), by_dk = state(Mistake::DividedByDk);
    if (right.rescale > 0.7) return false;  // the max must grow at tile 2
    d.number_part("After tile 2 (keys 0–3): the running max m of the logits (score ÷ √d_k), " + to_decimals(1) + ".", right.max, 1,
                  {mistake_number(Mistake::NoScaling, unscaled.max), mistake_number(Mistake::DividedByDk, by_dk.max)}, right.working);
    d.number_part("The rescale factor e^(m_old − m_new) applied to ℓ at tile 2, " + to_decimals(2) + ".", right.rescale, 2,
                  {mistake_number(Mistake::NoScaling, unscaled.rescale), mistake_number(Mistake::DividedByDk, by_dk.rescale)},
                  right.working);
    d.number_part("The running sum ℓ after tile 2, " + to_decimals(2) + ".", right.sum, 2,
                  {mistake_number(Mistake::NoScaling, unscaled.sum), mistake_number(Mistake::DividedByDk, by_dk.sum)}, right.working);
    d.row_part(PartKind::WeightsRow, 0, 2, "Once all three tiles are in, the weights of the row (the same as the ordinary softmax), " +
               to_decimals(2) + ".");
    return true;
  });
}

}  // namespace attnlab
