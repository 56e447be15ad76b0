// "Explain a cell": the arithmetic behind one cell, written the way the course texts work it by hand.
#pragma once

#include "engine/attention/attention.hpp"
#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

#include <string>
#include <vector>

namespace attnlab::gui {

struct Explanation {
  std::string heading;             // "weights[0][2]: how much t1 attends to t3"
  std::vector<std::string> steps;  // one line per step, with the current numbers
  double value = 0;                // the cell's value as the engine computed it
};

// Q: n × d_k, K: m × d_k, V: m × d_v; result computed from them. `cell` must lie inside its stage.
Explanation explain_cell(const Problem& problem, const Result& result, const CellRef& cell,
                         const std::vector<std::string>& query_tokens, const std::vector<std::string>& key_tokens,
                         const Glyphs& glyphs);

// A number the way the course texts print it: integers plainly, otherwise 3 decimals.
std::string hand_number(double v);

}  // namespace attnlab::gui
