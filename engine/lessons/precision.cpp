// Emulated low-precision attention: every operation's result is rounded to the format.
#include "engine/lessons/precision.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/text/text_format.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace attnlab {

std::string_view mask_fill_name(MaskFill f) {
  switch (f) {
    case MaskFill::NegInf: return "-inf";
    case MaskFill::NegBig: return "-1e9";
    case MaskFill::AddNegBig: return "+mask*-1e9";
  }
  return "-inf";
}

namespace {

void count(StageHealth& h, double v) {
  h.inf += std::isinf(v);
  h.nan += std::isnan(v);
}

// The emulated pass, every operation rounded to the format as a framework running in it would:
// inputs, products and sums, the divisor, the mask fill, exp, the softmax's sum and quotient, A·V.
void emulate(const Problem& p, const PrecisionOptions& o, PrecisionRun& run) {
  const Eigen::Index n = p.Q.rows(), m = p.K.rows(), d_k = p.Q.cols(), d_v = p.V.cols();
  auto R = [&](double x) { return static_cast<double>(round_to(o.precision, x)); };
  auto rounded = [&](const Matrix& M) {
    MatrixD out(M.rows(), M.cols());
    for (Eigen::Index i = 0; i < M.rows(); ++i)
      for (Eigen::Index j = 0; j < M.cols(); ++j) out(i, j) = R(M(i, j));
    return out;
  };
  const MatrixD Q = rounded(p.Q), K = rounded(p.K), V = rounded(p.V);
  const double s = p.options.scale ? R(std::sqrt(static_cast<double>(d_k))) : 1.0;
  const double divisor = R(s * p.options.temperature);
  const double big = R(-o.big);
  std::vector<double> logits(static_cast<size_t>(m)), exps(static_cast<size_t>(m)), weights(static_cast<size_t>(m));
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      double acc = R(Q(i, 0) * K(j, 0));
      for (Eigen::Index l = 1; l < d_k; ++l) acc = R(acc + R(Q(i, l) * K(j, l)));
      run.scores(i, j) = static_cast<float>(acc);
      count(run.scores_health, acc);
      double logit = R(acc / divisor);
      const bool blocked = p.options.mask.is_blocked(i, j);
      switch (o.fill) {
        case MaskFill::NegInf:
          if (blocked) logit = -kInf;
          break;
        case MaskFill::NegBig:
          if (blocked) logit = big;
          break;
        case MaskFill::AddNegBig: logit = R(logit + R((blocked ? 1.0 : 0.0) * big)); break;
      }
      logits[static_cast<size_t>(j)] = logit;
      run.logits(i, j) = static_cast<float>(logit);
      if (!(blocked && logit == -kInf)) count(run.logits_health, logit);
    }
    // torch.max propagates NaN; so does this.
    double mx = -kInf;
    for (const double l : logits) mx = std::isnan(l) || std::isnan(mx) ? std::nan("") : std::max(mx, l);
    double sum = 0;
    for (Eigen::Index j = 0; j < m; ++j) {
      const double l = logits[static_cast<size_t>(j)];
      const double e = o.subtract_max ? R(std::exp(R(l - mx))) : R(std::exp(l));
      exps[static_cast<size_t>(j)] = e;
      run.exps(i, j) = static_cast<float>(e);
      count(run.exps_health, e);
      sum = j == 0 ? e : R(sum + e);
    }
    for (Eigen::Index j = 0; j < m; ++j) {
      const double w = R(exps[static_cast<size_t>(j)] / sum);
      weights[static_cast<size_t>(j)] = w;
      run.weights(i, j) = static_cast<float>(w);
      count(run.weights_health, w);
    }
    for (Eigen::Index c = 0; c < d_v; ++c) {
      double acc = R(weights[0] * V(0, c));
      for (Eigen::Index j = 1; j < m; ++j) acc = R(acc + R(weights[static_cast<size_t>(j)] * V(j, c)));
      run.output(i, c) = static_cast<float>(acc);
      count(run.output_health, acc);
    }
  }
}

