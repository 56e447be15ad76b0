// Named edits of the document. Every change to AppState::doc goes through apply(), which
// snapshots the document for undo, validates the edit (a refused edit keeps the last good state
// and sets AppState::error) and marks the result for recomputation.
#pragma once

#include "gui/app_state.hpp"

#include <functional>
#include <string>
#include <string_view>

namespace attnlab::gui {

struct Services;

// Applies `edit` to a copy of the document; commits it when it validates, else sets state.error
// and keeps the document. Edits sharing a non-empty `merge_key` in a row make one undo entry.
// Returns true when committed.
bool apply(AppState& state, std::string_view name, const std::function<void(Document&)>& edit,
           std::string_view merge_key = {});
// Ends a run of merged edits (the drag or the text entry finished).
void end_merge(AppState& state);

bool can_undo(const AppState& state);
bool can_redo(const AppState& state);
// The name of the action that undo/redo would revert/replay, or empty.
std::string undo_name(const AppState& state);
std::string redo_name(const AppState& state);
void undo(AppState& state);
void redo(AppState& state);

// Recomputes the result when the document changed, through the backend; on failure keeps the
// last good result and sets state.error.
// Documents too large for dense stages (gui_streams) are streamed on a background thread:
// each call also takes a finished run's result.
void recompute_if_needed(AppState& state, Services& services);
// Starts (or restarts) the background streaming run of the current document, on the GPU when
// the active backend is one.
void start_streaming(AppState& state, const Services& services);
// Stops the running streaming computation; the last good result stays.
void cancel_streaming(AppState& state);

// Replaces the whole document (start-up, session restore) without an undo entry.
void reset_document(AppState& state, Scenario scenario, std::string path);

// The editor's limits: n and m (tokens) and d_k, d_v. Documents whose n × m stages do not fit are
// streamed (compute_job.hpp); Q, K and V themselves must fit under max_input_bytes().
inline constexpr int kMaxTokens = 1000000;
inline constexpr int kMaxDim = 65536;
// Undo keeps at most this many bytes of documents (and at least the last edit).
inline constexpr double kHistoryBytes = 1024.0 * 1024 * 1024;
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
// target: 0 Q, 1 K, 2 V, 3 all three. Random draws N(0, σ²) from `seed`.
void fill(AppState& s, int target, Fill kind, float sigma, int seed);

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
// Puts a matrix from a file into Q, K or V; the sizes follow the matrix.
void load_matrix(AppState& s, Which w, const Matrix& M, const std::string& file_name);

}  // namespace actions

}  // namespace attnlab::gui
