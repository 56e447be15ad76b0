// What panels use besides AppState: the compute backend, the GL heatmap renderer (absent in
// window-less tests), the fonts and the symbols they can draw (Glyphs, engine/text/text_format.hpp).
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/platform.hpp"

#include <imgui.h>

#include <filesystem>
#include <memory>
#include <string>

namespace attnlab::gui {

class HeatmapRenderer;

struct Services {
  std::unique_ptr<Platform> platform = make_platform();  // the desktop's or the browser's (platform.hpp)
  std::unique_ptr<Backend> backend;
  HeatmapRenderer* renderer = nullptr;  // null: big heatmaps are drawn without GL (tests)
  Fonts fonts;
  Glyphs glyphs;
  std::filesystem::path config_dir;  // empty: the session is neither read nor written
  std::string ini_path;             // ImGui keeps a pointer to it
};

}  // namespace attnlab::gui
