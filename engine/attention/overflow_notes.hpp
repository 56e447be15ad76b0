// Why a result holds infinite values: one sentence per kind of float32 overflow, naming the stage
// and the rows, so that no ∞ is ever shown without its reason (the GUI's pipeline and saturation
// panels show these).
#pragma once

#include "engine/attention/attention.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// What overflowed in a row, the first that applies in this order.
enum class RowOverflow : std::uint8_t {
  None,
  ScoresAllNegInf,  // every visible score is −∞: the row is split evenly among its visible keys (not masked)
  ScoresPosInf,     // some visible score is +∞: those keys share the row's weight
  ScoresNegInf,     // some visible scores are −∞: those keys get weight 0
  ScoresBlocked,    // only blocked cells' scores overflowed: the weights do not use them
  Logits,           // finite scores whose logits (S ÷ s·T) overflow float32: shown as ±∞, weights exact
  Output,           // the output (weights · V) overflows float32
  ScoresRecomputed, // scores whose float32 sum could overflow, computed exactly in double (finite here)
};

// A short label for the saturation table's flag column ("scores overflow", ...); empty for None.
const char* row_overflow_label(RowOverflow o);

struct OverflowNotes {
  std::vector<std::string> sentences;  // one per kind found, each naming up to three rows
  std::vector<RowOverflow> rows;       // n entries
  bool empty() const { return sentences.empty(); }
};

// Looks at a result's stages (scores, and logits when kept: n × m when r.dense; output: n × d_v) and the mask
// grid it was computed with (blocked: n × m; may be empty for no mask). row_labels: n query
// labels (t1, t2, ... when empty).
OverflowNotes overflow_notes(const Result& r, const BlockGrid& blocked, const std::vector<std::string>& row_labels);

}  // namespace attnlab
