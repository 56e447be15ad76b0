// Multi-head self-attention (view multi-head; Section 2.3's note and Exercise 2.3.3): h heads of
// width d_head = d_model / h, concat-then-W_O, and the equal sum-of-slabs view, with the lesson's
// seeded projections shared or not.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"

#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kMultiHeadView = "multi-head";

struct MultiHeadParams {
  unsigned long long seed = 42;    // lesson.seed: the projections' random numbers
  long long heads = 2;             // lesson.heads
  bool share_projections = false;  // lesson.share_projections
};
MultiHeadParams multi_head_params(const LessonFields& f);

// Per-head projections. W_Q[i], W_K[i], W_V[i]: d_model × d_head. W_O: d_model × d_model, whose
// rows [i·d_head, (i+1)·d_head) are head i's slab W_O^(i) (d_head × d_model).
struct MultiHeadWeights {
  std::vector<Matrix> W_Q, W_K, W_V;
  Matrix W_O;

  int heads() const { return static_cast<int>(W_Q.size()); }
};

// Seeded random weights, entries N(0, 1/d_model) so that projections of unit-size embeddings
// stay unit-size. With `share` every head gets head 1's W_Q, W_K, W_V (Exercise 2.3.3); W_O is
// drawn the same either way, so switching sharing on changes only the heads.
// Throws InputError unless heads ≥ 1 divides d_model.
MultiHeadWeights random_multihead_weights(Eigen::Index d_model, int heads, unsigned long long seed, bool share);

// Checks that every weight has the shapes above for X's d_model; throws InputError naming the matrix.
void validate_multihead(const Matrix& X, const MultiHeadWeights& w);

struct MultiHeadResult {
  Eigen::Index n = 0, d_model = 0, d_head = 0;
  std::vector<Matrix> Q, K, V;    // per head: X W_Q[i] etc., n × d_head
  std::vector<Result> heads;      // per head: every stage; heads[i].output is H_i (n × d_head)
  Matrix concat;                  // [H_1 … H_h], n × d_model
  Matrix output;                  // concat · W_O, n × d_model (view A)
  std::vector<Matrix> slab_terms; // H_i · W_O^(i), each n × d_model
  Matrix output_from_slabs;       // Σ_i H_i · W_O^(i), n × d_model (view B)
  double max_abs_difference = 0;  // max |output − output_from_slabs|
  double max_abs_output = 0;      // for a relative reading of the difference
  int output_rank = 0;            // numerical rank of `output` (≤ d_head when heads are shared)
  bool heads_identical = false;   // every head's weights equal head 1's, bit for bit
};

// X: n × d_model token embeddings. Each head runs the ordinary pipeline on `backend` with `options`
// (scale by √d_head, temperature, mask, normalizer) on Q_i = X W_Q[i], K_i = X W_K[i], V_i = X W_V[i].
// The GUI's view runs it on the weights the student edits.
MultiHeadResult multi_head_attention(const Matrix& X, const MultiHeadWeights& w, const Options& options, Backend& backend);

// Numerical rank by singular values in double precision (tolerance relative to the largest).
int numerical_rank(const Matrix& M);

// The document's Q as X through the lesson's seeded projections, shared or not as the lesson says
// (`this_lesson`) and the other way (`switched`).
struct MultiHeadNumbers : LessonNumbers {
  MultiHeadParams params;
  MultiHeadWeights this_weights, switched_weights;
  MultiHeadResult this_lesson, switched;
};

MultiHeadNumbers compute_multi_head(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"d_model", "heads", "d_head", "seed", "this_lesson", "switched"}: each with its heads' weights,
// concat, both readings of W_O, their difference, the output's rank, whether the heads are one.
nlohmann::ordered_json multi_head_to_json(const MultiHeadNumbers& n, const Scenario& s, const Result& r,
                                          const LessonDetail& detail);

// The exercise of multi-head attention, on three tokens with heads of width 2. Separate projections
// (multi-head): head 1's Q, K, V and head 2's output are given with W_O; (a) head 1's weights of a row,
// (b) its output row, (c) a component of that row of concat-then-W_O. Shared projections
// (shared-heads, Exercise 2.3.3): every head's Q, K, V are the given ones; (a) head 1's weights of a
// row, (b) the same weight in another head, (c) how many different maps the heads compute.
Exercise multi_head_exercise(const ExerciseRequest& request);

}  // namespace attnlab
