// The Applier's cases for files (chosen in the dialog, picked by the platform, dropped, opened and
// saved), exports, copies and share links (applier.hpp).
#include "gui/shell/applier.hpp"

#include "gui/dialogs/export_dialog.hpp"
#include "gui/dialogs/file_dialog.hpp"
#include "gui/lessons/exercise_ui.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/persistence/open_save.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/state/share_link.hpp"
#include "gui/training/training_actions.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>

namespace attnlab::gui {

// The dialog asked to choose a file for `c.purpose`; a save of a lesson's card, of the heads' ranking
// or of a trained model proposes its name.
bool Applier::operator()(const ChooseFile& c) {
  FileDialogState& d = state.file_dialog;
  open_file_dialog(d, c.purpose);
  if (c.purpose == FilePurpose::SaveLessonCard) {
    d.card_lesson = c.lesson;
    d.file_name = c.lesson + "-card.pdf";
  }
  if (c.purpose == FilePurpose::SaveHeadLinks) d.file_name = link_csv_name(state.model);
  if (c.purpose == FilePurpose::SaveTrainedModel) d.file_name = std::string(model::task_name(resolved_form(state.training).task.kind)) + "-model";
  return true;
}

bool Applier::operator()(const UseFile& c) {
  const std::string why = use_file(c.purpose, c.path);
  if (c.from_dialog) {
    // The dialog closes once its file was used, or says why it was refused and stays open.
    if (why.empty()) state.file_dialog.purpose = FilePurpose::None;
    else state.file_dialog.error = why;
  }
  return why.empty();
}

bool Applier::operator()(const PickFile& c) {
  if (std::optional<std::string> path = services.platform->pick_file(c.purpose, save_name(c.purpose))) return (*this)(UseFile{c.purpose, *path});
  return true;
}

// A file dropped on the window or chosen from the recent files: a scenario opens at once, a matrix
// asks which of Q, K and V first (InputsUi::drop_path), a model opens in the Model window.
bool Applier::operator()(const OpenFile& c) {
  switch (file_kind(c.path)) {
    case FileKind::Scenario: open_scenario(c.path); break;
    case FileKind::Matrix: state.inputs.drop_path = c.path; break;
    case FileKind::Other:
      if (is_model_path(c.path)) apply_all(open_model_file(state.model, c.path, state.platform.threads));
      else state.error = unknown_file_refusal(c.path);
      break;
  }
  return state.error.empty();
}

bool Applier::operator()(const Deliver& c) {
  state.deliveries.push_back(c.delivery);
  return true;
}

// What a heatmap's right-click menu (or the Export dialog's Copy buttons) asked for: the dialog on
// the stage or the pipeline figure, or the shown result's stage on the clipboard.
bool Applier::operator()(const StageMenu& m) {
  const auto open = [this](Stage stage) {
    open_export_dialog(state.export_ui, stage, state.scenario_path);
    window_open(state.view, "Export") = true;
  };
  const Scenario& shown = shown_scenario(state.results, state.doc);
  switch (m.choice) {
    case HeatmapMenu::None: break;
    case HeatmapMenu::ExportStage: open(m.stage); break;
    case HeatmapMenu::ExportPipeline: open(Stage::Pipeline); break;
    case HeatmapMenu::CopyLatex: state.notice = copy_stage(state.results, shown, m.stage, ExportFormat::Tex, state.export_ui.decimals); break;
    case HeatmapMenu::CopyCsv: state.notice = copy_stage(state.results, shown, m.stage, ExportFormat::Csv, 0); break;
  }
  return true;
}

bool Applier::operator()(const OpenExport& c) { return (*this)(StageMenu{c.stage.value_or(state.export_ui.stage), HeatmapMenu::ExportStage}); }

bool Applier::operator()(const ExportFile& c) {
  const std::optional<std::string> said = export_to_file(state.export_ui, view_context(state, services), *services.platform, c.overwrite);
  if (said) state.notice = *said;
  return said.has_value();
}

bool Applier::operator()(const WindowScreenshot&) {
  request_window_screenshot(state.export_ui, state.view);
  return true;
}

// The link carries the exercise the Lesson view shows, so a teacher can send a class the same one.
bool Applier::operator()(const ShareLink&) {
  const std::optional<std::uint64_t> seed = shown_exercise_seed(state.lesson.exercise, state.doc.scenario);
  const std::string link = services.platform->share_link(share_fragment(scenario_to_json(state.doc.scenario), seed));
  state.notice = "Copied a link to this scenario" + (seed ? " and its exercise (seed " + std::to_string(*seed) + ")" : std::string()) +
                 " (" + std::to_string(link.size()) + " characters); it is in the address bar too";
  return true;
}

// The file chosen for `purpose` used (the dialog's, the picker's): returns why it was refused, empty
// when it was done.
std::string Applier::use_file(FilePurpose purpose, const std::string& path) {
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

void Applier::open_scenario(const std::string& path) {
  try {
    if (!(*this)(scenario_file_to_load(path))) return;
    state.recent_files = with_recent_file(std::move(state.recent_files), path);
    state.notice = "Opened " + path;
  } catch (const InputError& e) {
    state.error = e.what();
  }
}

void Applier::save_scenario(const std::string& path) {
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

void Applier::open_matrix(Which which, const std::string& path) {
  try {
    apply(state, matrix_file_edit(state.doc, which, path));
    if (state.error.empty()) state.recent_files = with_recent_file(std::move(state.recent_files), path);
  } catch (const InputError& e) {
    state.error = e.what();
  }
}

void Applier::save_lesson_card(const std::string& lesson, const std::string& path) {
  try {
    state.notice = save_lesson_card_file(lesson, path);
    state.error.clear();
  } catch (const InputError& e) {
    state.error = e.what();
  }
}

// The name a save proposes where the platform's picker asks for one (the browser's downloads).
std::string Applier::save_name(FilePurpose purpose) const {
  switch (purpose) {
    case FilePurpose::SaveLessonCard: return state.file_dialog.card_lesson + ".pdf";
    case FilePurpose::SaveHeadLinks: return link_csv_name(state.model);
    case FilePurpose::SaveTrainedModel: return trained_model_name(state.training);
    default: return state.scenario_path.empty() ? std::string("scenario.json") : std::filesystem::path(state.scenario_path).filename().string();
  }
}

}  // namespace attnlab::gui
