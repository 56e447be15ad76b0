// The File, Edit, View and Help menus.
#include "gui/shell/menus.hpp"

#include "engine/figures/colormap.hpp"
#include "gui/base/theme.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/state/history.hpp"

namespace attnlab::gui {

void draw_file_menu(const ViewContext& ctx, const std::string& scenario_path, const std::vector<std::string>& recent_files,
                    Commands& out) {
  if (ImGui::MenuItem("Open scenario...", "Ctrl+O")) out.push_back(ChooseFile{FilePurpose::OpenScenario, {}});
  if (ImGui::MenuItem("Open model...")) {
    // The Model window says where GPT-2 lives in a Hugging Face cache; the dialog picks the file.
    out.push_back(ShowWindow{"Model", true});
    out.push_back(ChooseFile{FilePurpose::OpenModel, {}});
  }
  if (ImGui::MenuItem("Train a model...", "F2")) out.push_back(ShowWindow{"Training", true});
  if (ImGui::MenuItem("Save", "Ctrl+S", false, true)) {
    if (scenario_path.empty()) out.push_back(ChooseFile{FilePurpose::SaveScenario, {}});
    else out.push_back(UseFile{FilePurpose::SaveScenario, scenario_path});
  }
  if (ImGui::MenuItem("Save as...")) out.push_back(ChooseFile{FilePurpose::SaveScenario, {}});
  ImGui::Separator();
  if (ImGui::MenuItem("Open .npy/.csv into Q...")) out.push_back(ChooseFile{FilePurpose::OpenMatrixQ, {}});
  if (ImGui::MenuItem("Open .npy/.csv into K...")) out.push_back(ChooseFile{FilePurpose::OpenMatrixK, {}});
  if (ImGui::MenuItem("Open .npy/.csv into V...")) out.push_back(ChooseFile{FilePurpose::OpenMatrixV, {}});
  ImGui::Separator();
  if (ImGui::MenuItem("Export figure or data...", nullptr, false, ctx.results.has_result)) out.push_back(OpenExport{});
  if (ImGui::MenuItem("Export the pipeline figure...", nullptr, false, ctx.results.has_result)) out.push_back(OpenExport{Stage::Pipeline});
  if (ImGui::MenuItem("Save window screenshot")) out.push_back(WindowScreenshot{});
  ImGui::Separator();
  if (ImGui::BeginMenu("Recent files", !recent_files.empty())) {
    for (const std::string& path : recent_files) {
      want_glyphs(path);
      if (ImGui::MenuItem(path.c_str())) out.push_back(OpenFile{path});
    }
    ImGui::EndMenu();
  }
  ImGui::Separator();
  // The browser: a link that opens this scenario (a page closes like any other tab: no Quit).
  if (ctx.platform.share_links && ImGui::MenuItem("Share link")) out.push_back(ShareLink{});
  if (ctx.platform.quit && ImGui::MenuItem("Quit")) out.push_back(Quit{});
}

void draw_edit_menu(const History& history, Commands& out) {
  const std::string u = "Undo " + undo_name(history), r = "Redo " + redo_name(history);
  if (ImGui::MenuItem(u.c_str(), "Ctrl+Z", false, can_undo(history))) out.push_back(Undo{});
  if (ImGui::MenuItem(r.c_str(), "Ctrl+Shift+Z", false, can_redo(history))) out.push_back(Redo{});
}

void draw_view_menu(ViewSettings& view, bool inputs_hidden, Commands& out) {
  if (ImGui::MenuItem("Presenter mode", "F5", view.presenter)) view.presenter = !view.presenter;
  if (ImGui::MenuItem("Dark theme", "T", view.theme == Theme::Dark)) view.theme = view.theme == Theme::Dark ? Theme::Light : Theme::Dark;
  ImGui::MenuItem("Numbers in cells", nullptr, &view.numbers_in_cells);
  if (ImGui::MenuItem("Inputs column", "I", !inputs_hidden)) out.push_back(ToggleInputsColumn{});
  ImGui::MenuItem("Fold inputs when the pipeline needs room (presenter)", nullptr, &view.inputs_auto_fold);
  ImGui::Separator();
  for (ColormapKind kind : {ColormapKind::Sequential, ColormapKind::Diverging}) {
    const bool seq = kind == ColormapKind::Sequential;
    std::string& chosen = seq ? view.sequential : view.diverging;
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
    ImGui::MenuItem(p.name, std::string_view(p.name) == "Training" ? "F2" : nullptr, &window_open(view, p.name));
  }
}

void draw_help_menu(Commands& out) {
  if (ImGui::MenuItem("Help and shortcuts", "F1")) out.push_back(ShowWindow{"Help", true});
}

}  // namespace attnlab::gui
