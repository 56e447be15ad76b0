// The arithmetic behind an exercise's row parts, in double from the givens as written: the right
// answer, and each mistake of exercise.hpp's list recomputed from the same givens (so the grader can
// name the one that explains a wrong answer), with the worked arithmetic of the Explain panel
// (attention/explain.hpp). Pages build their row parts from here (exercise_draw.hpp's `row_part`).
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/lessons/exercise.hpp"

#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// The givens of an exercise in double, as written in its JSON (0.1 is 0.1, not float's
// 0.100000001): Q n × d_k and K m × d_k rotated by the given's RoPE where it has one, V m × d_v.
struct Givens {
  MatrixD Q, K, V;
  bool scale = true;
  double temperature = 1;
  Mask mask;
  Normalizer normalizer = Normalizer::Softmax;
  Eigen::Index n() const { return Q.rows(); }
  Eigen::Index m() const { return K.rows(); }
  Eigen::Index d_k() const { return Q.cols(); }
};
Givens givens_of(const Scenario& s);

// The four stages worked with one mistake (or none): scores n × m; logits n × m with −∞ where the
// mask blocks a key (none under no_mask and mask_after_softmax); weights n × m; output n × d_v.
// `transposed_output` is the other transposition: the right weights, then Aᵀ V (n == m only).
struct WorkedStages {
  MatrixD scores, logits, weights, output;
};
WorkedStages worked_stages(const Givens& g, std::optional<Mistake> mistake, bool transposed_output = false);

// Whether `mistake` can be made on this given at all: no_temperature needs T ≠ 1, divided_by_dk
// scaling on, transposed a square problem, no_mask and mask_after_softmax a blocked key.
bool mistake_possible(const Givens& g, Mistake mistake);

// The value a row kind (scores_row … argmax_key) asks for, read from stages: blocked logits as
// null, argmax_key as the first key with the row's largest weight.
AnswerValue row_answer(const WorkedStages& st, PartKind kind, Eigen::Index row);
// The keys tied at row `row`'s largest weight (within 1e-9 of it).
std::vector<long long> tied_keys(const WorkedStages& st, Eigen::Index row);

// True when `answer` is within half a unit of the last of `decimals` of `expected`, entry by entry
// (a null only matches a null). Keys and cells compare exactly; blocked cells as sets.
bool answer_matches(const AnswerValue& answer, const AnswerValue& expected, PartKind kind, int decimals);

// Every mistake of kMistakeOrder that is possible on `g`, with what it gives for this row kind, left
// out where it gives the expected answer anyway.
std::vector<MistakeAnswer> row_mistakes(const Givens& g, PartKind kind, Eigen::Index row, const AnswerValue& expected,
                                        int decimals);

// The mistakes an exercise promises to tell apart from the right answer on a row part (by more than
// one unit of its last decimal): no_scaling always, divided_by_dk with scaling on, no_temperature
// with T ≠ 1, no_mask and mask_after_softmax on a row with a blocked and two visible keys,
// wrong_axis with more than one query, transposed on a square problem. Logits rows leave out
// mask_after_softmax and wrong_axis (neither changes a logit); scores rows ask only transposed.
std::vector<Mistake> promised_mistakes(const Givens& g, PartKind kind, Eigen::Index row);
// True when every promised mistake gives an answer more than one unit of the last decimal away from
// the right one and from every other promised mistake's, so that each can be named.
bool keeps_promises(const Givens& g, const ExercisePart& part);

// The worked arithmetic of a row part, from the Explain panel's steps: every score (and logit) of
// the row, the row's exps and their sum once, each weight, then the output as a sum of value rows.
// `given` is the exercise's scenario and `r` its computed result.
std::vector<std::string> row_working(const Scenario& given, const Result& r, PartKind kind, Eigen::Index row);

}  // namespace attnlab
