// "Restore unsaved work?" after a crash (persistence/recovery_store.hpp); Enter restores, Esc discards.
#pragma once

#include "gui/persistence/recovery_store.hpp"
#include "gui/state/commands.hpp"

#include <filesystem>

namespace attnlab::gui {

// The offer in `r` as a modal question; Restore hands the work on (RestoreWork), Discard removes the
// file from `config_dir`.
void draw_recovery_prompt(RecoveryUi& r, const std::filesystem::path& config_dir, Commands& out);

}  // namespace attnlab::gui
