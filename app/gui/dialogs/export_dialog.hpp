// The Export dialog and what a heatmap's right-click menu asks of it: the GUI face of
// engine/figures/export.hpp, so a file written here is byte-identical to `attnlab export` with the
// same options.
#pragma once

#include "engine/figures/export.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/platform.hpp"
#include "gui/state/results.hpp"
#include "gui/state/view_context.hpp"
#include "gui/state/view_settings.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace attnlab::gui {

// The Export dialog's choices (the options of `attnlab export`) and its preview.
struct ExportUi {
  Stage stage = Stage::Weights;  // one stage, or Stage::Pipeline (a figure of them all)
  ExportFormat format = ExportFormat::Png;
  bool annotate = true;
  std::string colormap;  // empty: the stage's default
  std::string title;     // empty: the scenario's
  bool fixed_range = false;
  float range_lo = 0.0f, range_hi = 1.0f;
  int width_px = 0;   // PNG width; 0: automatic
  int decimals = 3;   // LaTeX
  std::string directory, file_name;
  bool confirm_overwrite = false;  // the file exists: asking before replacing it
  std::string error;               // one sentence, shown in the dialog
  float actions_height = 0;        // the buttons' and messages' height last frame, kept in view below the choices
  // The preview: the PNG as it will be written, as a GL texture (0: none yet).
  unsigned preview_texture = 0;
  int preview_w = 0, preview_h = 0;
  size_t preview_bytes = 0;
  std::string preview_key, preview_error;
  // "Save window screenshot": the host writes the window's pixels here once the countdown ends.
  std::string screenshot_path;
  int screenshot_countdown = 0;
  bool reopen_after_screenshot = false;
};

// The Export window (a registry panel of Slot::Window). Its choices and preview are its own; what it
// asks of the app is a command: the file written (ExportFile), a stage copied (StageMenu), the
// window's screenshot (WindowScreenshot).
void draw_export_dialog(const ViewContext& ctx, ExportUi& ui, Commands& out);

// The engine options the dialog's choices stand for (what `attnlab export` would be given).
ExportOptions export_options(const ExportUi& ui);
// The file the dialog writes: its folder and name, with the chosen format's extension.
std::string export_path(const ExportUi& ui);

// The dialog's choices set for `stage` (Stage::Pipeline for the pipeline figure), in the folder of
// the scenario's file (`scenario_path`) the first time, else the working folder. The caller shows
// its window.
void open_export_dialog(ExportUi& ui, Stage stage, const std::string& scenario_path);
// Writes the dialog's file of the shown result through `platform` (a file, or the browser's
// download). An existing file is replaced only when `overwrite`; otherwise the dialog asks first
// (ui.confirm_overwrite). Returns the sentence that says where it went; nothing when it asks or
// fails, the failure in ui.error (one sentence).
std::optional<std::string> export_to_file(ExportUi& ui, const ViewContext& ctx, Platform& platform, bool overwrite);
// A stage of the shown result (`shown`: the scenario it was computed from) as LaTeX (bmatrix,
// `decimals` digits) or CSV, for the clipboard; empty without a result.
std::string stage_clipboard_text(const Results& results, const Scenario& shown, Stage stage, ExportFormat format, int decimals);
// That text put on the clipboard; returns the sentence that says so.
std::string copy_stage(const Results& results, const Scenario& shown, Stage stage, ExportFormat format, int decimals);
// Asks the host to write the window's pixels to a new PNG in the dialog's folder: the Export window
// is hidden for the shot (in `view`) and comes back after it (the host's screenshot step).
void request_window_screenshot(ExportUi& ui, ViewSettings& view);
// Frees the preview texture; call with the GL context current, before it goes away.
void release_export_preview(ExportUi& ui);

}  // namespace attnlab::gui
