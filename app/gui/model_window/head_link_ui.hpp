// The Model window's "which heads link these two tokens?" and what the mouse is over (docs/MODELS.md,
// "The Model window"): plain data in ModelUi, changed by head_link_actions.hpp.
#pragma once

#include "engine/model/head_links.hpp"
#include "engine/model/model_report.hpp"

#include <memory>
#include <string>
#include <vector>

namespace attnlab::gui {

// Two token chips clicked, the query then the key, and every head ranked by its weight between them.
struct HeadLinkUi {
  int query = -1, key = -1;  // token positions; −1 until chosen (a second click on a later token swaps them)
  std::vector<model::HeadLink> ranking;           // every head, largest first, on `ranked_run`
  std::shared_ptr<const model::ModelRun> ranked_run;  // the run the ranking was read from
  std::vector<int> prefix;   // the tokens up to the query when it was chosen: a text changed before it drops the pair
  int outlined = 5;          // how many of the top heads the grid outlines
  std::string notice;        // what the last click did ("the later token is the query: swapped")
};

// The cell under the mouse in the grid or the enlarged map this frame (−1: none), for the tooltip
// and the tests.
struct HeadHover {
  int layer = -1, head = -1, query = -1, key = -1;
};

// How the key tokens fit along the top of an enlarged map: at `size` (0: no labels, the columns are
// too narrow to read), upright (turned a quarter turn) when the widest label at that size is wider
// than a column, in a band `band` pixels high; `labels` as drawn (long ones cut with "…" when
// upright). The Model window keeps the last one it drew (ModelUi::drawn_keys) for its tests.
struct KeyLabelLayout {
  float size = 0, band = 0;
  bool upright = false;
  std::vector<std::string> labels;
};

}  // namespace attnlab::gui
