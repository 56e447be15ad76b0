// The lesson views' derived results (see lesson_view_model.hpp).
#include "gui/state/lesson_view_model.hpp"

#include "engine/lessons/lesson_math.hpp"
#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>

namespace attnlab::gui {

namespace {

// The problem computed on the chosen backend; a refusal or a backend failure becomes the sentence.
ViewResult compute_variant(Services& services, const Problem& p) {
  ViewResult v;
  v.options = p.options;
  try {
    v.result = services.backend->compute(p);
    v.blocked = mask_grid(p.options.mask, v.result.n, v.result.m);
  } catch (const InputError& e) {
    v.error = e.what();
  } catch (const std::bad_alloc&) {
    v.error = "this view's computation ran out of memory";
  } catch (const std::exception& e) {
    v.error = "the " + services.backend->description() + " backend failed: " + e.what();
  }
  return v;
}

// Forgets everything computed for an older document.
LessonViewModel& current(AppState& state) {
  LessonViewModel& m = state.lesson_model;
  if (m.doc_version != state.doc_version) {
    m = LessonViewModel{};
    m.doc_version = state.doc_version;
  }
  return m;
}

}  // namespace

const ViewResult& view_result(AppState& state, Services& services, const std::string& name, double param,
                              const std::function<void(Problem&)>& change) {
  LessonViewModel& m = current(state);
  auto it = m.variants.find(name);
  if (it != m.variants.end() && it->second.param == param) return it->second.value;
  ViewResult v;
  try {
    Problem p = state.doc.scenario.problem();
    change(p);
    v = compute_variant(services, p);
  } catch (const InputError& e) {
    v.error = e.what();
  }
  LessonViewModel::Variant& slot = m.variants[name];
  slot.param = param;
  slot.value = std::move(v);
  return slot.value;
}

const TemperatureCurves& temperature_curves(AppState& state, Services& services, int count) {
  LessonViewModel& m = current(state);
  if (m.has_curves) return m.curves;
  m.has_curves = true;
  TemperatureCurves& c = m.curves;
  const Scenario& s = state.doc.scenario;
  c.taus = log_spaced(s.lesson.tau_min, s.lesson.tau_max, count);
  for (const double tau : c.taus) {
    Problem p = s.problem();
    p.options.temperature = tau;
    const ViewResult v = compute_variant(services, p);
    if (!v.ok()) {
      c = TemperatureCurves{};
      c.error = v.error;
      break;
    }
    double a = 0, b = 0;
    for (const RowDiagnostics& row : v.result.rows) {
      a += row.max_weight;
      b += row.entropy;
    }
    const auto rows = static_cast<double>(v.result.rows.size());
    c.max_weight.push_back(static_cast<float>(a / rows));
    c.entropy.push_back(static_cast<float>(b / rows));
  }
  return c;
}

const MultiHeadView& multihead_view(AppState& state) {
  MultiHeadView& view = state.lesson_model.multihead;
  const LessonUi& ui = state.lesson;
  if (view.doc_version == state.doc_version && view.weights_version == ui.weights_version) return view;
  view.doc_version = state.doc_version;
  view.weights_version = ui.weights_version;
  view.error.clear();
  try {
    view.result = compute_multihead(state.doc.scenario.Q, ui.weights, state.doc.scenario.options);
  } catch (const InputError& e) {
    view.result = MultiHeadResult{};
    view.error = e.what();
  }
  return view;
}

const OnlineSoftmaxModel& online_softmax_model(AppState& state) {
  LessonViewModel& m = current(state);
  if (m.online_result_version == state.result_version) return m.online;
  m.online_result_version = state.result_version;
  m.online = OnlineSoftmaxModel{};
  try {
    if (!state.has_result) throw InputError("nothing computed yet");
    m.online.lesson = online_softmax_lesson(state.doc.scenario.problem(), state.doc.scenario.lesson.tile, state.result.output);
  } catch (const InputError& e) {
    m.online.error = e.what();
  } catch (const std::bad_alloc&) {
    m.online.error = "the online softmax ran out of memory";
  }
  return m.online;
}

void sync_lesson_ui(AppState& state) {
  const Scenario& s = state.doc.scenario;
  const std::string key = s.title + "\n" + s.lesson.raw_json;
  LessonUi& ui = state.lesson;
  if (ui.loaded_key == key) return;
  ui.loaded_key = key;
  ui.heads = static_cast<int>(s.lesson.heads);
  ui.seed = static_cast<int>(s.lesson.seed);
  ui.share = s.lesson.share_projections;
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
