// The rope lesson's numbers, from the same rotation the pipeline's RoPE stage applies
// (attention/rope.hpp), in float32 as the engine computes the scores.
#include "engine/lessons/rope.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace attnlab {

namespace {

std::vector<std::int64_t> shifted(std::vector<std::int64_t> positions, long long by) {
  for (std::int64_t& p : positions) p += by;
  return positions;
}

// Δ = 0, 1, 2, 3, then two per octave (4, 6, 8, 12, 16, …) up to 4096.
std::vector<long long> distances() {
  std::vector<long long> out{0, 1, 2, 3};
  for (long long d = 4; d <= 4096; d *= 2) {
    out.push_back(d);
    if (d * 3 / 2 < 4096) out.push_back(d * 3 / 2);
  }
  return out;
}

double rotated_product(const Matrix& q, const Matrix& k, std::int64_t pq, std::int64_t pk, const std::vector<double>& f) {
  const Matrix rq = rope_rotated(q, {pq}, f), rk = rope_rotated(k, {pk}, f);
  return static_cast<double>(rq.row(0).dot(rk.row(0)));
}

}  // namespace

RopeParams rope_params(const LessonFields& f) {
  RopeParams p;
  p.shift = f.positive_integer("shift", 1'000'000, p.shift);
  p.grid = f.positive_integer("grid", 64, p.grid);
  p.envelope_d_k = f.positive_integer("envelope_d_k", 1 << 16, p.envelope_d_k);
  if (p.envelope_d_k % 2) throw InputError(f.source() + ": lesson.envelope_d_k must be even: RoPE turns pairs of components");
  return p;
}

RopeLesson rope_lesson(const Problem& p, const Matrix& scores, long long shift, long long grid, long long envelope_d_k) {
  const Eigen::Index n = p.Q.rows(), m = p.K.rows(), d = p.Q.cols();
  if (d % 2) {
    throw InputError("the rope lesson: d_k = " + std::to_string(d) + " is odd; RoPE turns pairs of components (t, t + d_k/2)");
  }
  if (shift < 1 || grid < 1 || envelope_d_k < 2 || envelope_d_k % 2) {
    throw InputError("the rope lesson: shift and grid must be at least 1 and envelope_d_k an even number from 2");
  }
  if (scores.rows() != n || scores.cols() != m) throw InputError("the rope lesson: the scores do not match Q and K");
  RopeLesson l;
  l.rope_on = p.options.rope.has_value();
  l.rope = p.options.rope.value_or(RopeSettings{});
  l.d_k = d;
  const std::vector<double> f = rope_frequencies(l.rope.theta, l.rope.scaling, d);
  const std::vector<std::int64_t> pq = rope_positions(l.rope.query_positions, n), pk = rope_positions(l.rope.key_positions, m);

  // The shift: the same rows, rotated to positions further on.
  l.shift = shift;
  l.scores = l.rope_on ? scores : Matrix(rope_rotated(p.Q, pq, f) * rope_rotated(p.K, pk, f).transpose());
  l.shifted_scores = rope_rotated(p.Q, shifted(pq, shift), f) * rope_rotated(p.K, shifted(pk, shift), f).transpose();
  l.max_shift_change = n && m ? static_cast<double>((l.shifted_scores - l.scores).cwiseAbs().maxCoeff()) : 0.0;
  // A rotated component (x·cos − y·sin, cos and sin rounded once) is within 4ε·2·max|x| of its
  // exact value; a score adds d_k products of components at most 2·max|q| and 2·max|k|, each
  // term off by about 4ε·4·max|q|·max|k|, plus the sum's own rounding. Both the shifted and the
  // unshifted score carry it, hence twice.
  const double eps = std::numeric_limits<float>::epsilon();
  const double q_max = n ? static_cast<double>(p.Q.cwiseAbs().maxCoeff()) : 0.0;
  const double k_max = m ? static_cast<double>(p.K.cwiseAbs().maxCoeff()) : 0.0;
  l.rounding_bound = 2.0 * 4.0 * eps * static_cast<double>(d + 2) * 4.0 * q_max * k_max;

  // One q and one k at every pair of positions.
  l.grid = grid;
  l.same_pair_scores = Matrix::Zero(grid, grid);
  if (n && m) {
    for (long long i = 0; i < grid; ++i)
      for (long long j = 0; j < grid; ++j)
        l.same_pair_scores(i, j) = static_cast<float>(rotated_product(p.Q.topRows(1), p.K.topRows(1), i, j, f));
    for (long long delta = -(grid - 1); delta < grid; ++delta) {
      float lo = std::numeric_limits<float>::infinity(), hi = -lo;
      for (long long i = std::max(0LL, delta); i < grid && i - delta < grid; ++i) {
        lo = std::min(lo, l.same_pair_scores(i, i - delta));
        hi = std::max(hi, l.same_pair_scores(i, i - delta));
      }
      l.max_diagonal_spread = std::max(l.max_diagonal_spread, static_cast<double>(hi - lo));
    }
  }

  for (size_t t = 0; t < f.size(); ++t) {
    l.frequencies.push_back({static_cast<long long>(t), f[t], 2 * std::numbers::pi / f[t]});
  }
  l.unrotated_scores = p.Q * p.K.transpose();

  // The decay with distance: aligned vectors of a head's width, and the document's own pair.
  l.envelope_d_k = envelope_d_k;
  const std::vector<double> fe = rope_frequencies(l.rope.theta, l.rope.scaling, envelope_d_k);
  for (const long long delta : distances()) {
    double aligned = 0;
    for (const double ft : fe) aligned += 2 * std::cos(static_cast<double>(delta) * ft);
    const double lesson = n && m ? rotated_product(p.Q.topRows(1), p.K.topRows(1), delta, 0, f) : 0.0;
    l.distances.push_back({delta, aligned / static_cast<double>(envelope_d_k), lesson});
  }
  return l;
}

