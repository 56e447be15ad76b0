// The recompute after an edit: the document goes to the chosen backend (Services::backend) and its
// result, with the caches derived from it (result_caches.hpp), into the results. Knows nothing of panels.
#pragma once

#include "engine/attention/backend.hpp"
#include "gui/state/document.hpp"
#include "gui/state/results.hpp"
#include "gui/state/view_settings.hpp"

#include <cstdint>
#include <string>

namespace attnlab::gui {

struct Services;

// What a recompute said besides the results it changed: the sentence for the status line (why it
// failed; a note on a streaming run that could not have the GPU), and whether the document must go
// back to the one the shown result belongs to (bad input found only by computing: scores that are
// not a number, sizes that cannot fit), so that what is on screen stays consistent and the next
// frame does not retry.
struct Recomputed {
  std::string error, notice;
  bool roll_back = false;
};

// Recomputes the results when the document (version `doc_version`) changed, on `backend`; on failure
// the last good result stays. Documents too large for dense stages (gui_streams) are streamed on a
// background thread (on a backend of `backend`'s kind, where `platform` has threads): each call also
// takes a finished run's result.
Recomputed recompute_if_needed(Results& results, const Document& doc, std::uint64_t doc_version, Backend& backend,
                               const PlatformTraits& platform);
// The kind of the active backend (the CPU where there is none yet): a streaming run's thread makes one
// of that kind.
BackendKind active_backend_kind(const Services& services);
// Starts (or restarts) the background streaming run of `doc` (version `doc_version`) on a backend of
// kind `kind` (the active one's), on a thread where `platform` has them. Returns why it could not
// start (bad input, too little memory), empty when it did.
std::string start_streaming(Results& results, const Document& doc, std::uint64_t doc_version, BackendKind kind,
                            const PlatformTraits& platform);
// Stops the running streaming computation; the last good result stays.
void cancel_streaming(Results& results);

}  // namespace attnlab::gui
