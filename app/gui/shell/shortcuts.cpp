// Keyboard shortcuts: one table, used both to handle keys and to list them in the Help window.
#include "gui/shell/shortcuts.hpp"

#include "engine/figures/colormap.hpp"
#include "gui/dialogs/file_dialog.hpp"
#include "gui/state/edits.hpp"
#include "gui/shell/apply_command.hpp"

#include <GLFW/glfw3.h>

#include <cmath>

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

bool pressed(int key) { return ImGui::IsKeyPressed(key, false); }

}  // namespace

const std::vector<Shortcut>& shortcut_list() { return kShortcuts; }

void handle_shortcuts(AppState& state, Services& services) {
  (void)services;
  const ImGuiIO& io = ImGui::GetIO();
  const bool ctrl = io.KeyCtrl, shift = io.KeyShift;
  // The recovery offer is a modal question: no key may change the document behind it.
  if (state.recovery.offer) return;
  // Undo/redo work everywhere except while a text field is being typed into (it has its own).
  if (!io.WantTextInput && ctrl) {
    if (pressed(GLFW_KEY_Z) && shift) redo(state);
    else if (pressed(GLFW_KEY_Z)) undo(state);
    else if (pressed(GLFW_KEY_Y)) redo(state);
    else if (pressed(GLFW_KEY_O)) open_file_dialog(state, FilePurpose::OpenScenario);
    else if (pressed(GLFW_KEY_S)) open_file_dialog(state, FilePurpose::SaveScenario);
    return;
  }
  if (io.WantTextInput || io.KeyAlt || io.KeySuper) return;
  if (pressed(GLFW_KEY_S)) actions::toggle_scale(state);
  if (pressed(GLFW_KEY_LEFT_BRACKET)) actions::set_temperature(state, state.doc.scenario.options.temperature / 1.25);
  if (pressed(GLFW_KEY_RIGHT_BRACKET)) actions::set_temperature(state, state.doc.scenario.options.temperature * 1.25);
  if (pressed(GLFW_KEY_LEFT_BRACKET) || pressed(GLFW_KEY_RIGHT_BRACKET)) end_merge(state);
  if (pressed(GLFW_KEY_0)) {
    actions::set_temperature(state, 1.0);
    end_merge(state);
  }
  if (pressed(GLFW_KEY_M)) actions::cycle_mask(state);
  if (pressed(GLFW_KEY_R)) actions::toggle_rope(state);
  if (pressed(GLFW_KEY_F5) || pressed(GLFW_KEY_P)) {
    state.view.presenter = !state.view.presenter;
    state.style_dirty = true;
  }
  if (pressed(GLFW_KEY_I)) toggle_inputs_column(state);
  if (pressed(GLFW_KEY_B)) state.view.tabs_enlarged = !state.view.tabs_enlarged;
  if (pressed(GLFW_KEY_T)) {
    state.view.theme = state.view.theme == Theme::Dark ? Theme::Light : Theme::Dark;
    state.style_dirty = true;
  }
  if (pressed(GLFW_KEY_C)) {
    const auto& maps = colormaps();
    std::vector<std::string> seq;
    for (const auto& m : maps)
      if (m.kind == ColormapKind::Sequential) seq.push_back(m.name);
    for (size_t k = 0; k < seq.size(); ++k) {
      if (seq[k] == state.view.sequential) {
        state.view.sequential = seq[(k + 1) % seq.size()];
        break;
      }
    }
  }
  if (pressed(GLFW_KEY_ESCAPE)) state.pipeline.selected = CellRef{};
  if (pressed(GLFW_KEY_F1)) window_open(state.view, "Help") = !window_open(state.view, "Help");
  if (pressed(GLFW_KEY_F2)) window_open(state.view, "Training") = !window_open(state.view, "Training");
}

}  // namespace attnlab::gui
