// The Applier's cases for the features (applier.hpp): the compute backend, the lab's maps, selection
// and streaming run, the Model and Training windows, the lessons' walk-through and exercises.
#include "gui/shell/applier.hpp"

#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gpu_backend.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/model_window/generate_actions.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/state/compute.hpp"
#include "gui/training/training_actions.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <memory>
#include <utility>

namespace attnlab::gui {

namespace {

// The GPU backend on the window's context, or BackendUnavailable saying why.
std::unique_ptr<Backend> gpu_on_window() {
  // Window-less tests have no context; asking GL then would abort inside libepoxy.
  if (glfwGetCurrentContext() == nullptr) throw BackendUnavailable("no GPU backend: there is no OpenGL window context");
  return make_gpu_backend_on_current_context();
}

}  // namespace

// Switches the compute backend. GPU needs the GL 4.3 context current on this thread (the window's);
// when it cannot be had the old backend stays and state.error says why (Gpu) or the CPU is used
// with a notice (Auto).
bool Applier::operator()(const SelectBackend& c) {
  std::unique_ptr<Backend> next;
  try {
    ChosenBackend chosen = choose_backend(c.choice, gpu_on_window);
    if (!chosen.why_cpu.empty()) state.notice = "auto: using the CPU (" + chosen.why_cpu + ")";
    next = std::move(chosen.backend);
  } catch (const BackendUnavailable& e) {
    state.error = e.what();  // --backend gpu / GPU chosen: the old backend stays
    return false;
  }
  state.scaling.job.reset();  // a running lab used the old backend's sampler
  state.scaling.sampler.reset();
  services.backend = std::move(next);
  state.results.backend_choice = c.choice;
  state.results.backend_description = services.backend->description();
  state.results.needs_compute = true;
  if (state.error.rfind("no GPU backend", 0) == 0) state.error.clear();
  return true;
}

bool Applier::operator()(const StartStreaming&) {
  const std::string why = start_streaming(state.results, state.doc, state.doc_version, active_backend_kind(services), state.platform);
  if (!why.empty()) state.error = why;
  return why.empty();
}

bool Applier::operator()(const CancelStreaming&) {
  cancel_streaming(state.results);
  return true;
}

bool Applier::operator()(const SelectCell& c) {
  state.pipeline.selected = c.cell;
  return true;
}

bool Applier::operator()(const ForgetSelectedCell&) {
  state.pipeline.selected = CellRef{};
  return true;
}

bool Applier::operator()(const MapDrawn& c) {
  state.pipeline.drawn[static_cast<size_t>(c.stage)] = c.rect;
  return true;
}

bool Applier::operator()(const LessonMapsListed& c) {
  state.pipeline.lesson_maps_drawn = c.maps;
  return true;
}

bool Applier::operator()(const OpenInModelWindow& c) {
  Commands shown = open_model_file(state.model, c, state.platform.threads);
  if (c.show) apply_all(std::move(shown));
  return state.model.error.empty();
}

bool Applier::operator()(const FollowModelRun& c) {
  poll_model_run(state.model);
  if (c.ranking) refresh_link_ranking(state.model);
  return true;
}

bool Applier::operator()(const AskWhichHeadsLink& c) {
  return ask_which_heads_link(state.model, c.text, c.query_word, c.key_word, state.platform.threads);
}

bool Applier::operator()(const ChooseModelHead& c) {
  choose_head(state.model, c.layer, c.head);
  if (c.enlarged) state.model.enlarged = true;
  return true;
}

bool Applier::operator()(const LiftModelHead& c) {
  choose_head(state.model, c.layer, c.head);
  apply_all(lift_chosen_head(state.model));
  return state.model.error.empty();
}

bool Applier::operator()(const SetGenerateSettings& c) {
  ModelUi& m = state.model;
  if (!m.model) return false;
  m.generate.sampling.temperature = c.temperature;
  m.generate.count = c.count;
  set_generate_seed(m, c.seed);
  return true;
}

bool Applier::operator()(const StartTraining& c) {
  if (!c.task.empty()) set_training_task(state.training, c.task);
  if (c.config) set_training_config(state.training, *c.config);
  start_training(state.training, state.platform.threads);
  return state.training.error.empty();
}

bool Applier::operator()(const LiftTrainingHead& c) {
  lift_training_head(state.training, c.layer, c.head);
  return true;
}

bool Applier::operator()(const StartWalkthrough&) {
  apply_all(walk_start(state.lesson.walk));
  return true;
}

bool Applier::operator()(const StopWalkthrough&) {
  walk_stop(state.lesson.walk);
  return true;
}

bool Applier::operator()(const RecordExercise& c) {
  ExerciseRecord& r = state.exercises[c.lesson];
  if (r.seed != c.seed) r = ExerciseRecord{c.seed, {}};
  for (const std::string& id : c.solved) {
    if (std::find(r.solved.begin(), r.solved.end(), id) == r.solved.end()) r.solved.push_back(id);
  }
  std::sort(r.solved.begin(), r.solved.end());
  return true;
}

}  // namespace attnlab::gui