// The run's largest errors against `ref` (float32 softmax, computed stably), over its finite cells.
void compare_with(const Result& ref, PrecisionRun& run) {
  for (Eigen::Index i = 0; i < run.weights.rows(); ++i) {
    for (Eigen::Index j = 0; j < run.weights.cols(); ++j) {
      if (std::isfinite(run.weights(i, j))) {
        run.max_weight_error = std::max(run.max_weight_error, std::fabs(static_cast<double>(run.weights(i, j)) - ref.weights(i, j)));
      }
    }
    for (Eigen::Index c = 0; c < run.output.cols(); ++c) {
      if (std::isfinite(run.output(i, c))) {
        run.max_output_error = std::max(run.max_output_error, std::fabs(static_cast<double>(run.output(i, c)) - ref.output(i, c)));
      }
    }
  }
  run.finite = run.weights_health.inf + run.weights_health.nan + run.output_health.inf + run.output_health.nan == 0;
}

// What went wrong first, in one sentence, or how close the run came.
std::string verdict(const PrecisionRun& run, const PrecisionOptions& o, long long leaked_rows) {
  const std::string fmt(precision_name(o.precision));
  const FormatLimits lim = format_limits(o.precision);
  if (run.scores_health.inf + run.scores_health.nan > 0) {
    return "scores overflow " + fmt + ": " + std::to_string(run.scores_health.inf) + " cells of QKᵀ pass " +
           significant(lim.max_finite, 4) + " and become ±inf";
  }
  if (run.logits_health.nan > 0) {
    return "−1e9 is −inf in " + fmt + ", so mask·(−1e9) is 0·(−inf) = NaN in " + std::to_string(run.logits_health.nan) +
           " visible cells: the whole row is NaN";
  }
  if (run.exps_health.inf > 0) {
    return "exp overflows " + fmt + " (logits above " + fixed_decimals(lim.exp_overflow, 2) + "): " +
           std::to_string(run.exps_health.inf) + " exps are inf and inf/inf = NaN";
  }
  if (!run.finite) {
    return "a fully blocked row has nothing to normalize: " + std::string(o.subtract_max ? "−inf − (−inf)" : "0/0") + " = NaN";
  }
  if (leaked_rows > 0) {
    return std::to_string(leaked_rows) + " fully blocked row(s) spread their weight over blocked keys: "
           "a finite fill leaks instead of giving zeros";
  }
  return "matches the reference to " + scientific(run.max_weight_error, 1) + " in the weights";
}

}  // namespace

PrecisionRun precision_run(const Problem& p, const PrecisionOptions& o, Backend& backend) {
  validate_problem(p);
  const Eigen::Index n = p.Q.rows(), m = p.K.rows();
  check_dense_fits(n, m);
  PrecisionRun run;
  run.options = o;
  run.scores.resize(n, m);
  run.logits.resize(n, m);
  run.exps.resize(n, m);
  run.weights.resize(n, m);
  run.output.resize(n, p.V.cols());
  emulate(p, o, run);

  Problem reference_problem = p;
  reference_problem.options.normalizer = Normalizer::Softmax;
  const Result ref = backend.compute(reference_problem);
  compare_with(ref, run);
  // Fully blocked rows that came out as weights anyway: the mask leaked.
  long long leaked_rows = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!ref.rows[static_cast<size_t>(i)].fully_masked) continue;
    const double row_sum = static_cast<double>(run.weights.row(i).sum());
    leaked_rows += std::isfinite(row_sum) && row_sum > 0;
  }
  run.verdict = verdict(run, o, leaked_rows);
  return run;
}

std::vector<PrecisionRun> precision_table(const Problem& p, Backend& backend) {
  std::vector<PrecisionRun> out;
  for (Precision prec : {Precision::Float32, Precision::Float16, Precision::BFloat16}) {
    for (bool stable : {true, false}) {
      for (MaskFill fill : {MaskFill::NegInf, MaskFill::NegBig, MaskFill::AddNegBig}) {
        out.push_back(precision_run(p, PrecisionOptions{prec, stable, fill, 1e9}, backend));
      }
    }
  }
  return out;
}

PrecisionNumbers compute_precision(const Scenario& s, const Result&, Backend& backend, const LessonDetail& detail) {
  PrecisionNumbers n;
  // The 18 emulated runs are the costly part: complete numbers only.
  if (detail.complete) n.runs = precision_table(s.problem(), backend);
  return n;
}

