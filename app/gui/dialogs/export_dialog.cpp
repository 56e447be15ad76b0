// The Export dialog: one stage or the pipeline as PNG/SVG/PDF or CSV/JSON/NPY/LaTeX, with a live
// preview that is the PNG exactly as it will be written, Copy as LaTeX / CSV, and a window
// screenshot. Everything goes through engine/figures/export.hpp, as the CLI does.
#include "gui/dialogs/export_dialog.hpp"

#include "engine/figures/colormap.hpp"
#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include "gui/base/gl_api.hpp"
#include <imgui.h>
#include <imgui_stdlib.h>
#include <stb_image.h>

#include <algorithm>
#include <filesystem>
#include <memory>

namespace attnlab::gui {

namespace fs = std::filesystem;

namespace {

constexpr Stage kStages[] = {Stage::Scores, Stage::Logits, Stage::Weights,
                                      Stage::Output, Stage::Saturation, Stage::Pipeline};
constexpr ExportFormat kFormats[] = {ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf, ExportFormat::Csv,
                                     ExportFormat::Json, ExportFormat::Npy, ExportFormat::Tex};
constexpr const char* kFormatLabels[] = {"PNG image", "SVG (editable in Inkscape)", "PDF", "CSV", "JSON", "NumPy .npy",
                                         "LaTeX bmatrix"};

void set_extension(ExportUi& ui) {
  fs::path name = ui.file_name.empty() ? fs::path(std::string(stage_name(ui.stage))) : fs::path(ui.file_name);
  name.replace_extension("." + std::string(export_format_name(ui.format)));
  ui.file_name = name.string();
}

std::string preview_key(const Results& results, const ExportOptions& o) {
  std::string key = std::to_string(results.result_version) + "|" + std::string(stage_name(o.stage)) + "|" +
                    (o.figure.annotate ? "a" : "-") + "|" + o.figure.colormap + "|" + o.figure.title + "|" +
                    std::to_string(o.width_px) + "|" + std::to_string(o.figure.decimals);
  if (o.figure.range) key += "|" + std::to_string(o.figure.range->first) + ":" + std::to_string(o.figure.range->second);
  return key;
}

// Renders the PNG the dialog would write and uploads it as the preview texture.
void update_preview(const ViewContext& ctx, ExportUi& ui, const ExportOptions& o) {
  const std::string key = preview_key(ctx.results, o);
  if (key == ui.preview_key) return;
  ui.preview_key = key;
  ui.preview_error.clear();
  try {
    const std::string png = render_png_bytes(ctx.shown(), ctx.results.result, o);
    int w = 0, h = 0, channels = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
        stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(png.data()), static_cast<int>(png.size()), &w, &h, &channels, 4),
        stbi_image_free);
    if (!pixels) throw std::runtime_error("the preview could not be decoded");
    ui.preview_w = w;
    ui.preview_h = h;
    ui.preview_bytes = png.size();
    if (!ctx.services.renderer) return;  // no GL context (tests): sizes only
    if (ui.preview_texture == 0) glGenTextures(1, &ui.preview_texture);
    fill_clamped_texture(ui.preview_texture, GL_LINEAR, GL_RGBA8, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.get(), 1);
  } catch (const std::exception& e) {
    ui.preview_error = e.what();
    ui.preview_w = ui.preview_h = 0;
  }
}

// Validates what the widgets hold; returns the sentence that stops an export, or empty.
std::string check_choices(const ExportUi& ui, const Results& results) {
  if (!results.has_result) return "Nothing to export yet: the scenario has no result.";
  if (ui.fixed_range && !(ui.range_lo < ui.range_hi)) return "Range: the low end must be below the high end.";
  if (ui.width_px != 0 && (ui.width_px < 16 || ui.width_px > 20000)) return "Width: from 16 to 20000 pixels, or 0 for automatic.";
  if (ui.stage == Stage::Pipeline && !is_figure_format(ui.format)) {
    return "The pipeline is a figure: choose PNG, SVG or PDF, or one stage for data.";
  }
  if (ui.file_name.empty()) return "Give the file a name.";
  return {};
}

}  // namespace

