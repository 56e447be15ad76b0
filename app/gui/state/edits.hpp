// The edit catalogue: the named, undoable changes a user can make to the document (sizes, cells,
// masks, tokens, fills, loading a lesson or a matrix). Each is one call to apply() (history.hpp).
#pragma once

#include "engine/attention/attention.hpp"
#include "gui/state/document.hpp"

#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace attnlab::gui {

// The editor's limits: n and m (tokens) and d_k, d_v. Documents whose n × m stages do not fit are
// streamed (compute_job.hpp); Q, K and V themselves must fit under max_input_bytes().
inline constexpr int kMaxTokens = 1000000;
inline constexpr int kMaxDim = 65536;
// Bytes of Q (n × d_k), K (m × d_k) and V (m × d_v) in float32.
inline double input_bytes(Eigen::Index n, Eigen::Index m, Eigen::Index d_k, Eigen::Index d_v) {
  return 4.0 * (static_cast<double>(n) * static_cast<double>(d_k) + static_cast<double>(m) * static_cast<double>(d_k) +
                static_cast<double>(m) * static_cast<double>(d_v));
}
// The most the editor lets Q, K and V take together: 1/16 of the dense-stage limit (undo copies them).
inline double max_input_bytes() { return dense_memory_limit() / 16.0; }

// A size change that needs the user's yes first (its dense stages are big).
struct PendingResize {
  bool active = false;
  Dim dim = Dim::N;
  int value = 0;
  double bytes = 0;
  bool streams = false;  // the new size is computed by streaming (compute_job.hpp)
};

// Which input matrices a fill (random, identity, zeros) writes: one of them, or all three.
enum class FillTarget { Q, K, V, All };

// A named, undoable change to the document: what apply() (history.hpp) commits as one undo entry.
// Views make edits from the catalogue below and hand them on (commands.hpp); they never change the
// document themselves.
struct Edit {
  Edit() = default;
  Edit(std::string name_, std::function<void(Document&)> change_, std::string merge_key_ = {})
      : name(std::move(name_)), change(std::move(change_)), merge_key(std::move(merge_key_)) {}

  std::string name;                       // "set temperature": what Edit > Undo names
  std::function<void(Document&)> change;  // throws InputError to refuse; the document then stays
  std::string merge_key;                  // edits in a row with the same non-empty key share one undo entry
  std::string refused;                    // instead of a change: why it cannot be made (shown in place)
  // Neither a change nor a refusal: nothing to do (RoPE switched to the state it is in).
  bool empty() const { return !change && refused.empty(); }
};

// The catalogue: the named edits a user can make. Those that take the document read it to decide
// (a toggle, a check against the sizes); none changes it.
namespace edits {

Edit set_scale(bool on);
Edit toggle_scale(const Document& d);
Edit set_temperature(double t);  // clamped to [0.05, 20]
Edit set_normalizer(Normalizer n);
// Rotary positions: on brings back the settings it had when turned off (a lifted head's θ, scaling
// and positions), else θ = 10000 at positions 0, 1, …; an odd d_k is refused (the rotation turns
// pairs of components).
Edit set_rope(const Document& d, bool on);
Edit toggle_rope(const Document& d);
Edit set_rope_theta(const Document& d, double theta);  // clamped to [1, 10⁷]; RoPE must be on
// Row `row` of Q (Which::Q) or K (Which::K) at `position` (0 … kMaxPosition); the others keep theirs.
Edit set_rope_position(const Document& d, Which w, int row, long long position);
// Every query and key position moved by `delta` (none below 0): the scores stay, since they
// depend only on distances.
Edit shift_rope_positions(const Document& d, long long delta);
inline constexpr long long kMaxPosition = 1000000000;
Edit set_mask_kind(MaskKind kind);  // picks a sensible parameter
Edit set_mask_param(int value);
Edit cycle_mask(const Document& d);
// Custom mask: flips (i, j); other kinds are first turned into the equivalent custom grid.
Edit toggle_blocked(int i, int j);

// Q/K/V cell edits. Values must be finite.
Edit set_cell(Which w, int row, int col, float value);

// Sizes. Cells keep their values and new cells start at 0; tokens grow as t<k>. Refused when Q, K
// and V at the new size would exceed max_input_bytes() or the editor's limits; a size that needs the
// user's yes first is resize_question's to find (the Resize command asks).
Edit resize(const Document& d, Dim dim, int value);
Edit set_self_attention(bool on);

enum class Fill { Random, Identity, Zeros };
// Random draws N(0, σ²) from `seed`.
Edit fill(FillTarget target, Fill kind, float sigma, int seed);

Edit set_query_token(int i, const std::string& text);
Edit set_key_token(int j, const std::string& text);
// Splits on white space; the sentence's tokens become the query tokens (n follows).
Edit tokens_from_sentence(const Document& d, const std::string& sentence);

// Replaces the document with a scenario (a lesson, a file, a lifted head), as one undoable action.
Edit load_scenario(const Scenario& scenario, const std::string& name);
// Puts a matrix from a file into Q, K or V; the sizes follow the matrix.
Edit load_matrix(const Document& d, Which w, Matrix M, const std::string& file_name);

}  // namespace edits

// Why Q, K and V at these sizes do not fit under max_input_bytes() (`what` names the change:
// "n = 100000", "q.npy"), or empty when they fit.
std::string inputs_refusal(Eigen::Index n, Eigen::Index m, Eigen::Index d_k, Eigen::Index d_v, const std::string& what);

// A size change whose dense stages need the user's yes first (over kConfirmBytes, or the first
// size that streams): what to ask, or nothing when it can go ahead at once.
inline constexpr double kConfirmBytes = 512.0 * 1024 * 1024;
std::optional<PendingResize> resize_question(const Document& d, Dim dim, int value);


}  // namespace attnlab::gui
