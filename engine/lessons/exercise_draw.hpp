// What every lesson page draws its exercise with: the seeded stream of small numbers, a draft that
// turns givens into parts (the right answer, the mistakes, the working), and the loop that draws
// again from the same stream until the exercise keeps its promises (exercise_math.hpp,
// `promised_mistakes`: a mistake the exercise tests never gives the right answer by accident).
#pragma once

#include "engine/lessons/exercise.hpp"
#include "engine/lessons/exercise_math.hpp"
#include "engine/lessons/random.hpp"
#include "engine/text/text_format.hpp"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

// One stream per lesson and seed (the lesson's name is mixed into the seed, so two lessons with the
// same seed draw different numbers), the same on every platform. Draw one value per statement or
// declarator, never two in one call's arguments: those are evaluated in an order each compiler
// chooses (GCC's desktop right to left, the browser's clang left to right), and the same seed must
// give the same exercise everywhere.
class ExerciseRandom {
public:
  ExerciseRandom(std::string_view lesson, std::uint64_t seed);
  // Uniform over lo … hi, both included.
  long long integer(long long lo, long long hi);
  // rows × cols whole numbers from lo to hi.
  MatrixD integers(Eigen::Index rows, Eigen::Index cols, long long lo, long long hi);
  // rows × cols numbers with one decimal, tenths from lo to hi (-10, 10: −1.0 … 1.0).
  MatrixD tenths(Eigen::Index rows, Eigen::Index cols, long long lo, long long hi);
  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(integer(0, static_cast<long long>(items.size()) - 1))];
  }

private:
  NormalRandom bits_;
};

// Options of a given: scaling, temperature, mask.
Options exercise_options(bool scale, double temperature, const Mask& mask = Mask{});
// "to 2 decimals", "as a whole number".
std::string to_decimals(int decimals);

// An exercise being drawn: its givens, then its parts in order ("a", "b", …).
class ExerciseDraft {
public:
  explicit ExerciseDraft(const ExerciseRequest& request);

  // The givens, with the numbers as drawn: Q n × d_k, K m × d_k, V m × d_v; tokens empty for t1, t2, ….
  void set_given(const MatrixD& Q, const MatrixD& K, const MatrixD& V, const Options& options,
                 std::vector<std::string> query_tokens = {}, std::vector<std::string> key_tokens = {});
  const Givens& givens() const { return givens_; }
  const WorkedStages& stages() const { return stages_; }  // the right ones, in double
  const Result& result() const { return result_; }        // the engine's, for the working
  Exercise& exercise() { return e_; }

  // A part of a row kind (scores_row … argmax_key) on query row `row`: the expected answer, every
  // mistake that changes it and the working, from the givens.
  ExercisePart& row_part(PartKind kind, Eigen::Index row, int decimals, std::string prompt);
  // Every cell the given's mask blocks; no_mask (no cell at all) and transposed (the mirror image)
  // are the mistakes.
  ExercisePart& blocked_part(std::string prompt);
  // One number of the lesson's own: its mistakes (left out where they give the answer anyway) and
  // working come from the page.
  ExercisePart& number_part(std::string prompt, double value, int decimals, std::vector<MistakeAnswer> mistakes,
                            std::vector<std::string> working);
  // A whole n × m matrix.
  ExercisePart& matrix_part(std::string prompt, const MatrixD& value, int decimals, std::vector<std::string> working);

  // True when the row `row` has one largest weight, ahead of the next by at least `margin`.
  bool clear_argmax(Eigen::Index row, double margin = 0.02) const;
  // True when every row part keeps its promises (exercise_math.hpp, keeps_promises).
  bool keeps_promises() const;

  Exercise take() { return std::move(e_); }

private:
  ExercisePart& add(PartKind kind, std::string prompt, int decimals);
  Exercise e_;
  Givens givens_;
  WorkedStages stages_;
  Result result_;
};

// Draws the exercise: `draw` fills a fresh draft from the stream and returns false to reject it
// (a tie it cannot ask about, say); a draft that breaks a promise is rejected too, and the next is
// drawn from the same stream. Throws std::logic_error after 1000 rejected drafts, which a page's
// draws must make impossible.
Exercise draw_exercise(const ExerciseRequest& request, const std::function<bool(ExerciseRandom&, ExerciseDraft&)>& draw);

// The decimals an output row is asked to: 2 when every value lies in [−1, 1], else 1, so that weights
// rounded to 4 decimals on the way still give the right last digit.
int output_decimals(const MatrixD& V);
// The tokens a lesson's words give its n positions: its own first n, else t1, t2, ….
std::vector<std::string> first_tokens(const std::vector<std::string>& tokens, Eigen::Index n);

// Adds a matrix to the givens: under `key` in given.extra, and drawn as `name` by a sheet.
void add_extra_matrix(Exercise& e, const std::string& key, const std::string& name, const MatrixD& M);

// "(0.7071, 0, 1.4142)": numbers as the working writes them (hand_number).
std::string hand_tuple(const std::vector<double>& v);
// Row `row` of M as a list.
std::vector<double> row_of(const MatrixD& M, Eigen::Index row);

// A number part's mistake, for the pages' lists.
inline MistakeAnswer mistake_number(Mistake m, double v) { return {m, AnswerValue::number(v)}; }

// The sentence that says how a mask hides keys ("causal: key j is hidden from query i when j > i").
std::string mask_rule(const Mask& mask);

}  // namespace attnlab
