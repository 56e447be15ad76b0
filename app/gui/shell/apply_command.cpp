// The one place where views' commands change the app's state (apply_command.hpp): the front door, and
// the Applier's cases for the document and its history, the windows and the status line (applier.hpp).
#include "gui/shell/apply_command.hpp"

#include "engine/lessons/presets.hpp"
#include "gui/shell/applier.hpp"
#include "gui/state/compute.hpp"

#include <utility>

namespace attnlab::gui {

void document_changed(Results& results, std::uint64_t& doc_version) {
  results.needs_compute = true;
  ++doc_version;
}

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
  document_changed(state.results, state.doc_version);
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
  document_changed(state.results, state.doc_version);
  state.pipeline.selected = CellRef{};
}

// [SECTION] The Applier: the document, its history, the windows and the status line

void Applier::apply_all(Commands more) {
  for (Command& c : more) std::visit(*this, c);
}

bool Applier::operator()(const Edit& e) { return apply(state, e); }

bool Applier::operator()(const EndMerge&) {
  state.history.merge_key.clear();
  return true;
}

bool Applier::operator()(const Undo&) { return step_history(false); }
bool Applier::operator()(const Redo&) { return step_history(true); }

// Undo (`forward` false) or redo.
bool Applier::step_history(bool forward) {
  const std::optional<std::string> action = forward ? step_redo(state.history, state.doc) : step_undo(state.history, state.doc);
  if (!action) return false;
  document_changed(state.results, state.doc_version);
  state.error.clear();
  state.notice = std::string(forward ? "Redid" : "Undid") + " " + *action;
  return true;
}

bool Applier::operator()(const Resize& r) {
  if (r.value == dim_value(state.doc, r.dim)) return true;
  if (!r.confirmed) {
    if (std::optional<PendingResize> ask = resize_question(state.doc, r.dim, r.value)) {
      state.pending_resize = *ask;
      return false;
    }
  }
  return apply(state, edits::resize(state.doc, r.dim, r.value));
}

bool Applier::operator()(const LoadScenario& c) {
  if (!apply(state, edits::load_scenario(c.scenario, c.name))) return false;
  state.scenario_path = c.path;
  state.pipeline.selected = CellRef{};
  if (!c.steps_aside.empty()) window_open(state.view, c.steps_aside.c_str()) = false;
  return true;
}

bool Applier::load_preset(const std::string& preset, const std::string& action) {
  try {
    return (*this)(LoadScenario{attnlab::load_preset(preset), "", action});
  } catch (const InputError& e) {
    state.error = e.what();
    return false;
  }
}

bool Applier::operator()(const LoadPreset& c) { return load_preset(c.name, "open lesson " + c.name); }

bool Applier::operator()(const ResetLesson&) {
  const LessonOrigin origin = lesson_origin(state.doc.scenario);
  return !origin.preset.empty() && load_preset(origin.preset, "reset lesson");
}

bool Applier::operator()(const RestoreWork& w) {
  const bool restored = apply(state, Edit("restore unsaved work", [doc = w.doc](Document& d) { d = doc; }));
  if (restored) {
    state.scenario_path = w.scenario_path;
    state.notice = "Restored the work from " + (w.saved_at.empty() ? std::string("the last run") : w.saved_at);
  }
  state.history.merge_key.clear();
  return restored;
}

bool Applier::operator()(const SayError& c) {
  state.error = c.sentence;
  return true;
}

bool Applier::operator()(const SayNotice& c) {
  state.notice = c.sentence;
  return true;
}

bool Applier::operator()(const ShowWindow& c) {
  window_open(state.view, c.name.c_str()) = c.open;
  return true;
}

bool Applier::operator()(const FocusPanel& c) {
  state.focus_panel = c.name;
  return true;
}

bool Applier::operator()(const SetView& c) {
  state.view = c.view;
  return true;
}

bool Applier::operator()(const ToggleInputsColumn&) {
  toggle_inputs_column(state.view, state.layout);
  return true;
}

bool Applier::operator()(const Quit&) {
  state.quit_requested = true;
  return true;
}

}  // namespace attnlab::gui