ExportOptions export_options(const ExportUi& ui) {
  ExportOptions o;
  o.stage = ui.stage;
  o.figure.annotate = ui.annotate;
  o.figure.colormap = ui.colormap;
  o.figure.title = ui.title;
  if (ui.fixed_range) o.figure.range = std::make_pair(static_cast<double>(ui.range_lo), static_cast<double>(ui.range_hi));
  o.width_px = ui.width_px;
  o.decimals = ui.decimals;
  return o;
}

std::string export_path(const ExportUi& ui) { return (fs::path(ui.directory.empty() ? "." : ui.directory) / ui.file_name).string(); }

void open_export_dialog(ExportUi& ui, Stage stage, const std::string& scenario_path) {
  ui.stage = stage;
  if (stage == Stage::Pipeline && !is_figure_format(ui.format)) ui.format = ExportFormat::Png;
  if (ui.directory.empty()) {
    std::error_code ec;
    ui.directory = scenario_path.empty() ? fs::current_path(ec).string() : fs::path(scenario_path).parent_path().string();
    if (ui.directory.empty()) ui.directory = ".";
  }
  ui.file_name = std::string(stage_name(stage));
  set_extension(ui);
  ui.error.clear();
  ui.confirm_overwrite = false;
}

std::optional<std::string> export_to_file(ExportUi& ui, const ViewContext& ctx, Platform& platform, bool overwrite) {
  ui.error = check_choices(ui, ctx.results);
  if (!ui.error.empty()) return std::nullopt;
  const std::string path = export_path(ui);
  ExportOptions o = export_options(ui);
  o.force = overwrite;
  std::string said;
  try {
    std::error_code ec;
    if (ctx.platform.folders && !overwrite && fs::exists(path, ec)) {
      ui.confirm_overwrite = true;  // the dialog asks; nothing is written yet
      return std::nullopt;
    }
    said = platform.export_stage(ctx.shown(), ctx.results.result, o, path);
  } catch (const InputError& e) {
    ui.error = e.what();
    return std::nullopt;
  } catch (const std::exception& e) {
    ui.error = std::string("The export failed: ") + e.what();
    return std::nullopt;
  }
  ui.confirm_overwrite = false;
  return said;
}

std::string stage_clipboard_text(const Results& results, const Scenario& shown, Stage stage, ExportFormat format, int decimals) {
  if (!results.has_result) return {};
  const StageData d = stage_data(shown, results.result, stage);
  return format == ExportFormat::Tex ? latex_bmatrix(d.values, decimals) : stage_csv(d);
}

void request_window_screenshot(ExportUi& ui, ViewSettings& view) {
  const fs::path dir = ui.directory.empty() ? fs::path(".") : fs::path(ui.directory);
  std::error_code ec;
  for (int k = 1; k < 10000; ++k) {
    const fs::path candidate = dir / ("attnlab-window-" + std::to_string(k) + ".png");
    if (!fs::exists(candidate, ec)) {
      ui.screenshot_path = candidate.string();
      break;
    }
  }
  // The dialog closes for the shot and comes back after it: the next frame is drawn without
  // it, then its pixels are read (see the host loop).
  ui.screenshot_countdown = 2;
  bool& open = window_open(view, "Export");
  ui.reopen_after_screenshot = open;
  open = false;
}

std::string copy_stage(const Results& results, const Scenario& shown, Stage s, ExportFormat format, int decimals) {
  const bool tex = format == ExportFormat::Tex;
  ImGui::SetClipboardText(stage_clipboard_text(results, shown, s, format, decimals).c_str());
  return "Copied " + std::string(stage_name(s)) + (tex ? " as LaTeX" : " as CSV");
}

void release_export_preview(ExportUi& ui) {
  if (ui.preview_texture != 0) glDeleteTextures(1, &ui.preview_texture);
  ui.preview_texture = 0;
  ui.preview_key.clear();
}

