// What every view may read this frame besides its own UI state: the live document, the results, the
// view settings, what the platform can do, and the services it draws with (fonts, glyphs, the heatmap
// renderer). All const: a view changes the app only by the commands it returns (commands.hpp). The
// shell makes one per frame; views never see AppState.
#pragma once

#include "gui/state/document.hpp"
#include "gui/state/results.hpp"
#include "gui/state/services.hpp"
#include "gui/state/view_settings.hpp"

#include <cstdint>

namespace attnlab::gui {

struct ViewContext {
  const Document& doc;
  std::uint64_t doc_version;
  const Results& results;
  const ViewSettings& view;
  const PlatformTraits& platform;
  const Services& services;

  // The scenario the shown result was computed from (results.hpp): what labels, explanations and
  // exports of the result use.
  const Scenario& shown() const { return shown_scenario(results, doc); }
  bool result_is_current() const { return attnlab::gui::result_is_current(results, doc_version); }
};

}  // namespace attnlab::gui
