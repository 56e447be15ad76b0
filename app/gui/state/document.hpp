// The document, what undo/redo restores and the session keeps: the scenario and how its rows are
// linked; its undo history; and the names of its matrices and sizes. Plain data every floor reads.
#pragma once

#include "engine/attention/rope.hpp"
#include "engine/io/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace attnlab::gui {

// The three input matrices.
enum class Which { Q, K, V };
const char* which_name(Which w);

// The four sizes a user can change.
enum class Dim { N, M, Dk, Dv };
const char* dim_name(Dim d);  // "n", "m", "d_k", "d_v"

struct Document {
  Scenario scenario;
  bool self_attention = true;  // K and V rows follow Q's tokens: m = n, key tokens = query tokens
  // The rotation's settings while RoPE is off, so that turning it back on brings back a model's θ,
  // scaling and positions (a lifted head) rather than the defaults.
  std::optional<RopeSettings> rope_when_off;
};

// The size `dim` of the document (n, m, d_k or d_v).
int dim_value(const Document& d, Dim dim);

// One entry of the undo or redo stack: the document as it was before (undo) or after (redo)
// the named action.
struct Snapshot {
  std::string action;
  Document doc;
};

struct History {
  std::vector<Snapshot> undo, redo;
  // Consecutive edits with the same non-empty key (scrubbing one cell, dragging a slider) share
  // one undo entry; cleared when the edit ends.
  std::string merge_key;
  static constexpr size_t kMaxEntries = 200;
};

// The display labels of query rows and key columns (the scenario's, or t1, t2, ...).
std::vector<std::string> query_labels(const Scenario& s);
std::vector<std::string> key_labels(const Scenario& s);

}  // namespace attnlab::gui
