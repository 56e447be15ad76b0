// The one place where views' commands change the app's state (apply_command.hpp).

// Index of this file:
// [SECTION] The document: edits, undo and redo, loads
// [SECTION] Files: chosen, picked, dropped, opened and saved
// [SECTION] The backend: the GPU on the window's context
// [SECTION] The Applier: each command's effect
// [SECTION] Transitional wrappers
#include "gui/shell/apply_command.hpp"

#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gpu_backend.hpp"
#include "engine/lessons/presets.hpp"
#include "gui/dialogs/export_dialog.hpp"
#include "gui/dialogs/file_dialog.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/model_window/generate_actions.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/persistence/open_save.hpp"
#include "gui/state/compute.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/lessons/walkthrough_steps.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <type_traits>

namespace attnlab::gui {

namespace {

// [SECTION] The document: edits, undo and redo, loads

// After the document changed (an edit, undo, redo, a reset): the result is recomputed and the next
// frame's views see the new version.
void document_changed(AppState& state) {
  state.results.needs_compute = true;
  ++state.doc_version;
}

// Undo (`forward` false) or redo.
bool step_history(AppState& state, bool forward) {
  const std::optional<std::string> action = forward ? step_redo(state.history, state.doc) : step_undo(state.history, state.doc);
  if (!action) return false;
  document_changed(state);
  state.error.clear();
  state.notice = std::string(forward ? "Redid" : "Undid") + " " + *action;
  return true;
}

bool load_scenario(AppState& state, const LoadScenario& c) {
  if (!apply(state, edits::load_scenario(c.scenario, c.name))) return false;
  state.scenario_path = c.path;
  state.pipeline.selected = CellRef{};
  if (!c.steps_aside.empty()) window_open(state.view, c.steps_aside.c_str()) = false;
  return true;
}

bool load_preset(AppState& state, const std::string& preset, const std::string& action) {
  try {
    return load_scenario(state, LoadScenario{attnlab::load_preset(preset), "", action});
  } catch (const InputError& e) {
    state.error = e.what();
    return false;
  }
}

bool reset_lesson(AppState& state) {
  const LessonOrigin origin = lesson_origin(state.doc.scenario);
  return !origin.preset.empty() && load_preset(state, origin.preset, "reset lesson");
}

bool resize(AppState& state, const Resize& r) {
  if (r.value == dim_value(state.doc, r.dim)) return true;
  if (!r.confirmed) {
    if (std::optional<PendingResize> ask = resize_question(state.doc, r.dim, r.value)) {
      state.pending_resize = *ask;
      return false;
    }
  }
  return apply(state, edits::resize(state.doc, r.dim, r.value));
}

// [SECTION] Files: chosen, picked, dropped, opened and saved

// The dialog asked to choose a file for `c.purpose` (the ChooseFile command); a save of the heads'
// ranking or of a trained model proposes its window's name for it.
void choose_file(AppState& state, const ChooseFile& c) {
  FileDialogState& d = state.file_dialog;
  open_file_dialog(d, c.purpose);
  if (c.purpose == FilePurpose::SaveLessonCard) {
    d.card_lesson = c.lesson;
    d.file_name = c.lesson + "-card.pdf";
  }
  if (c.purpose == FilePurpose::SaveHeadLinks) d.file_name = link_csv_name(state.model);
  if (c.purpose == FilePurpose::SaveTrainedModel) d.file_name = std::string(model::task_name(resolved_form(state.training).task.kind)) + "-model";
}

// What a heatmap's right-click menu (or the Export dialog's Copy buttons) asked for: the dialog on
// the stage or the pipeline figure, or the shown result's stage on the clipboard.
void stage_menu(AppState& state, const StageMenu& m) {
  const auto open = [&state](Stage stage) {
    open_export_dialog(state.export_ui, stage, state.scenario_path);
    window_open(state.view, "Export") = true;
  };
  switch (m.choice) {
    case HeatmapMenu::None: break;
    case HeatmapMenu::ExportStage: open(m.stage); break;
    case HeatmapMenu::ExportPipeline: open(Stage::Pipeline); break;
    case HeatmapMenu::CopyLatex:
      state.notice = copy_stage(state.results, shown_scenario(state), m.stage, ExportFormat::Tex, state.export_ui.decimals);
      break;
    case HeatmapMenu::CopyCsv: state.notice = copy_stage(state.results, shown_scenario(state), m.stage, ExportFormat::Csv, 0); break;
  }
}

// [SECTION] The backend: the GPU on the window's context

// The GPU backend on the window's context, or BackendUnavailable saying why.
std::unique_ptr<Backend> gpu_on_window() {
  // Window-less tests have no context; asking GL then would abort inside libepoxy.
  if (glfwGetCurrentContext() == nullptr) throw BackendUnavailable("no GPU backend: there is no OpenGL window context");
  return make_gpu_backend_on_current_context();
}

// [SECTION] The Applier: each command's effect

// Each command's effect, on the state and services it was given.
struct Applier {
  AppState& state;
  Services& services;

