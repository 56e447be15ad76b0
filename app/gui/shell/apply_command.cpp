// The one place where views' commands change the app's state (apply_command.hpp).
#include "gui/shell/apply_command.hpp"

#include "engine/lessons/presets.hpp"
#include "gui/dialogs/export_dialog.hpp"
#include "gui/dialogs/file_dialog.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/model_window/generate_actions.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/persistence/open_save.hpp"
#include "gui/training/training_actions.hpp"

#include <type_traits>

namespace attnlab::gui {

namespace {

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

// Each command's effect, on the state it was given. `services` is null for the transitional apply
// without them (no command needs them yet).
struct Applier {
  AppState& state;
  Services* services;

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
    if (c.purpose == FilePurpose::SaveLessonCard) {
      state.file_dialog.card_lesson = c.lesson;
      state.file_dialog.file_name = c.lesson + "-card.pdf";
    }
    open_file_dialog(state, c.purpose);
    return true;
  }
  bool operator()(const OpenFile& c) {
    open_dropped_file(state, c.path);
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
    handle_heatmap_menu(state, m.stage, m.choice);
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
};

}  // namespace

bool apply(AppState& state, Services& services, Command command) { return std::visit(Applier{state, &services}, command); }

void apply(AppState& state, Services& services, Commands& commands) {
  // A command may push no further commands, but take the list first all the same: applying one can
  // draw nothing, yet it must never see the list it is in change under it.
  Commands taken = std::move(commands);
  commands.clear();
  for (Command& c : taken) apply(state, services, std::move(c));
}

void apply(AppState& state, Commands commands) {
  for (Command& c : commands) std::visit(Applier{state, nullptr}, c);
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

namespace actions {

void set_scale(AppState& s, bool on) { apply(s, edits::set_scale(on)); }
void toggle_scale(AppState& s) { apply(s, edits::toggle_scale(s.doc)); }
void set_temperature(AppState& s, double t) { apply(s, edits::set_temperature(t)); }
void set_normalizer(AppState& s, Normalizer n) { apply(s, edits::set_normalizer(n)); }
void set_rope(AppState& s, bool on) { apply(s, edits::set_rope(s.doc, on)); }
void toggle_rope(AppState& s) { apply(s, edits::toggle_rope(s.doc)); }
void set_rope_theta(AppState& s, double theta) { apply(s, edits::set_rope_theta(s.doc, theta)); }
void set_rope_position(AppState& s, Which w, int row, long long position) { apply(s, edits::set_rope_position(s.doc, w, row, position)); }
void shift_rope_positions(AppState& s, long long delta) { apply(s, edits::shift_rope_positions(s.doc, delta)); }
void set_mask_kind(AppState& s, MaskKind kind) { apply(s, edits::set_mask_kind(kind)); }
void set_mask_param(AppState& s, int value) { apply(s, edits::set_mask_param(value)); }
void cycle_mask(AppState& s) { apply(s, edits::cycle_mask(s.doc)); }
void toggle_blocked(AppState& s, int i, int j) { apply(s, edits::toggle_blocked(i, j)); }
void set_cell(AppState& s, Which w, int row, int col, float value) { apply(s, edits::set_cell(w, row, col, value)); }
bool resize(AppState& s, Dim dim, int value, bool confirmed) { return attnlab::gui::resize(s, Resize{dim, value, confirmed}); }
void set_self_attention(AppState& s, bool on) { apply(s, edits::set_self_attention(on)); }
void fill(AppState& s, FillTarget target, Fill kind, float sigma, int seed) { apply(s, edits::fill(target, kind, sigma, seed)); }
void set_query_token(AppState& s, int i, const std::string& text) { apply(s, edits::set_query_token(i, text)); }
void set_key_token(AppState& s, int j, const std::string& text) { apply(s, edits::set_key_token(j, text)); }
void tokens_from_sentence(AppState& s, const std::string& sentence) { apply(s, edits::tokens_from_sentence(s.doc, sentence)); }
void load_scenario(AppState& s, const Scenario& scenario, const std::string& path, const std::string& name) {
  attnlab::gui::load_scenario(s, LoadScenario{scenario, path, name});
}
void load_preset(AppState& s, const std::string& preset_name) { attnlab::gui::load_preset(s, preset_name, "open lesson " + preset_name); }
void reset_lesson(AppState& s) { attnlab::gui::reset_lesson(s); }
void load_matrix(AppState& s, Which w, const Matrix& M, const std::string& file_name) { apply(s, edits::load_matrix(s.doc, w, M, file_name)); }

}  // namespace actions

}  // namespace attnlab::gui
