// The multi-head lesson's page (multi_head_page.cpp): X through per-head W_Q, W_K, W_V (seeded
// random, editable), every head's map, concat-then-W_O beside the sum of per-head slabs, and the
// switch that makes every head share its projections (Exercise 2.3.3).
#pragma once

#include "engine/lessons/multi_head.hpp"
#include "gui/lessons/lesson_page.hpp"

#include <cstdint>
#include <string>

namespace attnlab::gui {

// The weight editor shows one head's W_Q, W_K or W_V.
enum class HeadMatrix { WQ, WK, WV };

struct MultiHeadUi {
  // The lesson's heads, seed and sharing to start with (its file's, or the defaults where a field is
  // bad: the numbers' sentence says why).
  explicit MultiHeadUi(const Scenario& s);

  int heads = 0;
  int seed = 0;
  bool share = false;
  // The weights: seeded random for d_model/heads/seed/share (`weights_key`) until the user edits one.
  MultiHeadWeights weights;
  std::string weights_key;
  bool weights_edited = false;
  std::uint64_t weights_version = 0;  // bumped by every change to `weights`
  int edit_head = 0;
  HeadMatrix edit_matrix = HeadMatrix::WQ;
  // The heads: the document's Q as X through `weights` (multi_head_attention on the chosen backend),
  // recomputed only when the document or the weights changed.
  std::uint64_t run_doc_version = UINT64_MAX, run_weights_version = UINT64_MAX;
  MultiHeadResult run;
  std::string run_error;  // why they could not be computed
};

// Draws its own heads (MultiHeadUi::run), which follow the weights the student edits; the engine's
// numbers are those of the lesson's own weights.
void draw_multi_head_page(const PageInputs& in, const MultiHeadNumbers* numbers, MultiHeadUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): d_head for an h, and the output's rank when the
// heads share their projections.

}  // namespace attnlab::gui
