// The edit catalogue: the named, undoable changes a user can make to the document (sizes, cells,
// masks, tokens, fills, loading a lesson or a matrix). Each is one call to apply() (history.hpp).
#pragma once

#include "gui/state/app_state.hpp"

#include <string>

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

namespace actions {

void set_scale(AppState& s, bool on);
void toggle_scale(AppState& s);
void set_temperature(AppState& s, double t);  // clamped to [0.05, 20]
void set_normalizer(AppState& s, Normalizer n);
// Rotary positions: on brings back the settings it had when turned off (a lifted head's θ, scaling
// and positions), else θ = 10000 at positions 0, 1, …; an odd d_k is refused with a sentence in
// state.error (the rotation turns pairs of components).
void set_rope(AppState& s, bool on);
void toggle_rope(AppState& s);
void set_rope_theta(AppState& s, double theta);  // clamped to [1, 10⁷]; RoPE must be on
// Row `row` of Q (Which::Q) or K (Which::K) at `position` (0 … kMaxPosition); the others keep theirs.
void set_rope_position(AppState& s, Which w, int row, long long position);
// Every query and key position moved by `delta` (none below 0): the scores stay, since they
// depend only on distances.
void shift_rope_positions(AppState& s, long long delta);
inline constexpr long long kMaxPosition = 1000000000;
void set_mask_kind(AppState& s, MaskKind kind);  // picks a sensible parameter
void set_mask_param(AppState& s, int value);
void cycle_mask(AppState& s);
// Custom mask: flips (i, j); other kinds are first turned into the equivalent custom grid.
void toggle_blocked(AppState& s, int i, int j);

// Q/K/V cell edits. Values must be finite.
void set_cell(AppState& s, Which w, int row, int col, float value);

// Sizes. Cells keep their values and new cells start at 0; tokens grow as t<k>.
// Returns false and fills state.pending_resize when the dense stages would need over
// kConfirmBytes (the caller asks the user, then calls resize(..., true)); false with state.error
// set when the size is refused.
inline constexpr double kConfirmBytes = 512.0 * 1024 * 1024;
// Sets state.error and returns false when Q, K and V at these sizes would exceed max_input_bytes();
// `what` names the change ("n = 100000", "q.npy").
bool inputs_fit(AppState& s, Eigen::Index n, Eigen::Index m, Eigen::Index d_k, Eigen::Index d_v, const std::string& what);
bool resize(AppState& s, Dim dim, int value, bool confirmed = false);
int dim_value(const AppState& s, Dim dim);
void set_self_attention(AppState& s, bool on);

enum class Fill { Random, Identity, Zeros };
// Random draws N(0, σ²) from `seed`.
void fill(AppState& s, FillTarget target, Fill kind, float sigma, int seed);

void set_query_token(AppState& s, int i, const std::string& text);
void set_key_token(AppState& s, int j, const std::string& text);
// Splits on white space; the sentence's tokens become the query tokens (n follows).
void tokens_from_sentence(AppState& s, const std::string& sentence);

// Replaces the document with a scenario (a lesson or a file), as one undoable action.
void load_scenario(AppState& s, const Scenario& scenario, const std::string& path, const std::string& name);
void load_preset(AppState& s, const std::string& preset_name);
// Puts back the numbers of the built-in lesson the document came from (lesson_origin), as one
// undoable action ("reset lesson"). Nothing happens for a document that is no built-in lesson.
void reset_lesson(AppState& s);
// "Open in the lab": a model head's q, k, v (model_report.hpp's lift_head) replace the document,
// as one undoable action named after the head; undo returns to what was there.
void open_model_head(AppState& s, const Scenario& head);
// Puts a matrix from a file into Q, K or V; the sizes follow the matrix.
void load_matrix(AppState& s, Which w, const Matrix& M, const std::string& file_name);

}  // namespace actions

}  // namespace attnlab::gui
