// Never lose work: the document goes to <config>/recovery.json a moment after every change
// (atomically: temporary file, then rename), the file is removed on a clean exit, and a file left
// behind by a crash or a kill -9 is offered back on the next start.
#pragma once

#include "gui/persistence/session_file.hpp"  // recovery_json/parse_recovery of the file's text
#include "gui/state/app_state.hpp"

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace attnlab::gui {

// How long the document must stay unchanged before it is written: a slider drag or a burst of
// typing makes one write, and no work older than about this is ever lost.
inline constexpr double kRecoveryDelaySeconds = 0.5;

std::filesystem::path recovery_path(const std::filesystem::path& config_dir);

// The recovery file's JSON for the current document, written by this process (session_file.hpp).
std::string recovery_json(const AppState& state, std::string_view saved_at);

// Once per frame (`now` in seconds, any monotonic clock): notes a document change and writes the
// file kRecoveryDelaySeconds after the last one. Never throws: a failed write is reported in
// state.recovery.write_error and retried on the next change. Does nothing while an offer is open
// (the file still holds the work being offered) or when `dir` is empty.
void recovery_tick(AppState& state, const std::filesystem::path& dir, double now);

// At start-up, after the document is set up: a recovery file left behind opens the offer.
// An unreadable one is removed (it cannot be restored) and reported in state.error.
// Returns true when an offer is open.
bool check_for_recovery(AppState& state, const std::filesystem::path& dir);

// The answer to the offer. Restoring replaces the document as one undoable action.
void restore_recovered_work(AppState& state);
void discard_recovered_work(AppState& state, const std::filesystem::path& dir);

// A clean exit: the session holds the work now, so the recovery file goes. Call
// finish_recovery_writes first, or a write still running could bring the file back.
void remove_recovery_file(const std::filesystem::path& dir);
// Waits for a recovery write running in the background (large documents, see recovery_tick).
void finish_recovery_writes(AppState& state);

// Documents with more numbers than this are formatted and written on a background thread: a
// 100 000 × 64 document is 220 MB of JSON and takes seconds, which would freeze the window.
inline constexpr long kBackgroundRecoveryNumbers = 1 << 20;

// One write of the recovery file on its own thread (inline without `threaded`); the destructor waits
// for it.
class BackgroundWrite {
public:
  BackgroundWrite(std::function<void()> work, bool threaded);
  ~BackgroundWrite();
  BackgroundWrite(const BackgroundWrite&) = delete;
  BackgroundWrite& operator=(const BackgroundWrite&) = delete;
  bool done() const { return done_.load(); }
  std::string error() const;  // empty when it succeeded (valid once done())

private:
  std::atomic<bool> done_{false};
  mutable std::mutex mutex_;
  std::string error_;
  std::thread thread_;  // last: starts after the other members exist
};

}  // namespace attnlab::gui
