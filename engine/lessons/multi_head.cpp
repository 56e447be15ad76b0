// Multi-head attention, computed both ways so the lesson can show that they agree.
#include "engine/lessons/multi_head.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/lessons/random.hpp"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>

namespace attnlab {

MultiHeadParams multi_head_params(const LessonFields& f) {
  MultiHeadParams p;
  p.seed = f.seed(p.seed);
  p.heads = f.positive_integer("heads", 64, p.heads);
  p.share_projections = f.flag("share_projections", p.share_projections);
  return p;
}

MultiHeadWeights random_multihead_weights(Eigen::Index d_model, int heads, unsigned long long seed, bool share) {
  if (heads < 1 || d_model < 1 || d_model % heads != 0) {
    throw InputError("heads: " + std::to_string(heads) + " heads do not divide d_model = " + std::to_string(d_model) +
                     "; d_head = d_model / h must be a whole number");
  }
  const Eigen::Index d_head = d_model / heads;
  const double sigma = 1.0 / std::sqrt(static_cast<double>(d_model));
  NormalRandom rng(seed);
  MultiHeadWeights w;
  // Always draw every head, so the unshared weights do not depend on the switch.
  for (int i = 0; i < heads; ++i) {
    w.W_Q.push_back(rng.normal_matrix(d_model, d_head, sigma));
    w.W_K.push_back(rng.normal_matrix(d_model, d_head, sigma));
    w.W_V.push_back(rng.normal_matrix(d_model, d_head, sigma));
  }
  w.W_O = rng.normal_matrix(d_model, d_model, sigma);
  if (share) {
    for (int i = 1; i < heads; ++i) {
      w.W_Q[static_cast<size_t>(i)] = w.W_Q[0];
      w.W_K[static_cast<size_t>(i)] = w.W_K[0];
      w.W_V[static_cast<size_t>(i)] = w.W_V[0];
    }
  }
  return w;
}

void validate_multihead(const Matrix& X, const MultiHeadWeights& w) {
  const Eigen::Index d_model = X.cols();
  const int h = w.heads();
  if (h < 1) throw InputError("heads: multi-head attention needs at least one head");
  if (X.size() == 0) throw InputError("X is empty; it needs one row per token and d_model columns");
  if (d_model % h != 0) {
    throw InputError("heads: " + std::to_string(h) + " heads do not divide d_model = " + std::to_string(d_model));
  }
  if (w.W_K.size() != w.W_Q.size() || w.W_V.size() != w.W_Q.size()) {
    throw InputError("W_Q, W_K and W_V must have one matrix per head each");
  }
  const Eigen::Index d_head = d_model / h;
  auto check = [&](const Matrix& M, const std::string& name, Eigen::Index rows, Eigen::Index cols) {
    if (M.rows() != rows || M.cols() != cols) {
      throw InputError(name + " is " + std::to_string(M.rows()) + "×" + std::to_string(M.cols()) + " but must be " +
                       std::to_string(rows) + "×" + std::to_string(cols) + " (d_model × d_head)");
    }
    if (!M.allFinite()) throw InputError(name + " has a NaN or infinite entry; every entry must be finite");
  };
  for (int i = 0; i < h; ++i) {
    const std::string suffix = " of head " + std::to_string(i + 1);
    check(w.W_Q[static_cast<size_t>(i)], "W_Q" + suffix, d_model, d_head);
    check(w.W_K[static_cast<size_t>(i)], "W_K" + suffix, d_model, d_head);
    check(w.W_V[static_cast<size_t>(i)], "W_V" + suffix, d_model, d_head);
  }
  if (w.W_O.rows() != d_model || w.W_O.cols() != d_model) {
    throw InputError("W_O is " + std::to_string(w.W_O.rows()) + "×" + std::to_string(w.W_O.cols()) +
                     " but must be d_model × d_model = " + std::to_string(d_model) + "×" + std::to_string(d_model));
  }
  if (!w.W_O.allFinite()) throw InputError("W_O has a NaN or infinite entry; every entry must be finite");
}

int numerical_rank(const Matrix& M) {
  if (M.size() == 0) return 0;
  const MatrixD D = M.cast<double>();
  Eigen::JacobiSVD<MatrixD> svd(D);
  const auto& sv = svd.singularValues();
  if (sv.size() == 0 || sv(0) == 0) return 0;
  // float32 inputs: singular values below ~1e-5 of the largest are rounding noise.
  const double tol = sv(0) * 1e-5 * static_cast<double>(std::max(M.rows(), M.cols()));
  int rank = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i) rank += sv(i) > tol;
  return rank;
}