  void apply_all(Commands more) {
    for (Command& c : more) std::visit(*this, c);
  }

  bool operator()(const Edit& e) { return apply(state, e); }
  bool operator()(const EndMerge&) {
    state.history.merge_key.clear();
    return true;
  }
  bool operator()(const Undo&) { return step_history(state, false); }
  bool operator()(const Redo&) { return step_history(state, true); }
  bool operator()(const Resize& r) { return resize(state, r); }
  bool operator()(const LoadScenario& c) { return load_scenario(state, c); }
  bool operator()(const LoadPreset& c) { return load_preset(state, c.name, "open lesson " + c.name); }
  bool operator()(const ResetLesson&) { return reset_lesson(state); }
  bool operator()(const SayError& c) {
    state.error = c.sentence;
    return true;
  }
  bool operator()(const SayNotice& c) {
    state.notice = c.sentence;
    return true;
  }
  bool operator()(const ShowWindow& c) {
    window_open(state.view, c.name.c_str()) = c.open;
    return true;
  }
  bool operator()(const FocusPanel& c) {
    state.focus_panel = c.name;
    return true;
  }
  bool operator()(const ChooseFile& c) {
    choose_file(state, c);
    return true;
  }
  bool operator()(const UseFile& c) {
    const std::string why = use_file(c.purpose, c.path);
    if (c.from_dialog) {
      // The dialog closes once its file was used, or says why it was refused and stays open.
      if (why.empty()) state.file_dialog.purpose = FilePurpose::None;
      else state.file_dialog.error = why;
    }
    return why.empty();
  }
  bool operator()(const PickFile& c) {
    if (std::optional<std::string> path = services.platform->pick_file(c.purpose, save_name(c.purpose))) {
      return (*this)(UseFile{c.purpose, *path});
    }
    return true;
  }
  bool operator()(const OpenFile& c) {
    open_file(c.path);
    return state.error.empty();
  }
  bool operator()(const OpenInModelWindow& c) {
    Commands shown = open_model_file(state.model, c, state.platform.threads);
    if (c.show) apply_all(std::move(shown));
    return state.model.error.empty();
  }
  bool operator()(const FollowModelRun& c) {
    poll_model_run(state.model);
    if (c.ranking) refresh_link_ranking(state.model);
    return true;
  }
  bool operator()(const AskWhichHeadsLink& c) {
    return ask_which_heads_link(state.model, c.text, c.query_word, c.key_word, state.platform.threads);
  }
  bool operator()(const ChooseModelHead& c) {
    choose_head(state.model, c.layer, c.head);
    if (c.enlarged) state.model.enlarged = true;
    return true;
  }
  bool operator()(const LiftModelHead& c) {
    choose_head(state.model, c.layer, c.head);
    apply_all(lift_chosen_head(state.model));
    return state.model.error.empty();
  }
  bool operator()(const SetGenerateSettings& c) {
    ModelUi& m = state.model;
    if (!m.model) return false;
    m.generate.sampling.temperature = c.temperature;
    m.generate.count = c.count;
    set_generate_seed(m, c.seed);
    return true;
  }
  bool operator()(const StartTraining& c) {
    if (!c.task.empty()) set_training_task(state.training, c.task);
    if (c.config) set_training_config(state.training, *c.config);
    start_training(state.training, state.platform.threads);
    return state.training.error.empty();
  }
  bool operator()(const LiftTrainingHead& c) {
    lift_training_head(state.training, c.layer, c.head);
    return true;
  }
  bool operator()(const Deliver& c) {
    state.deliveries.push_back(c.delivery);
    return true;
  }
  bool operator()(const Quit&) {
    state.quit_requested = true;
    return true;
  }
  bool operator()(const StageMenu& m) {
    stage_menu(state, m);
    return true;
  }
  bool operator()(const OpenExport& c) {
    stage_menu(state, StageMenu{c.stage.value_or(state.export_ui.stage), HeatmapMenu::ExportStage});
    return true;
  }
  bool operator()(const ExportFile& c) {
    const std::optional<std::string> said = export_to_file(state.export_ui, view_context(state, services), *services.platform, c.overwrite);
    if (said) state.notice = *said;
    return said.has_value();
  }
  bool operator()(const WindowScreenshot&) {
    request_window_screenshot(state.export_ui, state.view);
    return true;
  }
  bool operator()(const StartStreaming&) {
    const std::string why = start_streaming(state.results, state.doc, state.doc_version, active_backend_kind(services), state.platform);
    if (!why.empty()) state.error = why;
    return why.empty();
  }
  bool operator()(const CancelStreaming&) {
    cancel_streaming(state.results);
    return true;
  }
  bool operator()(const SelectBackend& c) { return select_backend(c.choice); }
  bool operator()(const SetView& c) {
    state.view = c.view;
    return true;
  }
  bool operator()(const ToggleInputsColumn&) {
    toggle_inputs_column(state);
    return true;
  }
  bool operator()(const ForgetSelectedCell&) {
    state.pipeline.selected = CellRef{};
    return true;
  }
  bool operator()(const ShareLink&) {
    const std::string link = services.platform->share_link(state.doc.scenario);
    state.notice = "Copied a link to this scenario (" + std::to_string(link.size()) + " characters); it is in the address bar too";
    return true;
  }
  bool operator()(const RecordExercise& c) {
    ExerciseRecord& r = state.exercises[c.lesson];
    if (r.seed != c.seed) r = ExerciseRecord{c.seed, {}};
    for (const std::string& id : c.solved) {
      if (std::find(r.solved.begin(), r.solved.end(), id) == r.solved.end()) r.solved.push_back(id);
    }
    std::sort(r.solved.begin(), r.solved.end());
    return true;
  }
  bool operator()(const SelectCell& c) {
    state.pipeline.selected = c.cell;
    return true;
  }
  bool operator()(const MapDrawn& c) {
    state.pipeline.drawn[static_cast<size_t>(c.stage)] = c.rect;
    return true;
  }
  bool operator()(const LessonMapsListed& c) {
    state.pipeline.lesson_maps_drawn = c.maps;
    return true;
  }
  bool operator()(const StartWalkthrough&) {
    apply_all(walk_start(state.lesson.walk));
    return true;
  }
  bool operator()(const StopWalkthrough&) {
    walk_stop(state.lesson.walk);
    return true;
  }
  bool operator()(const RestoreWork& w) {
    const bool restored = apply(state, Edit("restore unsaved work", [doc = w.doc](Document& d) { d = doc; }));
    if (restored) {
      state.scenario_path = w.scenario_path;
      state.notice = "Restored the work from " + (w.saved_at.empty() ? std::string("the last run") : w.saved_at);
    }
    state.history.merge_key.clear();
    return restored;
  }

