// The temperature sweep, its limits and its curves.
#include "engine/lessons/temperature.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"

#include <cmath>

namespace attnlab {

namespace {

// The curves: the rows' mean largest weight and entropy at each of `count` temperatures.
void temperature_curves(TemperatureNumbers& n, const Scenario& s, Backend& backend, int count) {
  n.curve_taus = log_spaced(n.params.tau_min, n.params.tau_max, count);
  for (const double tau : n.curve_taus) {
    const LessonVariant v = document_variant(backend, s, [tau](Problem& p) { p.options.temperature = tau; });
    if (!v.ok()) {
      n.curve_taus.clear();
      n.curve_max_weight.clear();
      n.curve_entropy.clear();
      n.curve_error = v.error;
      return;
    }
    double a = 0, b = 0;
    for (const RowDiagnostics& row : v.result.rows) {
      a += row.max_weight;
      b += row.entropy;
    }
    const auto rows = static_cast<double>(v.result.rows.size());
    n.curve_max_weight.push_back(static_cast<float>(a / rows));
    n.curve_entropy.push_back(static_cast<float>(b / rows));
  }
}

}  // namespace

TemperatureParams temperature_params(const LessonFields& f) {
  TemperatureParams p;
  p.tau_min = f.number("tau_min", p.tau_min);
  p.tau_max = f.number("tau_max", p.tau_max);
  if (!(p.tau_min > 0) || !(p.tau_max > p.tau_min)) {
    throw InputError(f.source() + ": lesson.tau_min and lesson.tau_max must satisfy 0 < tau_min < tau_max");
  }
  p.frames = f.positive_integer("frames", 10000, p.frames);
  return p;
}

std::vector<double> log_spaced(double lo, double hi, long long count) {
  if (!(lo > 0) || !(hi >= lo) || count < 1) {
    throw InputError("temperature sweep: needs 0 < lo ≤ hi and at least one frame");
  }
  std::vector<double> out;
  if (count == 1) return {lo};
  const double a = std::log(lo), b = std::log(hi);
  for (long long k = 0; k < count; ++k) {
    out.push_back(std::exp(a + (b - a) * static_cast<double>(k) / static_cast<double>(count - 1)));
  }
  out.front() = lo;
  out.back() = hi;
  return out;
}

std::vector<TemperatureFrame> temperature_sweep(const Problem& p, const std::vector<double>& temperatures, Backend& backend) {
  std::vector<TemperatureFrame> frames;
  for (const double t : temperatures) {
    Problem q = p;
    q.options.temperature = t;
    const Result r = backend.compute(q);
    TemperatureFrame f;
    f.temperature = t;
    f.effective = r.effective_temperature;
    f.weights = r.weights;
    f.output = r.output;
    for (const auto& row : r.rows) {
      f.max_weight.push_back(row.max_weight);
      f.entropy.push_back(row.entropy);
    }
    frames.push_back(std::move(f));
  }
  return frames;
}

Matrix one_hot_limit(const Problem& p, Backend& backend) {
  Problem q = p;
  q.options.normalizer = Normalizer::Hardmax;
  return backend.compute(q).weights;
}

Matrix uniform_limit(const Problem& p) {
  const Eigen::Index n = p.Q.rows(), m = p.K.rows();
  Matrix U = Matrix::Zero(n, m);
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Index visible = 0;
    for (Eigen::Index j = 0; j < m; ++j) visible += !p.options.mask.is_blocked(i, j);
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!p.options.mask.is_blocked(i, j)) U(i, j) = 1.0f / static_cast<float>(visible);
    }
  }
  return U;
}

TemperatureNumbers compute_temperature(const Scenario& s, const Result&, Backend& backend, const LessonDetail& detail) {
  TemperatureNumbers n;
  n.params = temperature_params(LessonFields(s.lesson));
  const Problem p = s.problem();
  n.frames = temperature_sweep(p, log_spaced(n.params.tau_min, n.params.tau_max, n.params.frames), backend);
  n.one_hot = one_hot_limit(p, backend);
  n.uniform = uniform_limit(p);
  temperature_curves(n, s, backend, detail.curve_points);
  return n;
}

nlohmann::ordered_json temperature_to_json(const TemperatureNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& f : n.frames) {
    double mx = 0, h = 0;
    for (size_t i = 0; i < f.max_weight.size(); ++i) {
      mx += f.max_weight[i];
      h += f.entropy[i];
    }
    const double rows = static_cast<double>(f.max_weight.size());
    list.push_back({{"temperature", f.temperature},
                    {"effective_temperature", f.effective},
                    {"mean_max_weight", mx / rows},
                    {"mean_entropy", h / rows},
                    {"distance_to_one_hot", static_cast<double>((f.weights - n.one_hot).cwiseAbs().maxCoeff())},
                    {"distance_to_uniform", static_cast<double>((f.weights - n.uniform).cwiseAbs().maxCoeff())}});
  }
  return {{"frames", list},
          {"first_weights", matrix_to_json(n.frames.front().weights)},
          {"last_weights", matrix_to_json(n.frames.back().weights)},
          {"one_hot_limit", matrix_to_json(n.one_hot)},
          {"uniform_limit", matrix_to_json(n.uniform)}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise temperature_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const Eigen::Index m = rnd.integer(3, 5);
    const double T = rnd.pick(std::vector<double>{0.75, 1.5, 3});
    const MatrixD given_q = rnd.integers(2, 4, -2, 2), given_k = rnd.integers(m, 4, -2, 2), given_v = rnd.integers(m, 2, 0, 2);
    d.set_given(given_q, given_k, given_v, exercise_options(true, T), first_tokens(s.query_tokens, 2), first_tokens(s.key_tokens, m));
    const Exercise& e = d.exercise();
    const Eigen::Index row = rnd.integer(0, 1);
    const std::string at = query_label(e, row);
    if (!d.clear_argmax(row)) return false;
    d.row_part(PartKind::LogitsRow, row, 2, "The logits of " + at + " at T = " + hand_number(T) + ": each score ÷ (√d_k · T), " + to_decimals(2) + ".");
    d.row_part(PartKind::WeightsRow, row, 2, "Their weights, " + to_decimals(2) + ".");
    d.row_part(PartKind::ArgmaxKey, row, 0, "As T → 0 the row of weights becomes one-hot: which key gets all the weight? Its number, counted from 0.");
    const double uniform = 1.0 / static_cast<double>(m);
    d.number_part("As T → ∞ the row becomes uniform: the weight of each key, " + to_decimals(2) + ".", uniform, 2, {},
                  {"every logit ÷ T → 0, so every exp → 1 and each of the " + std::to_string(m) + " keys gets 1 ÷ " +
                   std::to_string(m) + " = " + hand_number(uniform)});
    return true;
  });
}

}  // namespace attnlab
