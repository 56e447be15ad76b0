// "Restore unsaved work?" after a crash (persistence/recovery_store.hpp); Enter restores, Esc discards.
#pragma once

#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_recovery_prompt(AppState& state, Services& services);

}  // namespace attnlab::gui
