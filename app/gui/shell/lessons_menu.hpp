// The Lessons menu: every built-in lesson in curriculum order, and the classroom walk-through.
#pragma once

#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// A lesson chosen opens (LoadPreset; on its special view when it has one) and ends a walk-through;
// the walk-through item (`walking`: one is under way) starts or leaves it.
void draw_lessons_menu(const ViewContext& ctx, bool walking, Commands& out);

}  // namespace attnlab::gui