MultiHeadResult multi_head_attention(const Matrix& X, const MultiHeadWeights& w, const Options& options, Backend& backend) {
  validate_multihead(X, w);
  MultiHeadResult r;
  const int h = w.heads();
  r.n = X.rows();
  r.d_model = X.cols();
  r.d_head = r.d_model / h;
  r.concat.resize(r.n, r.d_model);
  r.output_from_slabs = Matrix::Zero(r.n, r.d_model);
  r.heads_identical = true;
  for (int i = 0; i < h; ++i) {
    const auto k = static_cast<size_t>(i);
    r.Q.push_back(X * w.W_Q[k]);
    r.K.push_back(X * w.W_K[k]);
    r.V.push_back(X * w.W_V[k]);
    r.heads.push_back(backend.compute(Problem{r.Q.back(), r.K.back(), r.V.back(), options}));
    const Matrix& H = r.heads.back().output;
    r.concat.middleCols(i * r.d_head, r.d_head) = H;
    r.slab_terms.push_back(H * w.W_O.middleRows(i * r.d_head, r.d_head));
    r.output_from_slabs += r.slab_terms.back();
    r.heads_identical = r.heads_identical && w.W_Q[k] == w.W_Q[0] && w.W_K[k] == w.W_K[0] && w.W_V[k] == w.W_V[0];
  }
  r.output = r.concat * w.W_O;
  r.max_abs_difference = static_cast<double>((r.output - r.output_from_slabs).cwiseAbs().maxCoeff());
  r.max_abs_output = static_cast<double>(r.output.cwiseAbs().maxCoeff());
  r.output_rank = numerical_rank(r.output);
  return r;
}

MultiHeadNumbers compute_multi_head(const Scenario& s, const Result&, Backend& backend, const LessonDetail&) {
  MultiHeadNumbers n;
  n.params = multi_head_params(LessonFields(s.lesson));
  const MultiHeadParams& l = n.params;
  const auto d = s.Q.cols();
  n.this_weights = random_multihead_weights(d, static_cast<int>(l.heads), l.seed, l.share_projections);
  n.switched_weights = random_multihead_weights(d, static_cast<int>(l.heads), l.seed, !l.share_projections);
  n.this_lesson = multi_head_attention(s.Q, n.this_weights, s.options, backend);
  n.switched = multi_head_attention(s.Q, n.switched_weights, s.options, backend);
  return n;
}

nlohmann::ordered_json multi_head_to_json(const MultiHeadNumbers& n, const Scenario& s, const Result&, const LessonDetail&) {
  const MultiHeadParams& l = n.params;
  nlohmann::ordered_json j;
  j["d_model"] = s.Q.cols();
  j["heads"] = l.heads;
  j["d_head"] = s.Q.cols() / std::max<long long>(1, l.heads);
  j["seed"] = l.seed;
  for (const bool share : {false, true}) {
    const bool mine = share == l.share_projections;
    const MultiHeadWeights& w = mine ? n.this_weights : n.switched_weights;
    const MultiHeadResult& r = mine ? n.this_lesson : n.switched;
    nlohmann::ordered_json heads = nlohmann::ordered_json::array();
    for (int i = 0; i < w.heads(); ++i) heads.push_back(matrix_to_json(r.heads[static_cast<size_t>(i)].weights));
    nlohmann::ordered_json v = {{"share_projections", share},
                                {"head_weights", heads},
                                {"concat", matrix_to_json(r.concat)},
                                {"output_concat_then_W_O", matrix_to_json(r.output)},
                                {"output_sum_of_slabs", matrix_to_json(r.output_from_slabs)},
                                {"max_abs_difference", r.max_abs_difference},
                                {"max_abs_output", r.max_abs_output},
                                {"output_rank", r.output_rank},
                                {"heads_identical", r.heads_identical}};
    j[mine ? "this_lesson" : "switched"] = v;
  }
  return j;
}

// ---- The exercise ----------------------------------------------------------------------------

