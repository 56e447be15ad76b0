// The recompute after an edit: the document goes to the chosen backend (Services::backend) and its
// result, with the caches derived from it (result_caches.hpp), into AppState. Knows nothing of panels.
#pragma once

#include "gui/shell/app_state.hpp"

#include <cstdint>
#include <string>

namespace attnlab::gui {

struct Services;

// Recomputes the result when the document changed, through the backend; on failure keeps the
// last good result and sets state.error.
// Documents too large for dense stages (gui_streams) are streamed on a background thread:
// each call also takes a finished run's result.
void recompute_if_needed(AppState& state, Services& services);
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