nlohmann::ordered_json precision_to_json(const PrecisionNumbers& n, const Scenario&, const Result&, const LessonDetail& detail) {
  using json = nlohmann::ordered_json;
  json limits = json::object();
  for (const Precision p : {Precision::Float32, Precision::Float16, Precision::BFloat16}) {
    const FormatLimits l = format_limits(p);
    limits[std::string(precision_name(p))] = {{"max_finite", l.max_finite},
                                              {"exp_overflows_above", l.exp_overflow},
                                              {"exp_is_zero_below", l.exp_underflow},
                                              {"minus_1e9_stored_as", std::isinf(l.minus_1e9) ? json("-inf") : json(l.minus_1e9)}};
  }
  if (!detail.complete) return {{"formats", limits}};
  json runs = json::array();
  for (const auto& r : n.runs) {
    runs.push_back({{"precision", precision_name(r.options.precision)},
                    {"subtract_max", r.options.subtract_max},
                    {"mask_fill", mask_fill_name(r.options.fill)},
                    {"finite", r.finite},
                    {"inf_scores", r.scores_health.inf},
                    {"inf_exps", r.exps_health.inf},
                    {"nan_weights", r.weights_health.nan},
                    {"max_weight_error", r.max_weight_error},
                    {"verdict", r.verdict}});
  }
  return {{"formats", limits}, {"runs", runs}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise precision_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  const double half_max = 65504;  // float16's largest finite number
  const Mask causal = parse_mask_spec("causal");
  const std::vector<std::string> tokens = {"The", "cat", "sat", "down", "here"};
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD given_q = rnd.integers(5, 4, 1, 3), given_k = rnd.integers(5, 4, 1, 3), given_v = rnd.integers(5, 2, 0, 1);
    d.set_given(given_q, given_k, given_v, exercise_options(true, 1, causal), first_tokens(s.query_tokens.size() >= 5 ? s.query_tokens : tokens, 5), first_tokens(tokens, 5));
    Exercise& e = d.exercise();
    const Eigen::Index row = rnd.integer(2, 3);
    const std::string at = query_label(e, row);
    // How many of the row's exps pass float16's largest number, for the stages given.
    const auto overflowing = [&](const MatrixD& logits, bool every_key) {
      double count = 0;
      for (Eigen::Index j = 0; j < logits.cols(); ++j) {
        if ((every_key || !causal.is_blocked(row, j)) && std::exp(logits(row, j)) > half_max) ++count;
      }
      return count;
    };
    const double over = overflowing(d.stages().logits, false);
    if (over < 1) return false;
    e.extra["float16_max"] = half_max;
    e.facts.push_back("float16's largest finite number is 65504 = e^11.09…: a larger e^x overflows to ∞");
    d.row_part(PartKind::LogitsRow, row, 1, "The logits of " + at + ": score ÷ √d_k, null for a blocked key, " + to_decimals(1) + ".");
    d.row_part(PartKind::WeightsRow, row, 2, "Its weights, computed stably: subtract the row's largest logit before each exp, " +
               to_decimals(2) + ".");
    Givens unscaled = d.givens();
    unscaled.scale = false;
    const MatrixD scores_only = worked_stages(unscaled, std::nullopt).logits;
    const MatrixD all_keys = worked_stages(d.givens(), Mistake::NoMask).logits;
    std::vector<double> seen = row_of(d.stages().logits, row);
    seen.resize(static_cast<size_t>(row + 1));  // causal: keys 0 … row
    const std::vector<std::string> working{
        "the logits " + at + " sees: " + hand_tuple(seen),
        std::to_string(static_cast<int>(over)) + " of them are above 11.09, so their e^logit would be ∞ in float16; "
        "minus the largest logit, every exp is at most e^0 = 1"};
    d.number_part("Without subtracting the largest logit, how many of " + at + "'s exps e^logit (over the keys it sees) "
                  "would overflow float16?",
                  over, 0, {mistake_number(Mistake::NoScaling, overflowing(scores_only, false)),
                            mistake_number(Mistake::NoMask, overflowing(all_keys, true))},
                  working);
    return true;
  });
}

}  // namespace attnlab
