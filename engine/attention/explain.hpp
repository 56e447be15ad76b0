// "Explain a cell": the arithmetic behind one cell of one stage, worked the way the course texts
// work it by hand, from the problem and its computed result. One home, so every panel, lesson and
// report shows the same steps with the same digits (hand_number, engine/text/text_format.hpp).
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/stage.hpp"
#include "engine/text/text_format.hpp"

#include <string>
#include <vector>

namespace attnlab {

struct Explanation {
  std::string heading;             // "weights[0][2]: how much t1 attends to t3"
  std::vector<std::string> steps;  // one line per step, with the current numbers
  double value = 0;                // the cell's value as the engine computed it
};

// The Explain panel's form: a heading naming the tokens, then score, logit (or the mask), the
// row's exps, their sum and the quotient, saturation or the output's weighted sum. Indices in the
// heading are 0-based like the matrices; long sums are elided in the middle. `cell` must lie
// inside its stage (the output is n × d_v); throws InputError otherwise.
Explanation explain_cell(const Problem& problem, const Result& result, const CellRef& cell,
                         const std::vector<std::string>& query_tokens, const std::vector<std::string>& key_tokens,
                         const Glyphs& glyphs = Glyphs{});

// The worked example's compact form, as the course texts print it (1-based, q1 · k1): the dot
// product term by term, the division, every exp of the row with their sum, and the quotient; one
// line each.
std::vector<std::string> explain_weight(const Problem& p, const Result& r, Eigen::Index i, Eigen::Index j);
// output[i] as the weighted sum of the value rows, in the same form.
std::vector<std::string> explain_output(const Problem& p, const Result& r, Eigen::Index i);

}  // namespace attnlab
