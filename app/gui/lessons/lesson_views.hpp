// The special views of the built-in lessons, one file each, and their registry; what they draw with
// is in lesson_matrix.hpp, their numbers in state/lesson_view_model.hpp (the engine's
// compute_lesson; each view's types are its engine page's, engine/lessons/<view>.hpp). The "Lesson view" window (panels/lesson_view_panel.cpp) shows the walk-through
// while it runs, else the view the lesson names.
#pragma once

#include "gui/lessons/lesson_matrix.hpp"
#include "gui/state/lesson_view_model.hpp"
#include "gui/widgets/wrapped_text.hpp"
#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

#include <imgui.h>

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::gui {

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
void draw_online_softmax_view(AppState& state, Services& services);
void draw_model_heads_view(AppState& state, Services& services);  // model_heads_view.cpp
void draw_rope_view(AppState& state, Services& services);
void draw_gqa_view(AppState& state, Services& services);
// train_induction_view.cpp: "Watch an induction head form", stepped by the walk-through's keys.
void draw_train_induction_view(AppState& state, Services& services);
// Whether the Lesson view shows the induction lesson: its document, or a head it lifted from it.
bool induction_lesson_shown(const AppState& state);
// kv_cache_view.cpp: "What the KV cache holds", one of its four parts at a time.
void draw_kv_cache_view(AppState& state, Services& services);
inline constexpr int kInductionSteps = 5;

// The numbers of the shown result's lesson view as `T` (state/lesson_view_model.hpp), or null after
// saying in place why there are none, after `lead` ("The online softmax cannot run here: ").
template <class T>
const T* view_numbers(AppState& state, Services& services, const std::string& lead = {}) {
  std::string error;
  const T* numbers = lesson_numbers<T>(state, services, error);
  if (!numbers) text_wrapped_unformatted(lead + error);
  return numbers;
}

// The registry: which function draws each view, by the engine's name of it (lesson_view(); the plain
// view has none). Adding a view is one file here and one line in lesson_view_registry.cpp's list.
using LessonViewFn = void (*)(AppState&, Services&);
LessonViewFn lesson_view_drawer(std::string_view view);

}  // namespace attnlab::gui
