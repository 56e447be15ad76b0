// The panels the registry (shell/panel_registry.cpp) lays out, one file each in this folder: each
// draws from AppState and changes the document only through actions (state/edits.hpp).
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_inputs_panel(AppState& state, Services& services);       // inputs_panel.cpp
void draw_controls_panel(AppState& state, Services& services);     // controls_panel.cpp
void draw_pipeline_panel(AppState& state, Services& services);     // pipeline_panel.cpp
// streamed_pipeline_panel.cpp: a streaming run's progress bar and Cancel (true when there is nothing
// else to draw yet), and the pipeline of a streamed result (no n × m stages: downsampled weights, output).
bool draw_compute_progress(AppState& state, Services& services);
void draw_streaming_view(AppState& state, Services& services);
void draw_explain_panel(AppState& state, Services& services);      // explain_panel.cpp
void draw_scaling_panel(AppState& state, Services& services);      // scaling_lab_panel.cpp

}  // namespace attnlab::gui
