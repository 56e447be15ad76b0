// The registry: every panel and menu of the app, in display order, one line each; and the one place
// that hands each its parts of the state and applies the commands it returns.
#include "gui/shell/panel_registry.hpp"

#include "gui/dialogs/export_dialog.hpp"
#include "gui/model_window/model_window.hpp"
#include "gui/lab/controls_panel.hpp"
#include "gui/lab/explain_panel.hpp"
#include "gui/lab/inputs_panel.hpp"
#include "gui/lab/pipeline_panel.hpp"
#include "gui/lab/saturation_panel.hpp"
#include "gui/lessons/lesson_panel.hpp"
#include "gui/lessons/lesson_text_view.hpp"
#include "gui/lessons/lesson_view_panel.hpp"
#include "gui/scaling_lab/scaling_lab_panel.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/shell/backend_menu.hpp"
#include "gui/shell/help_window.hpp"
#include "gui/shell/lessons_menu.hpp"
#include "gui/shell/menus.hpp"
#include "gui/shell/shortcuts.hpp"
#include "gui/training/training_window.hpp"

namespace attnlab::gui {

namespace {

const std::vector<PanelInfo> kPanels = {
    {"Controls", Slot::Left, Panel::Controls},
    {"Inputs", Slot::Left, Panel::Inputs},
    {"Pipeline", Slot::Main, Panel::Pipeline},
    {"Scaling lab", Slot::Window, Panel::ScalingLab},
    {"Lesson", Slot::Bottom, Panel::Lesson},
    {"Lesson view", Slot::Window, Panel::LessonView},
    {"Explain a cell", Slot::Bottom, Panel::Explain},
    {"Saturation", Slot::Bottom, Panel::Saturation},
    {"Model", Slot::Window, Panel::Model},
    {"Training", Slot::Window, Panel::Training},
    {"Help", Slot::Window, Panel::Help},
    {"Export", Slot::Window, Panel::Export},
};

const std::vector<MenuInfo> kMenus = {
    {"File", Menu::File}, {"Edit", Menu::Edit}, {"View", Menu::View}, {"Lessons", Menu::Lessons}, {"Backend", Menu::Backend}, {"Help", Menu::Help},
};

}  // namespace

const std::vector<PanelInfo>& panel_list() { return kPanels; }
const std::vector<MenuInfo>& menu_list() { return kMenus; }

void draw_panel(AppState& state, Services& services, Panel panel) {
  const ViewContext ctx = view_context(state, services);
  Commands out;
  switch (panel) {
    case Panel::Controls: draw_controls_panel(ctx, out); break;
    case Panel::Inputs: draw_inputs_panel(ctx, state.inputs, out); break;
    case Panel::Pipeline: draw_pipeline_panel(ctx, state.pipeline, state.layout, out); break;
    case Panel::ScalingLab:
      // The run advances while its window is drawn, a slice per frame, on the active backend.
      advance_scaling(state.scaling, *services.backend);
      draw_scaling_panel(ctx, state.scaling);
      break;
    case Panel::Lesson: draw_lesson_panel(ctx, state.lesson, out); break;
    case Panel::LessonView: draw_lesson_view_panel(ctx, state.lesson, state.model, state.training, state.pipeline.selected, state.exercises, out); break;
    case Panel::Explain: draw_explain_panel(ctx, state.pipeline); break;
    case Panel::Saturation: draw_saturation_panel(ctx, state.pipeline, out); break;
    case Panel::Model: draw_model_window(ctx, state.model, out); break;
    case Panel::Training: draw_training_window(ctx, state.training, out); break;
    case Panel::Help:
      draw_help_window(ctx);
      draw_lesson_index(ctx, state.lesson.card, out);  // the lessons' own part of Help
      break;
    case Panel::Export: draw_export_dialog(ctx, state.export_ui, out); break;
  }
  apply(state, services, out);
}

void draw_menu(AppState& state, Services& services, Menu menu) {
  const ViewContext ctx = view_context(state, services);
  Commands out;
  switch (menu) {
    case Menu::File: draw_file_menu(ctx, state.scenario_path, state.recent_files, out); break;
    case Menu::Edit: draw_edit_menu(state.history, out); break;
    case Menu::View: draw_view_menu(state.view, inputs_column_hidden(state.view, state.layout), out); break;
    case Menu::Lessons: draw_lessons_menu(ctx, state.lesson.walk.active, out); break;
    case Menu::Backend: draw_backend_menu(ctx, out); break;
    case Menu::Help: draw_help_menu(out); break;
  }
  apply(state, services, out);
}

void handle_shortcuts(AppState& state, Services& services) {
  for (const KeyPress& press : shortcut_presses(state.recovery.offer)) {
    Commands out = shortcut_commands(view_context(state, services), press);
    apply(state, services, out);
  }
}

}  // namespace attnlab::gui
