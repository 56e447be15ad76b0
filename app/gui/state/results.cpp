// Which scenario the shown result belongs to (results.hpp).
#include "gui/state/results.hpp"

namespace attnlab::gui {

const Scenario& shown_scenario(const Results& results, const Document& live) {
  return results.computed_doc ? results.computed_doc->scenario : live.scenario;
}

bool result_is_current(const Results& results, std::uint64_t doc_version) {
  return results.has_result && results.computed_doc && results.computed_version == doc_version;
}

}  // namespace attnlab::gui
