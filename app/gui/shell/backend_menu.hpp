// The Backend menu (CPU, GPU or auto); the switch it asks for (SelectBackend) is the shell's, also
// made by `gui --backend`.
#pragma once

#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// The three choices, the chosen one ticked, and the active backend.
void draw_backend_menu(const ViewContext& ctx, Commands& out);

}  // namespace attnlab::gui
