// The registry: every panel and menu of the app, in display order. One line each.
#include "gui/shell/panel_registry.hpp"

#include "gui/dialogs/export_dialog.hpp"
#include "gui/model/model_window.hpp"
#include "gui/panels/panels.hpp"
#include "gui/shell/backend_menu.hpp"
#include "gui/shell/help_window.hpp"
#include "gui/shell/lessons_menu.hpp"
#include "gui/shell/menus.hpp"
#include "gui/training/training_window.hpp"

namespace attnlab::gui {

namespace {

const std::vector<PanelInfo> kPanels = {
    {"Controls", Slot::Left, draw_controls_panel},
    {"Inputs", Slot::Left, draw_inputs_panel},
    {"Pipeline", Slot::Main, draw_pipeline_panel},
    {"Scaling lab", Slot::Window, draw_scaling_panel},
    {"Lesson", Slot::Bottom, draw_lesson_panel},
    {"Lesson view", Slot::Window, draw_lesson_view_panel},
    {"Explain a cell", Slot::Bottom, draw_explain_panel},
    {"Saturation", Slot::Bottom, draw_saturation_panel},
    {"Model", Slot::Window, draw_model_window},
    {"Training", Slot::Window, draw_training_window},
    {"Help", Slot::Window, draw_help_window},
    {"Export", Slot::Window, draw_export_dialog},
};

const std::vector<MenuInfo> kMenus = {
    {"File", draw_file_menu},
    {"Edit", draw_edit_menu},
    {"View", draw_view_menu},
    {"Lessons", draw_lessons_menu},
    {"Backend", draw_backend_menu},
    {"Help", draw_help_menu},
};

}  // namespace

const std::vector<PanelInfo>& panel_list() { return kPanels; }
const std::vector<MenuInfo>& menu_list() { return kMenus; }

}  // namespace attnlab::gui