  // Switches the compute backend. GPU needs the GL 4.3 context current on this thread (the window's);
  // when it cannot be had the old backend stays and state.error says why (Gpu) or the CPU is used
  // with a notice (Auto).
  bool select_backend(BackendChoice choice) {
    std::unique_ptr<Backend> next;
    try {
      ChosenBackend chosen = choose_backend(choice, gpu_on_window);
      if (!chosen.why_cpu.empty()) state.notice = "auto: using the CPU (" + chosen.why_cpu + ")";
      next = std::move(chosen.backend);
    } catch (const BackendUnavailable& e) {
      state.error = e.what();  // --backend gpu / GPU chosen: the old backend stays
      return false;
    }
    state.scaling.job.reset();  // a running lab used the old backend's sampler
    state.scaling.sampler.reset();
    services.backend = std::move(next);
    state.results.backend_choice = choice;
    state.results.backend_description = services.backend->description();
    state.results.needs_compute = true;
    if (state.error.rfind("no GPU backend", 0) == 0) state.error.clear();
    return true;
  }

  // The file chosen for `purpose` used (the dialog's, the picker's): returns why it was refused, empty
  // when it was done.
  std::string use_file(FilePurpose purpose, const std::string& path) {
    state.error.clear();
    switch (purpose) {
      case FilePurpose::OpenScenario: open_scenario(path); break;
      case FilePurpose::SaveScenario: save_scenario(path); break;
      case FilePurpose::OpenMatrixQ: open_matrix(Which::Q, path); break;
      case FilePurpose::OpenMatrixK: open_matrix(Which::K, path); break;
      case FilePurpose::OpenMatrixV: open_matrix(Which::V, path); break;
      case FilePurpose::SaveLessonCard: save_lesson_card(state.file_dialog.card_lesson, path); break;
      case FilePurpose::OpenModel: apply_all(open_model_file(state.model, path, state.platform.threads)); break;
      case FilePurpose::SaveHeadLinks: {
        Commands delivered;
        const std::string refused = save_link_ranking(state.model, path, delivered);
        apply_all(std::move(delivered));
        return refused;
      }
      case FilePurpose::SaveTrainedModel:
        // Written on the training thread: a refusal known now (the folder exists) keeps the dialog
        // open; one from writing shows in the Training window.
        save_trained_model(state.training, path);
        return state.training.error;
      case FilePurpose::None: break;
    }
    return state.error;
  }
  // A file dropped on the window or chosen from the recent files: a scenario opens at once, a matrix
  // asks which of Q, K and V first (InputsUi::drop_path), a model opens in the Model window.
  void open_file(const std::string& path) {
    switch (file_kind(path)) {
      case FileKind::Scenario: open_scenario(path); break;
      case FileKind::Matrix: state.inputs.drop_path = path; break;
      case FileKind::Other:
        if (is_model_path(path)) apply_all(open_model_file(state.model, path, state.platform.threads));
        else state.error = unknown_file_refusal(path);
        break;
    }
  }
  void open_scenario(const std::string& path) {
    try {
      if (!load_scenario(state, scenario_file_to_load(path))) return;
      state.recent_files = with_recent_file(std::move(state.recent_files), path);
      state.notice = "Opened " + path;
    } catch (const InputError& e) {
      state.error = e.what();
    }
  }
  void save_scenario(const std::string& path) {
    try {
      const std::string said = save_scenario_file(state.doc, path);
      state.scenario_path = path;
      state.recent_files = with_recent_file(std::move(state.recent_files), path);
      state.error.clear();
      state.notice = said;
      state.deliveries.push_back({DeliveryKind::Scenario, path});
    } catch (const InputError& e) {
      state.error = e.what();
    }
  }
  void open_matrix(Which which, const std::string& path) {
    try {
      apply(state, matrix_file_edit(state.doc, which, path));
      if (state.error.empty()) state.recent_files = with_recent_file(std::move(state.recent_files), path);
    } catch (const InputError& e) {
      state.error = e.what();
    }
  }
  void save_lesson_card(const std::string& lesson, const std::string& path) {
    try {
      state.notice = save_lesson_card_file(lesson, path);
      state.error.clear();
    } catch (const InputError& e) {
      state.error = e.what();
    }
  }
  // The name a save proposes where the platform's picker asks for one (the browser's downloads).
  std::string save_name(FilePurpose purpose) const {
    switch (purpose) {
      case FilePurpose::SaveLessonCard: return state.file_dialog.card_lesson + ".pdf";
      case FilePurpose::SaveHeadLinks: return link_csv_name(state.model);
      case FilePurpose::SaveTrainedModel: return trained_model_name(state.training);
      default:
        return state.scenario_path.empty() ? std::string("scenario.json") : std::filesystem::path(state.scenario_path).filename().string();
    }
  }
};

}  // namespace

bool apply(AppState& state, Services& services, Command command) { return std::visit(Applier{state, services}, command); }

void apply(AppState& state, Services& services, Commands& commands) {
  // A command may push no further commands, but take the list first all the same: applying one can
  // draw nothing, yet it must never see the list it is in change under it.
  Commands taken = std::move(commands);
  commands.clear();
  for (Command& c : taken) apply(state, services, std::move(c));
}

bool apply(AppState& state, const Edit& edit) {
  auto tried = try_edit(state.doc, edit);
  if (std::string* why = std::get_if<std::string>(&tried)) {
    state.error = std::move(*why);
    return false;
  }
  std::optional<Document>& next = std::get<std::optional<Document>>(tried);
  if (!next) return false;
  record(state.history, state.doc, std::move(*next), edit.name, edit.merge_key);
  document_changed(state);
  state.error.clear();
  state.notice.clear();
  return true;
}

void recompute_if_needed(AppState& state, Services& services) {
  const Recomputed said = recompute_if_needed(state.results, state.doc, state.doc_version, *services.backend, state.platform);
  if (!said.notice.empty()) state.notice = said.notice;
  if (said.error.empty()) return;
  state.error = said.error;
  if (!said.roll_back) return;
  // The refused edit's undo entry stays (undoing it is harmless).
  state.doc = *state.results.computed_doc;
  ++state.doc_version;
  state.results.computed_version = state.doc_version;
  state.history.merge_key.clear();
  state.error += "; the edit was not applied";
}

void reset_document(AppState& state, Scenario scenario, std::string path) {
  state.doc.scenario = std::move(scenario);
  const Scenario& s = state.doc.scenario;
  state.doc.self_attention = s.Q.rows() == s.K.rows() &&
                             display_tokens(s.query_tokens, s.Q.rows()) == display_tokens(s.key_tokens, s.K.rows());
  state.scenario_path = std::move(path);
  state.history = History{};
  document_changed(state);
  state.pipeline.selected = CellRef{};
}

// [SECTION] Transitional wrappers

bool apply(AppState& state, std::string_view name, const std::function<void(Document&)>& edit, std::string_view merge_key) {
  return apply(state, Edit(std::string(name), edit, std::string(merge_key)));
}

void end_merge(AppState& state) { state.history.merge_key.clear(); }
bool can_undo(const AppState& state) { return can_undo(state.history); }
bool can_redo(const AppState& state) { return can_redo(state.history); }
std::string undo_name(const AppState& state) { return undo_name(state.history); }
std::string redo_name(const AppState& state) { return redo_name(state.history); }
void undo(AppState& state) { step_history(state, false); }
void redo(AppState& state) { step_history(state, true); }
void open_file_dialog(AppState& state, FilePurpose purpose) { choose_file(state, ChooseFile{purpose, {}}); }
void handle_heatmap_menu(AppState& state, Stage stage, HeatmapMenu menu) { stage_menu(state, StageMenu{stage, menu}); }

namespace actions {

void set_normalizer(AppState& s, Normalizer n) { apply(s, edits::set_normalizer(n)); }
void load_scenario(AppState& s, const Scenario& scenario, const std::string& path, const std::string& name) {
  attnlab::gui::load_scenario(s, LoadScenario{scenario, path, name});
}
void load_preset(AppState& s, const std::string& preset_name) { attnlab::gui::load_preset(s, preset_name, "open lesson " + preset_name); }
void reset_lesson(AppState& s) { attnlab::gui::reset_lesson(s); }

}  // namespace actions

}  // namespace attnlab::gui
