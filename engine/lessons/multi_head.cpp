// Multi-head attention, computed both ways so the lesson can show that they agree.
#include "engine/lessons/multi_head.hpp"

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

}  // namespace attnlab