namespace {

// Exercise 2.3.3: with shared projections every head computes the given Q, K and V.
bool shared_heads_parts(ExerciseRandom& rnd, ExerciseDraft& d, long long heads) {
  const Exercise& e = d.exercise();
  const Eigen::Index row = rnd.integer(0, 2), key = rnd.integer(0, 2);
  const long long other = rnd.integer(2, heads);
  d.row_part(PartKind::WeightsRow, row, 2, "Head 1's weights of " + query_label(e, row) + ", " + to_decimals(2) + ".");
  const double w = d.stages().weights(row, key);
  d.number_part("The weight head " + std::to_string(other) + " gives " + key_label(e, key) + " in " + query_label(e, row) +
                    ", " + to_decimals(2) + ".",
                w, 2, {},
                {"head " + std::to_string(other) + " has the same W_Q, W_K and W_V as head 1, so the same Q, K, V and the same "
                 "weights: " + hand_number(w)});
  d.number_part("How many different attention maps do the " + std::to_string(heads) + " heads compute?", 1, 0, {},
                {"shared projections give every head the same Q and K, so the same map: 1, for " + std::to_string(heads) +
                 " heads' compute (Exercise 2.3.3)"});
  return true;
}

// Concat-then-W_O: head 1 is worked by hand, head 2's output is given.
bool separate_heads_parts(ExerciseRandom& rnd, ExerciseDraft& d) {
  Exercise& e = d.exercise();
  const MatrixD H2 = rnd.tenths(3, 2, -10, 10), W_O = rnd.integers(4, 2, -1, 1);
  if (W_O.col(0).cwiseAbs().sum() < 3) return false;  // a component that mixes both heads
  add_extra_matrix(e, "head_2_output", "head 2's output", H2);
  add_extra_matrix(e, "W_O", "W_O", W_O);
  e.facts.push_back("two heads of width 2: head 1's Q, K, V are given, and head 2's output; W_O (4 × 2) maps the "
                    "concatenated [head 1, head 2] row back to 2 numbers");
  const Eigen::Index row = rnd.integer(0, 2);
  const std::string at = query_label(e, row);
  d.row_part(PartKind::WeightsRow, row, 2, "Head 1's weights of " + at + ", " + to_decimals(2) + ".");
  d.row_part(PartKind::OutputRow, row, 2, "Head 1's output for " + at + ": its weights times V, " + to_decimals(2) + ".");
  const std::vector<double> h1 = row_of(d.stages().output, row), h2 = row_of(H2, row);
  const std::vector<double> concat{h1[0], h1[1], h2[0], h2[1]};
  const double slab1 = h1[0] * W_O(0, 0) + h1[1] * W_O(1, 0), slab2 = h2[0] * W_O(2, 0) + h2[1] * W_O(3, 0);
  d.number_part("Component 0 of " + at + " of the multi-head output [head 1, head 2] · W_O, " + to_decimals(1) + ".",
                slab1 + slab2, 1, {},
                {"the concatenated row: " + hand_tuple(concat),
                 "times column 0 of W_O " + hand_tuple(row_of(MatrixD(W_O.transpose()), 0)) + ": " + hand_number(slab1 + slab2),
                 "the same as head 1's slab plus head 2's: " + hand_number(slab1) + " + " + hand_number(slab2)});
  return true;
}

}  // namespace

Exercise multi_head_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  const MultiHeadParams params = multi_head_params(LessonFields(s.lesson));
  const std::vector<std::string> tokens = first_tokens(s.query_tokens, 3);
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD given_q = rnd.integers(3, 2, -1, 2), given_k = rnd.integers(3, 2, -1, 2), given_v = rnd.integers(3, 2, -1, 1);
    d.set_given(given_q, given_k, given_v, exercise_options(true, 1), tokens, tokens);
    d.exercise().extra["heads"] = params.share_projections ? params.heads : 2;
    d.exercise().extra["shared_projections"] = params.share_projections;
    if (!params.share_projections) return separate_heads_parts(rnd, d);
    d.exercise().facts.push_back("all " + std::to_string(params.heads) +
                                 " heads share W_Q, W_K and W_V: each computes the Q, K and V given here");
    return shared_heads_parts(rnd, d, params.heads);
  });
}

}  // namespace attnlab