RopeNumbers compute_rope(const Scenario& s, const Result& r, Backend&, const LessonDetail&) {
  const RopeParams p = rope_params(LessonFields(s.lesson));
  RopeNumbers n;
  n.lesson = rope_lesson(s.problem(), r.scores, p.shift, p.grid, p.envelope_d_k);
  return n;
}

nlohmann::ordered_json rope_to_json(const RopeNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  const RopeLesson& l = n.lesson;
  nlohmann::ordered_json frequencies = nlohmann::ordered_json::array(), distances = nlohmann::ordered_json::array();
  for (const RopeFrequency& f : l.frequencies) {
    frequencies.push_back({{"pair", f.pair}, {"frequency", f.frequency}, {"wavelength", f.wavelength}});
  }
  for (const RopeDistance& d : l.distances) {
    distances.push_back({{"distance", d.distance}, {"aligned", d.aligned}, {"lesson", d.lesson}});
  }
  return {{"rope_on", l.rope_on},
          {"theta", l.rope.theta},
          {"d_k", l.d_k},
          {"shift", l.shift},
          {"scores", matrix_to_json(l.scores)},
          {"shifted_scores", matrix_to_json(l.shifted_scores)},
          {"max_shift_change", l.max_shift_change},
          {"rounding_bound", l.rounding_bound},
          {"grid", l.grid},
          {"same_pair_scores", matrix_to_json(l.same_pair_scores)},
          {"max_diagonal_spread", l.max_diagonal_spread},
          {"frequencies", frequencies},
          {"fastest", frequencies.front()},
          {"slowest", frequencies.back()},
          {"unrotated_scores", matrix_to_json(l.unrotated_scores)},
          {"envelope_d_k", l.envelope_d_k},
          {"distances", distances}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise rope_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD Q = rnd.integers(2, 2, -2, 2), K = rnd.integers(2, 2, -2, 2);
    if (Q.row(0).cwiseAbs().sum() == 0 || K.row(0).cwiseAbs().sum() == 0) return false;
    RopeSettings rope;
    rope.query_positions = {rnd.integer(0, 5), rnd.integer(0, 5)};
    rope.key_positions = {rnd.integer(0, 5), rnd.integer(0, 5)};
    if (rope.query_positions[0] == rope.key_positions[0]) return false;  // part (c) puts them together
    Options options = exercise_options(true, 1);
    options.rope = rope;
    d.set_given(Q, K, rnd.integers(2, 2, 0, 2), options, first_tokens(s.query_tokens, 2), first_tokens(s.key_tokens, 2));
    Exercise& e = d.exercise();
    const long long shift = rnd.integer(1, 5);
    e.extra["shift"] = shift;
    // The cosines and sines of the angles used, for working by hand.
    std::vector<std::int64_t> angles{rope.query_positions[0], rope.query_positions[1], rope.key_positions[0],
                                     rope.key_positions[1], rope.query_positions[0] + shift, rope.key_positions[0] + shift};
    std::sort(angles.begin(), angles.end());
    angles.erase(std::unique(angles.begin(), angles.end()), angles.end());
    std::string table;
    for (const std::int64_t p : angles) {
      const double a = static_cast<double>(p);
      table += (table.empty() ? "" : "; ") + ("cos " + std::to_string(p) + " = " + hand_number(std::cos(a)) + ", sin " +
                                              std::to_string(p) + " = " + hand_number(std::sin(a)));
    }
    e.facts.push_back("θ = 10000 and d_k = 2: the pair (x_0, x_1) at position p turns by p radians: (x_0 cos p − x_1 sin p, "
                      "x_1 cos p + x_0 sin p)");
    e.facts.push_back(table);
    d.row_part(PartKind::ScoresRow, 0, 2, "The scores of " + query_label(e, 0) + ": rotated query · rotated key, " + to_decimals(2) + ".");
    Scenario moved = e.given;
    for (auto& p : moved.options.rope->query_positions) p += shift;
    for (auto& p : moved.options.rope->key_positions) p += shift;
    const Givens g = givens_of(moved);
    const double shifted = g.Q.row(0).dot(g.K.row(0));
    d.number_part("If every position moves by " + std::to_string(shift) + ", the score of " + query_label(e, 0) + " with " +
                      key_label(e, 0) + ", " + to_decimals(2) + ". Why?",
                  shifted, 2, {},
                  {"both rows turn by " + std::to_string(shift) + " more radians, so the angle between them stays " +
                       std::to_string(rope.key_positions[0] - rope.query_positions[0]) + " radians",
                   "a score sees only the distance between the positions: it stays " + hand_number(shifted)});
    const double together = Q.row(0).dot(K.row(0));
    d.number_part("And with both at the same position, " + to_decimals(2) + ".", together, 2, {},
                  {"at distance 0 the rotations cancel: the plain dot product q · k = " + hand_number(together)});
    return true;
  });
}

}  // namespace attnlab