namespace {

// The choices: stage, format, where, title, numbers, colormap, range, PNG width, LaTeX decimals.
void draw_export_choices(const ViewContext& ctx, ExportUi& ui, Commands& out) {
  const float fs = ImGui::GetFontSize();
  ImGui::PushItemWidth(-FLT_MIN);
  ImGui::TextUnformatted("Stage");
  const char* stage_preview = stage_name(ui.stage).data();
  if (ImGui::BeginCombo("##stage", stage_preview)) {
    for (const Stage st : kStages) {
      if (ImGui::Selectable(stage_name(st).data(), ui.stage == st)) {
        ui.stage = st;
        ui.file_name = std::string(stage_name(st));
        set_extension(ui);
      }
    }
    ImGui::EndCombo();
  }
  ImGui::TextUnformatted("Format");
  int format = static_cast<int>(std::find(std::begin(kFormats), std::end(kFormats), ui.format) - std::begin(kFormats));
  if (ImGui::Combo("##format", &format, kFormatLabels, 7)) {
    ui.format = kFormats[format];
    set_extension(ui);
  }
  if (ctx.platform.folders) {  // the browser saves downloads where it keeps them
    ImGui::TextUnformatted("Folder");
    ImGui::InputText("##folder", &ui.directory);
  }
  ImGui::TextUnformatted("File name");
  if (ImGui::InputText("##file", &ui.file_name, ImGuiInputTextFlags_EnterReturnsTrue)) out.push_back(ExportFile{false});
  ImGui::Separator();
  ImGui::TextUnformatted("Title (empty: the scenario's)");
  ImGui::InputText("##title", &ui.title);
  ImGui::Checkbox("Numbers in cells", &ui.annotate);
  ImGui::TextUnformatted("Colormap");
  if (ImGui::BeginCombo("##colormap", ui.colormap.empty() ? "stage default" : ui.colormap.c_str())) {
    if (ImGui::Selectable("stage default", ui.colormap.empty())) ui.colormap.clear();
    for (const Colormap& m : colormaps()) {
      const std::string label = m.name + (m.kind == ColormapKind::Diverging ? "  (diverging)" : "");
      if (ImGui::Selectable(label.c_str(), ui.colormap == m.name)) ui.colormap = m.name;
    }
    ImGui::EndCombo();
  }
  ImGui::Checkbox("Fixed range (share one scale)", &ui.fixed_range);
  if (ui.fixed_range) {
    ImGui::PushItemWidth(fs * 10.5f);
    ImGui::InputFloat("##lo", &ui.range_lo, 0, 0, widget_significant(4).c_str());
    ImGui::SameLine();
    ImGui::InputFloat("##hi", &ui.range_hi, 0, 0, widget_significant(4).c_str());
    ImGui::PopItemWidth();
  }
  ImGui::TextUnformatted("PNG width in pixels (0: automatic)");
  ImGui::InputInt("##width", &ui.width_px, 100, 500);
  ImGui::TextUnformatted("LaTeX decimals");
  ImGui::SliderInt("##decimals", &ui.decimals, 0, 6);
  ImGui::PopItemWidth();
  ImGui::Separator();

}

// Export, the copies and the window screenshot; the overwrite question; why the choices are refused.
void draw_export_actions(const ViewContext& ctx, ExportUi& ui, Commands& out) {
  const std::string problem = check_choices(ui, ctx.results);
  ImGui::BeginDisabled(!problem.empty());
  if (ImGui::Button("Export")) out.push_back(ExportFile{false});
  ImGui::EndDisabled();
  // The buttons flow onto a new line where the column is narrow (a projector's font).
  same_line_if_fits(button_width("Copy as LaTeX"));
  const bool one_stage = ui.stage != Stage::Pipeline && ctx.results.has_result;
  ImGui::BeginDisabled(!one_stage);
  if (ImGui::Button("Copy as LaTeX")) out.push_back(StageMenu{ui.stage, HeatmapMenu::CopyLatex});
  same_line_if_fits(button_width("Copy as CSV"));
  if (ImGui::Button("Copy as CSV")) out.push_back(StageMenu{ui.stage, HeatmapMenu::CopyCsv});
  ImGui::EndDisabled();
  if (ImGui::Button("Save window screenshot")) out.push_back(WindowScreenshot{});

  if (ui.confirm_overwrite) {
    text_wrapped("%s exists. Replace it?", export_path(ui).c_str());
    if (ImGui::Button("Replace")) out.push_back(ExportFile{true});
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ui.confirm_overwrite = false;
  }
  error_text(palette(ctx.view).error, !ui.error.empty() ? ui.error : problem);

}

// The PNG as it will be written, fitted into the panel and never enlarged.
void draw_export_preview(const ViewContext& ctx, ExportUi& ui) {
  const float fs = ImGui::GetFontSize();
  ImGui::BeginChild("export_preview", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  if (ctx.results.has_result) {
    ExportOptions o = export_options(ui);
    bool previewable = ui.fixed_range ? ui.range_lo < ui.range_hi : true;
    if (previewable) {
      try {
        if (!ui.colormap.empty()) colormap(ui.colormap);
        update_preview(ctx, ui, o);
      } catch (const InputError& e) {
        ui.preview_error = e.what();
      }
    }
    if (!ui.preview_error.empty()) {
      text_wrapped("%s", ui.preview_error.c_str());
    } else if (ui.preview_texture != 0 && ui.preview_w > 0) {
      // Fit the preview into the panel, never enlarged: it is the PNG as it will be written.
      const ImVec2 avail = ImGui::GetContentRegionAvail();
      const float scale = std::min({1.0f, avail.x / static_cast<float>(ui.preview_w), (avail.y - fs * 1.6f) / static_cast<float>(ui.preview_h)});
      ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(ui.preview_texture)),
                   ImVec2(static_cast<float>(ui.preview_w) * std::max(scale, 0.05f), static_cast<float>(ui.preview_h) * std::max(scale, 0.05f)));
      ImGui::TextDisabled("%d × %d px PNG, %zu bytes%s", ui.preview_w, ui.preview_h, ui.preview_bytes,
                          is_figure_format(ui.format) ? "" : " (the data file holds the numbers)");
    } else if (ui.preview_w > 0) {
      ImGui::TextDisabled("%d × %d px PNG (no GL preview here)", ui.preview_w, ui.preview_h);
    }
  } else {
    ImGui::TextDisabled("No result to preview.");
  }
  ImGui::EndChild();
}

}  // namespace

