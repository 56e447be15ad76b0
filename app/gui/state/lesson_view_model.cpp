// The lesson views' numbers, kept per result (see lesson_view_model.hpp).
#include "gui/state/lesson_view_model.hpp"

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace attnlab::gui {

namespace {

// Forgets everything computed for an older result.
LessonViewModel& current(AppState& state) {
  LessonViewModel& m = state.results.lesson_model;
  if (m.result_version != state.results.result_version) {
    const MultiHeadView multihead = std::move(m.multihead);  // keyed by the document and its weights
    m = LessonViewModel{};
    m.multihead = multihead;
    m.result_version = state.results.result_version;
  }
  return m;
}

}  // namespace

const LessonNumbers* lesson_numbers_any(AppState& state, Services& services, std::string& error) {
  LessonViewModel& m = current(state);
  if (!m.numbers && m.error.empty()) {
    if (!state.results.has_result) {
      m.error = "nothing computed yet";
    } else {
      // The GUI's d_k sweep averages over at most 200 trials: enough for the table, and quick.
      LessonDetail detail;
      detail.max_sweep_trials = 200;
      const Scenario& s = shown_scenario(state);
      try {
        m.numbers = compute_lesson(s, state.results.result, *services.backend, detail);
      } catch (const InputError& e) {
        m.error = e.what();
      } catch (const std::bad_alloc&) {
        m.error = "this view's computation ran out of memory";
      }
    }
  }
  error = m.error;
  return m.numbers.get();
}

const LessonVariant& lesson_at_temperature(AppState& state, Services& services, double tau) {
  LessonViewModel& m = current(state);
  if (m.tau != tau) {
    m.tau = tau;
    try {
      Problem p = shown_scenario(state).problem();
      p.options.temperature = tau;
      m.at_tau = compute_variant(*services.backend, p);
    } catch (const InputError& e) {
      m.at_tau = LessonVariant{};
      m.at_tau.error = e.what();
    }
  }
  return m.at_tau;
}

const MultiHeadView& multihead_view(AppState& state, Services& services) {
  MultiHeadView& view = state.results.lesson_model.multihead;
  const LessonUi& ui = state.lesson;
  if (view.doc_version == state.doc_version && view.weights_version == ui.weights_version) return view;
  view.doc_version = state.doc_version;
  view.weights_version = ui.weights_version;
  view.error.clear();
  try {
    view.result = multi_head_attention(state.doc.scenario.Q, ui.weights, state.doc.scenario.options, *services.backend);
  } catch (const std::exception& e) {  // bad weights, or the backend failed
    view.result = MultiHeadResult{};
    view.error = e.what();
  }
  return view;
}

void sync_lesson_ui(AppState& state) {
  const Scenario& s = state.doc.scenario;
  const std::string key = s.title + "\n" + s.lesson.raw_json;
  LessonUi& ui = state.lesson;
  if (ui.loaded_key == key) return;
  ui.loaded_key = key;
  // The lesson's own heads, seed and sharing (the defaults where a field is bad: its view says why).
  MultiHeadParams params;
  try {
    params = multi_head_params(LessonFields(s.lesson));
  } catch (const InputError&) {
  }
  ui.heads = static_cast<int>(params.heads);
  ui.seed = static_cast<int>(params.seed);
  ui.share = params.share_projections;
  ui.weights_edited = false;
  ui.weights_key.clear();
  ui.edit_head = 0;
  ui.tau = 1.0;
  ui.playing = false;
  ui.play_time = 0;
  ui.frames_status.clear();
  ui.drag_kind.reset();
  ui.plane_half = 0;
  // ATTNLAB_GUI_TILE=N opens the online-softmax view at tile N (1-based), for screenshots and docs.
  const char* tile = std::getenv("ATTNLAB_GUI_TILE");
  ui.online_step = tile ? std::max(0, std::atoi(tile) - 1) : 0;
}

}  // namespace attnlab::gui
