// Keyboard shortcuts: one table, used both to handle keys and to list them in the Help window.
#include "gui/shell/shortcuts.hpp"

#include "engine/figures/colormap.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <string>
#include <utility>

namespace attnlab::gui {

namespace {

const std::vector<Shortcut> kShortcuts = {
    {"Ctrl+Z", "undo"},
    {"Ctrl+Shift+Z, Ctrl+Y", "redo"},
    {"Ctrl+O", "open a scenario"},
    {"Ctrl+S", "save the scenario"},
    {"S", "scaling by √d_k on/off"},
    {"[  and  ]", "temperature down / up (×1.25)"},
    {"0", "temperature back to 1"},
    {"R", "rotary positions (RoPE) on/off"},
    {"M", "next mask kind (none, causal, padding, prefix, window, custom)"},
    {"Shift+click a cell", "block / unblock it (custom mask)"},
    {"F5 or P", "presenter mode on/off"},
    {"T", "light / dark theme"},
    {"I", "hide / show the inputs column (presenter mode hides it by itself when the heatmaps need the width)"},
    {"B", "big tabs under the pipeline (lesson, explanation, saturation) / back"},
    {"C", "next colormap"},
    {"Esc", "forget the selected cell"},
    {"F1", "this help"},
    {"F2", "the Training window: train a small model and watch its heads form"},
};

// The keys without Ctrl, in the order they are handled (F5 stands for P too).
constexpr int kPlainKeys[] = {GLFW_KEY_S, GLFW_KEY_LEFT_BRACKET, GLFW_KEY_RIGHT_BRACKET, GLFW_KEY_0, GLFW_KEY_M,
                              GLFW_KEY_R, GLFW_KEY_F5,           GLFW_KEY_I,             GLFW_KEY_B, GLFW_KEY_T,
                              GLFW_KEY_C, GLFW_KEY_ESCAPE,       GLFW_KEY_F1,            GLFW_KEY_F2};

bool pressed(int key) { return ImGui::IsKeyPressed(key, false); }

// The view settings with one change: what presenter mode, the theme, the tabs and the colormap keys ask.
template <class Change>
Command view_with(const ViewSettings& view, Change change) {
  ViewSettings next = view;
  change(next);
  return SetView{std::move(next)};
}

// The sequential colormap after `current` (the first when `current` is not one).
std::string next_sequential(const std::string& current) {
  std::vector<std::string> seq;
  for (const auto& m : colormaps())
    if (m.kind == ColormapKind::Sequential) seq.push_back(m.name);
  for (size_t k = 0; k < seq.size(); ++k) {
    if (seq[k] == current) return seq[(k + 1) % seq.size()];
  }
  return current;
}

Commands ctrl_commands(const KeyPress& press) {
  switch (press.key) {
    case GLFW_KEY_Z: return {press.shift ? Command{Redo{}} : Command{Undo{}}};
    case GLFW_KEY_Y: return {Redo{}};
    case GLFW_KEY_O: return {ChooseFile{FilePurpose::OpenScenario, {}}};
    case GLFW_KEY_S: return {ChooseFile{FilePurpose::SaveScenario, {}}};
    default: return {};
  }
}

}  // namespace

const std::vector<Shortcut>& shortcut_list() { return kShortcuts; }

std::vector<KeyPress> shortcut_presses(bool modal) {
  if (modal) return {};
  const ImGuiIO& io = ImGui::GetIO();
  // Undo/redo work everywhere except while a text field is being typed into (it has its own).
  if (!io.WantTextInput && io.KeyCtrl) {
    for (int key : {GLFW_KEY_Z, GLFW_KEY_Y, GLFW_KEY_O, GLFW_KEY_S}) {
      if (pressed(key)) return {KeyPress{key, true, io.KeyShift}};
    }
    return {};
  }
  if (io.WantTextInput || io.KeyAlt || io.KeySuper) return {};
  std::vector<KeyPress> out;
  for (int key : kPlainKeys) {
    if (pressed(key) || (key == GLFW_KEY_F5 && pressed(GLFW_KEY_P))) out.push_back(KeyPress{key, false, io.KeyShift});
  }
  return out;
}

Commands shortcut_commands(const ViewContext& ctx, const KeyPress& press) {
  if (press.ctrl) return ctrl_commands(press);
  const Document& doc = ctx.doc;
  const double t = doc.scenario.options.temperature;
  switch (press.key) {
    case GLFW_KEY_S: return {edits::toggle_scale(doc)};
    case GLFW_KEY_LEFT_BRACKET: return {edits::set_temperature(t / 1.25), EndMerge{}};
    case GLFW_KEY_RIGHT_BRACKET: return {edits::set_temperature(t * 1.25), EndMerge{}};
    case GLFW_KEY_0: return {edits::set_temperature(1.0), EndMerge{}};
    case GLFW_KEY_M: return {edits::cycle_mask(doc)};
    case GLFW_KEY_R: return {edits::toggle_rope(doc)};
    case GLFW_KEY_F5:
    case GLFW_KEY_P: return {view_with(ctx.view, [](ViewSettings& v) { v.presenter = !v.presenter; })};
    case GLFW_KEY_I: return {ToggleInputsColumn{}};
    case GLFW_KEY_B: return {view_with(ctx.view, [](ViewSettings& v) { v.tabs_enlarged = !v.tabs_enlarged; })};
    case GLFW_KEY_T: return {view_with(ctx.view, [](ViewSettings& v) { v.theme = v.theme == Theme::Dark ? Theme::Light : Theme::Dark; })};
    case GLFW_KEY_C: return {view_with(ctx.view, [](ViewSettings& v) { v.sequential = next_sequential(v.sequential); })};
    case GLFW_KEY_ESCAPE: return {ForgetSelectedCell{}};
    case GLFW_KEY_F1: return {ShowWindow{"Help", !window_shown(ctx.view, "Help")}};
    case GLFW_KEY_F2: return {ShowWindow{"Training", !window_shown(ctx.view, "Training")}};
    default: return {};
  }
}

}  // namespace attnlab::gui
