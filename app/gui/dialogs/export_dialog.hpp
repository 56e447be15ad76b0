// The Export dialog and the heatmaps' right-click menu: the GUI face of engine/figures/export.hpp, so a
// file written here is byte-identical to `attnlab export` with the same options.
#pragma once

#include "engine/figures/export.hpp"
#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"
#include "gui/widgets/heatmap.hpp"

#include <string>

namespace attnlab::gui {

// The Export window (a registry panel of Slot::Window).
void draw_export_dialog(AppState& state, Services& services);

// The engine options the dialog's choices stand for (what `attnlab export` would be given).
ExportOptions export_options(const ExportUi& ui);
// The file the dialog writes: its folder and name, with the chosen format's extension.
std::string export_path(const ExportUi& ui);

// Shows the dialog with `stage` chosen (Stage::Pipeline for the pipeline figure).
void open_export_dialog(AppState& state, Stage stage);
// Writes the dialog's file. An existing file is replaced only when `overwrite`; otherwise the
// dialog asks first. Failures land in state.export_ui.error (one sentence); returns success.
bool export_to_file(AppState& state, Platform& platform, bool overwrite);
// The result's stage on the clipboard as LaTeX (the dialog's decimals) or CSV, with a notice.
void copy_stage(AppState& state, Stage stage, ExportFormat format);
// A stage of the current result as LaTeX (bmatrix, `decimals` digits) or CSV, for the clipboard.
std::string stage_clipboard_text(const AppState& state, Stage stage, ExportFormat format, int decimals);
// Asks the host to write the window's pixels (without the dialog) to a new PNG in the dialog's folder.
void request_window_screenshot(AppState& state);

// What a heatmap's right-click menu asked for, done: the Export dialog on the stage or the pipeline
// figure, or the result's stage copied as LaTeX or CSV.
void handle_heatmap_menu(AppState& state, Stage stage, HeatmapMenu menu);
// Frees the preview texture; call with the GL context current, before it goes away.
void release_export_preview(AppState& state);

}  // namespace attnlab::gui
