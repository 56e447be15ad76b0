// Settings that are not part of the document (kept in the session file, never undone), what the
// platform can do, and the files the app wrote for the user: plain data every view may read.
#pragma once

#include "gui/base/look.hpp"

#include <map>
#include <string>

namespace attnlab::gui {

// The Look (presenter mode, theme) is what every drawing depends on.
struct ViewSettings : Look {
  std::string sequential = "viridis";
  std::string diverging = "blue-white-red";
  bool numbers_in_cells = true;
  bool inputs_hidden = false;  // the inputs column folded away: the pipeline gets the whole width
  // In presenter mode the inputs column folds away by itself while the pipeline needs the width to
  // show numbers in its cells (a six-token lesson on a 1280 × 720 projector); I brings it back.
  bool inputs_auto_fold = true;
  float left_width = 0.0f;     // 0: automatic (a share of the window)
  float bottom_height = 0.0f;  // 0: automatic
  // B or the tab bar's ▲: the tabs under the pipeline take most of the column (an explanation on a
  // 720-pixel-high projector); a drag of the splitter ends it.
  bool tabs_enlarged = false;
  std::map<std::string, bool> open_windows;  // floating panels ("Help", ...) by name
};

// Floating windows ("Help", "Model", ...: the registry's Slot::Window panels) are shown while this is true.
bool& window_open(ViewSettings& view, const char* name);
bool window_shown(const ViewSettings& view, const char* name);

// What the platform this build runs on can do (state/platform.hpp), as plain data any action reads.
struct PlatformTraits {
  bool threads = true;       // background work on threads (a page opened from file:// has none: inline)
  bool file_picker = false;  // the platform chooses files itself (the browser's picker): no in-app dialog
  bool folders = true;       // files are saved into folders the user names (the browser downloads them)
  bool quit = true;          // File > Quit (a page closes like any other tab)
  bool share_links = false;  // File > Share link
};

// What a file the user chooses is for (the in-app file dialog, or the platform's picker).
enum class FilePurpose { None, OpenScenario, SaveScenario, OpenMatrixQ, OpenMatrixK, OpenMatrixV, SaveLessonCard, OpenModel, SaveTrainedModel, SaveHeadLinks };

// A file the app wrote for the user: the platform hands it over after the frame (the browser offers
// it as a download and says so).
enum class DeliveryKind { Scenario, WindowScreenshot, TrainedModel, Table };
struct Delivery {
  DeliveryKind kind = DeliveryKind::Scenario;
  std::string path;  // a file, or a trained model's folder
  int step = 0;      // TrainedModel: the training step it was saved at
};

}  // namespace attnlab::gui