void draw_export_dialog(const ViewContext& ctx, ExportUi& ui, Commands& out) {
  const float fs = ImGui::GetFontSize();
  // The host opens windows at a default size; a preview wants more room.
  if (ImGui::IsWindowAppearing()) {
    const ImVec2 screen = ImGui::GetMainViewport()->WorkSize;
    const ImVec2 size(std::min(fs * 64, screen.x * 0.92f), std::min(fs * 36, screen.y * 0.88f));
    ImGui::SetWindowSize(size);
    ImGui::SetWindowPos(ImVec2((screen.x - size.x) * 0.5f, (screen.y - size.y) * 0.5f));
  }
  if (ui.file_name.empty()) set_extension(ui);
  if (ui.directory.empty()) {
    std::error_code ec;
    ui.directory = fs::current_path(ec).string();
  }
  // The choices scroll; Export and the messages stay in view below them (on a projector the
  // choices alone are taller than the window). Their height is last frame's, so a message that
  // appears takes its room a frame later.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float actions_h = ui.actions_height > 0 ? ui.actions_height : 2 * ImGui::GetFrameHeightWithSpacing();
  ImGui::BeginGroup();
  ImGui::BeginChild("export_options", ImVec2(fs * 18, -(actions_h + style.ItemSpacing.y)), false);
  draw_export_choices(ctx, ui, out);
  ImGui::EndChild();
  ImGui::BeginChild("export_actions", ImVec2(fs * 18, 0), false, ImGuiWindowFlags_NoScrollbar);
  draw_export_actions(ctx, ui, out);
  ui.actions_height = ImGui::GetCursorPosY() - style.ItemSpacing.y;
  ImGui::EndChild();
  ImGui::EndGroup();
  ImGui::SameLine();
  draw_export_preview(ctx, ui);
}

}  // namespace attnlab::gui
