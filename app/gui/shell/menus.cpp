// The File, Edit, View and Help menus.
#include "gui/shell/menus.hpp"

#include "engine/figures/colormap.hpp"
#include "gui/base/theme.hpp"
#include "gui/dialogs/export_dialog.hpp"
#include "gui/dialogs/file_dialog.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/shell/apply_command.hpp"

namespace attnlab::gui {

void draw_file_menu(AppState& state, Services& services) {
  if (ImGui::MenuItem("Open scenario...", "Ctrl+O")) open_file_dialog(state, FilePurpose::OpenScenario);
  if (ImGui::MenuItem("Open model...")) {
    // The Model window says where GPT-2 lives in a Hugging Face cache; the dialog picks the file.
    window_open(state.view, "Model") = true;
    open_file_dialog(state, FilePurpose::OpenModel);
  }
  if (ImGui::MenuItem("Train a model...", "F2")) window_open(state.view, "Training") = true;
  if (ImGui::MenuItem("Save", "Ctrl+S", false, true)) {
    if (state.scenario_path.empty()) open_file_dialog(state, FilePurpose::SaveScenario);
    else apply(state, services, UseFile{FilePurpose::SaveScenario, state.scenario_path});
  }
  if (ImGui::MenuItem("Save as...")) open_file_dialog(state, FilePurpose::SaveScenario);
  ImGui::Separator();
  if (ImGui::MenuItem("Open .npy/.csv into Q...")) open_file_dialog(state, FilePurpose::OpenMatrixQ);
  if (ImGui::MenuItem("Open .npy/.csv into K...")) open_file_dialog(state, FilePurpose::OpenMatrixK);
  if (ImGui::MenuItem("Open .npy/.csv into V...")) open_file_dialog(state, FilePurpose::OpenMatrixV);
  ImGui::Separator();
  if (ImGui::MenuItem("Export figure or data...", nullptr, false, state.results.has_result)) {
    apply(state, services, OpenExport{});
  }
  if (ImGui::MenuItem("Export the pipeline figure...", nullptr, false, state.results.has_result)) {
    apply(state, services, OpenExport{Stage::Pipeline});
  }
  if (ImGui::MenuItem("Save window screenshot")) apply(state, services, WindowScreenshot{});
  ImGui::Separator();
  if (ImGui::BeginMenu("Recent files", !state.recent_files.empty())) {
    const std::vector<std::string> recent = state.recent_files;  // opening reorders the list
    for (const std::string& path : recent) {
      want_glyphs(path);
      if (ImGui::MenuItem(path.c_str())) apply(state, services, OpenFile{path});
    }
    ImGui::EndMenu();
  }
  ImGui::Separator();
  // The browser: a link that opens this scenario (a page closes like any other tab: no Quit).
  if (state.platform.share_links && ImGui::MenuItem("Share link")) {
    const std::string link = services.platform->share_link(state.doc.scenario);
    state.notice = "Copied a link to this scenario (" + std::to_string(link.size()) +
                   " characters); it is in the address bar too";
  }
  if (state.platform.quit && ImGui::MenuItem("Quit")) state.quit_requested = true;
}

void draw_edit_menu(AppState& state, Services& services) {
  (void)services;
  const std::string u = "Undo " + undo_name(state), r = "Redo " + redo_name(state);
  if (ImGui::MenuItem(u.c_str(), "Ctrl+Z", false, can_undo(state))) undo(state);
  if (ImGui::MenuItem(r.c_str(), "Ctrl+Shift+Z", false, can_redo(state))) redo(state);
}

void draw_view_menu(AppState& state, Services& services) {
  (void)services;
  if (ImGui::MenuItem("Presenter mode", "F5", state.view.presenter)) {
    state.view.presenter = !state.view.presenter;
    state.style_dirty = true;
  }
  if (ImGui::MenuItem("Dark theme", "T", state.view.theme == Theme::Dark)) {
    state.view.theme = state.view.theme == Theme::Dark ? Theme::Light : Theme::Dark;
    state.style_dirty = true;
  }
  ImGui::MenuItem("Numbers in cells", nullptr, &state.view.numbers_in_cells);
  if (ImGui::MenuItem("Inputs column", "I", !inputs_column_hidden(state))) toggle_inputs_column(state);
  ImGui::MenuItem("Fold inputs when the pipeline needs room (presenter)", nullptr, &state.view.inputs_auto_fold);
  ImGui::Separator();
  for (ColormapKind kind : {ColormapKind::Sequential, ColormapKind::Diverging}) {
    const bool seq = kind == ColormapKind::Sequential;
    std::string& chosen = seq ? state.view.sequential : state.view.diverging;
    if (ImGui::BeginMenu(seq ? "Colormap: weights, saturation" : "Colormap: scores, logits, output")) {
      for (const Colormap& m : colormaps()) {
        if (m.kind != kind) continue;
        const std::string label = m.name + (m.colorblind_safe ? "  (colour-blind safe)" : "");
        if (ImGui::MenuItem(label.c_str(), nullptr, chosen == m.name)) chosen = m.name;
      }
      ImGui::EndMenu();
    }
  }
  ImGui::Separator();
  for (const PanelInfo& p : panel_list()) {
    if (p.slot != Slot::Window) continue;
    ImGui::MenuItem(p.name, std::string_view(p.name) == "Training" ? "F2" : nullptr, &window_open(state.view, p.name));
  }
}

void draw_help_menu(AppState& state, Services& services) {
  (void)services;
  if (ImGui::MenuItem("Help and shortcuts", "F1")) window_open(state.view, "Help") = true;
}

}  // namespace attnlab::gui
