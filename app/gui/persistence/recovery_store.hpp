// Never lose work: the document goes to <config>/recovery.json a moment after every change
// (atomically: temporary file, then rename), the file is removed on a clean exit, and a file left
// behind by a crash or a kill -9 is offered back on the next start.
#pragma once

#include "gui/persistence/session_file.hpp"  // recovery_json/parse_recovery of the file's text
#include "gui/state/document.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace attnlab::gui {

// How long the document must stay unchanged before it is written: a slider drag or a burst of
// typing makes one write, and no work older than about this is ever lost.
inline constexpr double kRecoveryDelaySeconds = 0.5;

std::filesystem::path recovery_path(const std::filesystem::path& config_dir);

class BackgroundWrite;

// The recovery file (recovery_store.hpp): what was written last, and the offer made at start-up.
struct RecoveryUi {
  std::uint64_t written_version = 0;  // doc_version that the recovery file holds
  double changed_at = -1;             // seconds (frame clock) of the last unwritten change
  bool offer = false;                 // ask "restore unsaved work?" until answered
  RecoveredWork work;
  std::string write_error;            // shown once in the status line when writing fails
  std::shared_ptr<BackgroundWrite> in_flight;  // a large document's write, running (recovery_store.hpp)
};

// The document as the recovery file keeps it: the document, its version and where it was read from.
struct RecoveryDocument {
  const Document& doc;
  std::uint64_t version = 0;
  const std::string& scenario_path;
};

// Once per frame (`now` in seconds, any monotonic clock): notes a document change and writes the
// file kRecoveryDelaySeconds after the last one (large documents on a thread when `threaded`). Never
// throws: a failed write is kept in r.write_error and retried on the next change; the first failure's
// sentence is returned for the status line (empty otherwise). Does nothing while an offer is open
// (the file still holds the work being offered) or when `dir` is empty.
std::string recovery_tick(RecoveryUi& r, const RecoveryDocument& d, bool threaded, const std::filesystem::path& dir, double now);

// At start-up, after the document (version `doc_version`) is set up: a recovery file left behind
// opens the offer (r.offer). An unreadable one is removed (it cannot be restored); the sentence that
// says so is returned (empty otherwise).
std::string check_for_recovery(RecoveryUi& r, std::uint64_t doc_version, const std::filesystem::path& dir);

// The answer to the offer. Restoring hands back the work (the shell replaces the document with it, as
// one undoable action); nothing when no offer is open.
std::optional<RecoveredWork> take_recovered_work(RecoveryUi& r);
void discard_recovered_work(RecoveryUi& r, const std::filesystem::path& dir);

// A clean exit: the session holds the work now, so the recovery file goes. Call
// finish_recovery_writes first, or a write still running could bring the file back.
void remove_recovery_file(const std::filesystem::path& dir);
// Waits for a recovery write running in the background (large documents, see recovery_tick).
void finish_recovery_writes(RecoveryUi& r);

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
