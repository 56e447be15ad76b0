// Exercise 2.3.1 in small: the scenario's own draw both ways, and the d_k sweep.
#include "engine/lessons/scaling_lab.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/lessons/random.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

ScalingLabParams scaling_lab_params(const LessonFields& f) {
  ScalingLabParams p;
  p.dk = f.integer_list("dk", 1 << 20, p.dk);
  p.keys = f.positive_integer("keys", 1 << 20, p.keys);
  p.trials = f.positive_integer("trials", 10'000'000, p.trials);
  p.seed = f.seed(p.seed);
  return p;
}

std::vector<ScalingSweepRow> lesson_scaling_sweep(const std::vector<long long>& dk, long long keys, long long trials,
                                                  unsigned long long seed) {
  if (keys < 2 || trials < 1) throw InputError("scaling sweep: needs at least 2 keys and 1 trial");
  std::vector<ScalingSweepRow> out;
  NormalRandom rng(seed);
  std::vector<double> s(static_cast<size_t>(keys));
  for (const long long d : dk) {
    if (d < 1) throw InputError("scaling sweep: d_k must be at least 1");
    ScalingSweepRow row;
    row.d_k = d;
    const double root = std::sqrt(static_cast<double>(d));
    for (long long t = 0; t < trials; ++t) {
      std::vector<double> q(static_cast<size_t>(d));
      for (auto& x : q) x = rng.normal();
      double mean = 0;
      for (auto& x : s) {
        x = 0;
        for (long long l = 0; l < d; ++l) x += q[static_cast<size_t>(l)] * rng.normal();
        mean += x;
      }
      mean /= static_cast<double>(keys);
      double var = 0, mx = -1e300;
      for (const double x : s) {
        var += (x - mean) * (x - mean);
        mx = std::max(mx, x);
      }
      // torch's .std() is the sample standard deviation (n − 1), as in Section 2.3's printout.
      const double sd = std::sqrt(var / static_cast<double>(keys - 1));
      double z_un = 0, z_sc = 0;
      for (const double x : s) {
        z_un += std::exp(x - mx);
        z_sc += std::exp((x - mx) / root);
      }
      row.unscaled_std += sd;
      row.scaled_std += sd / root;
      row.unscaled_max_prob += 1.0 / z_un;
      row.scaled_max_prob += 1.0 / z_sc;
    }
    const double tr = static_cast<double>(trials);
    row.unscaled_std /= tr;
    row.scaled_std /= tr;
    row.unscaled_max_prob /= tr;
    row.scaled_max_prob /= tr;
    out.push_back(row);
  }
  return out;
}

double sample_std(const MomentStats& m) {
  const double count = static_cast<double>(m.count);
  return count > 1 ? m.std * std::sqrt(count / (count - 1)) : 0.0;
}

ScalingLabNumbers compute_scaling_lab(const Scenario& s, const Result&, Backend& backend, const LessonDetail& detail) {
  ScalingLabNumbers n;
  n.params = scaling_lab_params(LessonFields(s.lesson));
  const ScalingLabParams& l = n.params;
  n.scaled = document_variant(backend, s, [](Problem& p) { p.options.scale = true; });
  n.unscaled = document_variant(backend, s, [](Problem& p) { p.options.scale = false; });
  n.sweep_trials = detail.max_sweep_trials > 0 ? std::min(l.trials, detail.max_sweep_trials) : l.trials;
  // The sweep takes about half a second: complete numbers only, not every recompute of the text.
  if (detail.complete) n.sweep = lesson_scaling_sweep(l.dk, l.keys, n.sweep_trials, l.seed);
  return n;
}

nlohmann::ordered_json scaling_lab_to_json(const ScalingLabNumbers& n, const Scenario& s, const Result&,
                                           const LessonDetail& detail) {
  nlohmann::ordered_json j;
  // This scenario's own draw, both ways (one query row against its keys).
  nlohmann::ordered_json draw;
  for (const LessonVariant* v : {&n.unscaled, &n.scaled}) {
    const Result& r = computed(*v);
    double mx = 0;
    for (const auto& d : r.rows) mx = std::max(mx, static_cast<double>(d.max_weight));
    draw[v == &n.scaled ? "scaled" : "unscaled"] = {{"logits_std", sample_std(r.stats.logits)}, {"max_prob", mx}};
  }
  draw["d_k"] = s.Q.cols();
  j["this_draw"] = draw;
  if (!detail.complete) return j;
  nlohmann::ordered_json sweep = nlohmann::ordered_json::array();
  for (const auto& row : n.sweep) sweep.push_back(scaling_row_json(row));
  j["sweep"] = sweep;
  j["keys"] = n.params.keys;
  j["trials"] = n.sweep_trials;
  j["seed"] = n.params.seed;
  return j;
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise scaling_lab_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  const std::vector<std::string> keys = first_tokens(s.key_tokens, 4);
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD given_q = rnd.integers(1, 4, -2, 2), given_k = rnd.integers(4, 4, -2, 2), given_v = rnd.integers(4, 2, 0, 3);
    d.set_given(given_q, given_k, given_v, exercise_options(true, 1), first_tokens(s.query_tokens, 1), keys);
    const std::vector<double> scores = row_of(d.stages().scores, 0);
    double mean = 0, squares = 0;
    for (const double v : scores) mean += v / 4;
    std::vector<double> deviations;
    for (const double v : scores) squares += std::pow(deviations.emplace_back(v - mean), 2);
    const double raw = std::sqrt(squares / 3);
    // A spread of at least 1 keeps ÷√d_k (÷2) and ÷d_k (÷4) apart at 2 decimals.
    if (raw < 1) return false;
    d.row_part(PartKind::ScoresRow, 0, 0, "The four scores q · k_j of the query against each key, as whole numbers.");
    d.number_part("The sample standard deviation of those scores (divide the squared deviations by m − 1 = 3, as torch's "
                  ".std() does), " + to_decimals(2) + ".",
                  raw, 2, {},
                  {"mean = " + hand_number(mean) + "; deviations " + hand_tuple(deviations),
                   "sum of squares " + hand_number(squares) + ", ÷ 3 = " + hand_number(squares / 3),
                   "std = √" + hand_number(squares / 3) + " = " + hand_number(raw)});
    d.number_part("The standard deviation of the logits, the scores ÷ √d_k, " + to_decimals(2) + ".", raw / 2, 2,
                  {mistake_number(Mistake::NoScaling, raw), mistake_number(Mistake::DividedByDk, raw / 4)},
                  {"dividing every score by √d_k = 2 divides their standard deviation by 2: " + hand_number(raw) + " ÷ 2 = " +
                   hand_number(raw / 2)});
    return true;
  });
}

}  // namespace attnlab
