// The special views of the built-in lessons (one file each) and what they share. The "Lesson view"
// tab (lesson_view_panel.cpp) shows the walk-through while it runs, else the view the lesson names.
#pragma once

#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

#include <imgui.h>

#include <string>
#include <vector>

namespace attnlab::gui {

// Sets up LessonUi from the document's lesson (heads, seed, τ, ...) when another lesson was opened.
void sync_lesson_ui(AppState& state);

// One small matrix as a heatmap under a title, `size` wide and tall (labels included), drawn with
// the colours of `stage`. Returns the rectangle of its cells. Large matrices get a note instead.
DrawnRect draw_lesson_matrix(AppState& state, Services& services, const char* id, const std::string& title,
                             Stage stage, const Matrix& M, const BlockGrid* blocked,
                             const std::vector<std::string>& rows, const std::vector<std::string>& cols, ImVec2 size,
                             bool fixed_unit_range = false);
// The largest cell draw_lesson_matrix draws (views that size their matrices ahead use it).
float lesson_matrix_max_cell();
// A row of small numbers under a heatmap: "row sums 1.000 1.000 …".
void lesson_numbers_line(const char* label, const std::vector<double>& values, int decimals = 3);
// "v1", "v2", ... for output columns.
std::vector<std::string> lesson_dim_labels(const char* prefix, Eigen::Index count);

void draw_walkthrough_view(AppState& state, Services& services);
void draw_worked_example_view(AppState& state, Services& services);
void draw_compare_scaling_view(AppState& state, Services& services);
void draw_scaling_lab_view(AppState& state, Services& services);
void draw_multihead_view(AppState& state, Services& services);
void draw_self_cross_view(AppState& state, Services& services);
void draw_mask_family_view(AppState& state, Services& services);
void draw_temperature_view(AppState& state, Services& services);
void draw_normalizers_view(AppState& state, Services& services);
void draw_precision_view(AppState& state, Services& services);
void draw_geometry_view(AppState& state, Services& services);
void draw_cost_view(AppState& state, Services& services);

}  // namespace attnlab::gui
