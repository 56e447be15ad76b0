// The frame: menus, the tiled layout (inputs column | pipeline over explain/saturation tabs),
// the status bar, floating panels and dialogs. Panels come from the registry in panel_registry.cpp.
#include "gui/shell/frame_layout.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/training/training_actions.hpp"

#include "gui/dialogs/file_dialog.hpp"
#include "gui/dialogs/recovery_prompt.hpp"
#include "gui/lab/inputs_panel.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/shell/status_bar.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/compute.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/widgets/whole_lines.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui_internal.h>

#include <algorithm>

namespace attnlab::gui {

namespace {

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

// A draggable bar between two areas; returns the drag in pixels this frame.
float splitter(const char* id, bool vertical, float thickness, float length) {
  ImGui::InvisibleButton(id, vertical ? ImVec2(thickness, length) : ImVec2(length, thickness));
  const bool active = ImGui::IsItemActive(), hovered = ImGui::IsItemHovered();
  if (active || hovered) ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  ImGui::GetWindowDrawList()->AddRectFilled(a, b, ImGui::GetColorU32(active ? ImGuiCol_SeparatorActive
                                                                  : hovered ? ImGuiCol_SeparatorHovered
                                                                            : ImGuiCol_Separator));
  if (!active) return 0;
  return vertical ? ImGui::GetIO().MouseDelta.x : ImGui::GetIO().MouseDelta.y;
}

void draw_slot(AppState& state, Services& services, Slot slot, const char* tab_bar_id) {
  const bool unicode = services.fonts.unicode;
  std::vector<const PanelInfo*> ps;
  for (const PanelInfo& p : panel_list())
    if (p.slot == slot) ps.push_back(&p);
  if (ps.size() == 1) {
    draw_panel(state, services, ps[0]->panel);
    return;
  }
  if (ImGui::BeginTabBar(tab_bar_id)) {
    for (const PanelInfo* p : ps) {
      const bool focus = state.focus_panel == p->name;
      if (focus) state.focus_panel.clear();
      if (ImGui::BeginTabItem(p->name, nullptr, focus ? ImGuiTabItemFlags_SetSelected : 0)) {
        ImGui::BeginChild(p->name);
        draw_panel(state, services, p->panel);
        if (state.view.presenter) keep_lines_whole();
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    if (slot == Slot::Bottom) {
      // At the bar's right end: make the tabs big (or small again), as B does.
      const bool big = state.view.tabs_enlarged;
      const char* label = big ? (unicode ? "▼" : "v") : (unicode ? "▲" : "^");
      if (ImGui::TabItemButton(label, ImGuiTabItemFlags_Trailing | ImGuiTabItemFlags_NoTooltip)) state.view.tabs_enlarged = !big;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip(big ? "smaller tabs, bigger pipeline (B)" : "bigger tabs (B)");
    }
    ImGui::EndTabBar();
  }
}

// Keeps the current window inside [lo, hi] (the area between the menu bar and the status bar):
// a window sized for normal text must not hang off the screen after presenter mode or a smaller
// display, where its title bar and close button could no longer be reached.
void keep_inside(ImVec2 lo, ImVec2 hi) {
  const ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
  const ImVec2 size(std::min(ws.x, hi.x - lo.x), std::min(ws.y, hi.y - lo.y));
  const ImVec2 p(std::clamp(wp.x, lo.x, std::max(lo.x, hi.x - size.x)), std::clamp(wp.y, lo.y, std::max(lo.y, hi.y - size.y)));
  if (size.x != ws.x || size.y != ws.y) ImGui::SetWindowSize(size);
  if (p.x != wp.x || p.y != wp.y) ImGui::SetWindowPos(p);
}

// Rebuilds the ImGui style when the look differs from the one it was built for (theme, presenter:
// whoever changed the view settings) or the window crossed the small-screen size in presenter mode
// (its font depends on it).
void refresh_style(const ViewSettings& view, bool& was_small, std::optional<Look>& style_look, const Fonts& fonts) {
  const bool small = small_screen(ImGui::GetIO().DisplaySize);
  const bool crossed = small != was_small;
  was_small = small;
  const Look& look = view;
  if (style_look && *style_look == look && !(crossed && look.presenter)) return;
  style_look = look;
  set_style(view, small, fonts);
}

// ImGui 1.86 keeps a text field's undo history when the field is clicked again (its own FIXME in
// InputTextEx), even where the app has changed the text in between: the file dialog's "../", a cell
// typed into again after an undo, the sandboxed folder of the monkey test. Ctrl+Z or Ctrl+Y then
// replays an edit at a place past the new text's end: ImGui's assert aborts the app (Debian builds
// it with asserts on), or without it the edit writes past the text. Forgetting the history of a
// field no longer being edited makes each click into a field start from the text it shows.
void forget_inactive_text_edit() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  if (g.InputTextState.ID != 0 && g.InputTextState.ID != g.ActiveId) g.InputTextState.ID = 0;
}

// The work before anything is drawn: the style, the keys, dropped files, the training thread's news
// (whether or not its window is open: the induction lesson trains with it too), then a recompute:
// whatever of these changes the document (a head the training lifted into the lab) is computed in
// this frame, instead of the whole frame showing the last result under the new document.
void start_frame(AppState& state, Services& services) {
  refresh_style(state.view, state.small_screen, state.style_look, services.fonts);
  forget_inactive_text_edit();
  state.pipeline.hovered = CellRef{};
  handle_shortcuts(state, services);
  const std::vector<std::string> dropped = std::move(state.dropped_files);
  state.dropped_files.clear();
  for (const std::string& p : dropped) apply(state, services, OpenFile{p});
  Commands trained = poll_training(state.training);
  apply(state, services, trained);
  recompute_if_needed(state, services);
}

// The menus from the registry, and the document's title at the bar's right end when it fits.
void draw_menu_bar(AppState& state, Services& services) {
  if (!ImGui::BeginMainMenuBar()) return;
  for (const MenuInfo& m : menu_list()) {
    if (ImGui::BeginMenu(m.name)) {
      draw_menu(state, services, m.menu);
      ImGui::EndMenu();
    }
  }
  const float fs = ImGui::GetFontSize();
  const std::string title = drawn_text(state.doc.scenario.title);
  const float tw = ImGui::CalcTextSize(title.c_str()).x;
  if (ImGui::GetContentRegionAvail().x > tw + fs) {
    ImGui::SameLine(ImGui::GetWindowWidth() - tw - fs);
    ImGui::TextDisabled("%s", title.c_str());
  }
  ImGui::EndMainMenuBar();
}

constexpr float kSplit = 6;  // a splitter's thickness

// The inputs column's width in a host `width` wide whose content is `avail_x` wide. 0 in the view
// settings means automatic; a drag of the splitter makes it the user's choice (kept in the session).
float left_column_width(const ViewSettings& view, float width, float avail_x) {
  const float fs = ImGui::GetFontSize();
  const float lw = view.left_width > 0
                       ? view.left_width
                       : std::clamp(width * (view.presenter ? 0.24f : 0.26f), std::min(fs * 12.0f, width * 0.3f), fs * 30.0f);
  return std::clamp(lw, fs * 6.0f, avail_x * 0.6f);
}

// The inputs column, one collapsing section per Left panel, and its splitter.
void draw_left_column(AppState& state, Services& services, float lw, float height) {
  ImGui::BeginChild("##left", ImVec2(lw, height), false);
  for (const PanelInfo& p : panel_list()) {
    if (p.slot != Slot::Left) continue;
    if (ImGui::CollapsingHeader(p.name, ImGuiTreeNodeFlags_DefaultOpen)) {
      ImGui::PushID(p.name);
      draw_panel(state, services, p.panel);
      ImGui::PopID();
      ImGui::Spacing();
    }
  }
  // On a projector the column ends at its last whole line (a line cut at its foot read "d v" for d_v).
  if (state.view.presenter) keep_lines_whole();
  ImGui::EndChild();
  ImGui::SameLine(0, 2);
  if (const float dx = splitter("##split_v", true, kSplit, height); dx != 0) state.view.left_width = lw + dx;
  ImGui::SameLine(0, 4);
}

// The height of the tabs under the pipeline in a column `right_h` high, with the Lesson tab's
// last frame as the lessons' UI state keeps it.
float bottom_height(const ViewSettings& view, const LayoutUi& lay, const LessonsUi& lesson, float right_h) {
  const float fs = ImGui::GetFontSize();
  // The tabs below keep at least their tab bar and two lines of text.
  const float min_bottom = ImGui::GetFrameHeightWithSpacing() + fs * 2.0f;
  float bh = view.bottom_height;
  if (bh <= 0) {
    // Automatic: the pipeline gets what its heatmaps can use (45% to 72%), and more when its
    // numbers need it (a six-token lesson on a 720-pixel-high projector); the tabs the rest.
    const float main_h = lay.pipeline_wants_height > 0 ? std::clamp(lay.pipeline_wants_height, right_h * 0.45f, right_h * 0.72f)
                                                       : right_h * 0.7f;
    const float overhead = kSplit + ImGui::GetStyle().ItemSpacing.y * 2;  // the splitter and the spacing around it
    bh = std::max(right_h - overhead - main_h, fs * 6.0f);
    const float for_numbers = right_h - overhead - lay.pipeline_needs_height;
    if (lay.pipeline_needs_height > 0 && for_numbers < bh) bh = std::max(for_numbers, min_bottom);
    // The Lesson tab in view (drawn last frame) gets the height its whole text needs when the
    // pipeline can spare it and keep its numbers' height and 45% of the column; a text that
    // would not fit even then scrolls, and the pipeline keeps its size.
    const bool lesson_shown = lesson.panel_drawn_frame >= ImGui::GetFrameCount() - 1;
    const float lesson_h = lesson.panel_needs_height + ImGui::GetFrameHeightWithSpacing();
    const float keep = std::max(lay.pipeline_needs_height, right_h * 0.45f);
    if (lesson_shown && lesson_h > bh && lesson_h <= right_h - overhead - keep) bh = lesson_h;
  }
  if (view.tabs_enlarged) bh = std::max(bh, right_h * 0.55f);
  return std::clamp(bh, std::min(fs * 3.0f, min_bottom), right_h * 0.8f);
}

// A head lifted from a model says so above the pipeline until the document is something else
// (undo brings back what was there, and the banner goes with it). On a projector its aside goes
// beside it only where the line has room, else to its tooltip: cut at the column's edge it read
// "(a head of the model in the Training wind" (issue 69).
void draw_lifted_banner(const ModelUi& model, const TrainingUi& training, const Scenario& shown, bool presenter) {
  const auto line = [presenter](const std::string& banner, const char* aside) {
    ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s", banner.c_str());
    if (presenter && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", aside);
    if (!presenter) ImGui::SameLine();
    else if (!same_line_if_fits(ImGui::CalcTextSize(aside).x)) return;
    ImGui::TextDisabled("%s", aside);
  };
  if (const std::string banner = model_banner(model, shown); !banner.empty()) {
    line(banner, "(a head of the Model window's model, which can take your edit back; Ctrl+Z returns to what was here)");
  } else if (const std::string trained = training_banner(training, shown); !trained.empty()) {
    line(trained, "(a head of the model in the Training window, as it was at that step; Ctrl+Z returns to what was here)");
  }
}

// The pipeline over the tabs, with the splitter between them.
void draw_right_column(AppState& state, Services& services) {
  ImGui::BeginGroup();
  const float right_h = ImGui::GetContentRegionAvail().y;
  const float bh = bottom_height(state.view, state.layout, state.lesson, right_h);
  ImGui::BeginChild("##main", ImVec2(0, right_h - bh - kSplit - ImGui::GetStyle().ItemSpacing.y * 2), false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_lifted_banner(state.model, state.training, shown_scenario(state.results, state.doc), state.view.presenter);
  draw_slot(state, services, Slot::Main, "##main_tabs");
  ImGui::EndChild();
  if (const float dy = splitter("##split_h", false, kSplit, ImGui::GetContentRegionAvail().x); dy != 0) {
    state.view.bottom_height = bh - dy;
    state.view.tabs_enlarged = false;
  }
  ImGui::BeginChild("##bottom", ImVec2(0, 0), false);
  draw_slot(state, services, Slot::Bottom, "##bottom_tabs");
  ImGui::EndChild();
  ImGui::EndGroup();
}

// The tiled host between the menu bar and the status bar: the inputs column | the right column.
void draw_host(AppState& state, Services& services, ImVec2 pos, ImVec2 size) {
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(6, 6));
  // No background: the frame is cleared to WindowBg already, and llvmpipe pays for every overdrawn pixel.
  if (ImGui::Begin("##host", nullptr, kFixed | ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse)) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float lw = left_column_width(state.view, size.x, avail.x);
    // Presenter mode folds the column away while the pipeline beside it would be too narrow for
    // the numbers in its cells and the whole width is wide enough (measured last frame; the width
    // it needs does not depend on the width it gets, so this cannot flicker).
    const float needs = state.layout.pipeline_needs_width;
    state.layout.inputs_auto_folded = state.view.presenter && state.view.inputs_auto_fold && !state.view.inputs_hidden &&
                                      needs > avail.x - lw - kSplit - 6 && needs <= avail.x;
    if (!inputs_column_hidden(state.view, state.layout)) draw_left_column(state, services, lw, avail.y);
    draw_right_column(state, services);
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

// The registry's floating windows that are open, kept inside the area between the bars.
void draw_floating_windows(AppState& state, Services& services, ImVec2 pos, ImVec2 size) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float fs = ImGui::GetFontSize();
  for (const PanelInfo& p : panel_list()) {
    if (p.slot != Slot::Window) continue;
    bool& open = window_open(state.view, p.name);
    if (!open) continue;
    // The Model and Training windows' grids of every head need the screen (a projector's 1024 × 768
    // included).
    const bool whole_screen = std::string_view(p.name) == "Model" || std::string_view(p.name) == "Training";
    if (whole_screen && state.view.presenter) {
      // On a projector they fill the area between the bars each time they open: nothing of the lab
      // shows at their edges, half covered, and every pixel goes to the heads.
      ImGui::SetNextWindowSize(size, ImGuiCond_Appearing);
      ImGui::SetNextWindowPos(pos, ImGuiCond_Appearing);
    } else {
      ImGui::SetNextWindowSize(whole_screen ? ImVec2(vp->Size.x * 0.96f, size.y * 0.96f) : ImVec2(fs * 34, fs * 26), ImGuiCond_FirstUseEver);
      ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.5f), ImGuiCond_FirstUseEver,
                              ImVec2(0.5f, 0.5f));
    }
    // On a projector a window is open or closed: a collapsed one left its title bar over the
    // pipeline's headings, its close box over "output O = AV".
    if (state.view.presenter) ImGui::SetNextWindowCollapsed(false);
    const bool visible = ImGui::Begin(p.name, &open, state.view.presenter ? ImGuiWindowFlags_NoCollapse : 0);
    keep_inside(ImVec2(vp->Pos.x, pos.y), ImVec2(vp->Pos.x + vp->Size.x, pos.y + size.y));
    if (visible) draw_panel(state, services, p.panel);
    ImGui::End();
  }
}

}  // namespace

void draw_app(AppState& state, Services& services) {
  start_frame(state, services);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float fs = ImGui::GetFontSize();
  const float menu_h = fs + ImGui::GetStyle().FramePadding.y * 2;
  draw_menu_bar(state, services);
  const StatusBarLayout status = status_bar_layout(view_context(state, services), state.error, fs + 8);
  const float status_h = status.height;
  const ImVec2 pos(vp->Pos.x, vp->Pos.y + menu_h);
  const ImVec2 size(vp->Size.x, std::max(50.0f, vp->Size.y - menu_h - status_h));
  draw_host(state, services, pos, size);
  draw_status_bar(view_context(state, services),
                  StatusLine{state.error, state.notice, state.scenario_path, state.frame_ms, inputs_column_hidden(state.view, state.layout)}, status);
  draw_floating_windows(state, services, pos, size);
  Commands out;
  // The dialog shows what became of its file in the frame it was chosen: its command is applied
  // between its begin and its end.
  const bool file_dialog = begin_file_dialog(view_context(state, services), state.file_dialog, state.scenario_path, out);
  apply(state, services, out);
  if (file_dialog) end_file_dialog(view_context(state, services), state.file_dialog);
  draw_confirm_resize(state.pending_resize, out);
  apply(state, services, out);
  draw_drop_choice(state.inputs, out);
  apply(state, services, out);
  draw_recovery_prompt(state.recovery, services.config_dir, out);
  apply(state, services, out);
}

}  // namespace attnlab::gui
