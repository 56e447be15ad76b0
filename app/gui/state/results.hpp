// The results: the last good computation of the document, what is derived from it once (not per
// frame: n × m scans cost at n = 1024) and the streaming run under way. A result carries the document
// it was computed from (`computed_doc`): whatever explains, labels or exports a result uses that,
// never the live document, which an edit may already have moved on.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/overflow_notes.hpp"
#include "engine/attention/stage.hpp"
#include "engine/gpu/backend_choice.hpp"
#include "gui/state/document.hpp"
#include "gui/state/result_caches.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace attnlab::gui {

class ComputeJob;  // compute_job.hpp

struct Results {
  Result result;  // kept when a computation fails
  bool has_result = false;
  // The document the result was computed from. An edit whose computation is refused as bad input
  // (scores that are not a number, sizes that cannot fit) is also rolled back to it.
  std::optional<Document> computed_doc;
  std::uint64_t computed_version = 0;  // the doc_version of computed_doc (result_is_current)
  BlockGrid blocked;  // n × m, the mask the result was computed with
  std::array<std::pair<double, double>, kStageCount> ranges{};  // finite min/max of each stage
  OverflowNotes overflow;  // why any stage shows ±∞ (float32 overflow), one sentence per kind
  StreamedViews streamed;  // derived from a streamed result once (result_caches.hpp)
  bool needs_compute = true;
  std::uint64_t result_version = 0;  // bumped on every new result (GL textures re-upload on change)
  double last_compute_ms = 0;
  std::string backend_description;
  BackendChoice backend_choice = BackendChoice::Cpu;
  // A document too large for dense stages (compute_job.hpp: gui_streams) is computed by streaming
  // on a background thread; set while that runs, with the document it computes. The result stays
  // the last good one meanwhile (has_result is false when its sizes differ from the document's).
  std::shared_ptr<ComputeJob> job;
  std::optional<Document> job_doc;
  bool job_cancelled = false;  // the user cancelled the last streaming run: nothing is computing
};

// The scenario the shown result was computed from (the live one until a first result): what labels,
// explanations and exports of the result use, since an edit may already have changed the live one.
const Scenario& shown_scenario(const Results& results, const Document& live);
// Whether the shown result is the live document's (version `doc_version`): false between an edit and
// its recompute (for a streamed document, until its run finishes). What changes the document at a
// cell of the result (a shift-click that blocks it) waits for this; what only reads the result uses
// shown_scenario.
bool result_is_current(const Results& results, std::uint64_t doc_version);

}  // namespace attnlab::gui
