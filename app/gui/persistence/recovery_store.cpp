// The recovery file: debounced atomic writes of the document, the start-up offer, clean removal.
#include "gui/persistence/recovery_store.hpp"

#include "engine/io/atomic_file.hpp"
#include "gui/state/history.hpp"
#include "gui/state/worker_thread.hpp"

#include <unistd.h>

#include <ctime>

namespace attnlab::gui {

namespace fs = std::filesystem;

namespace {

std::string local_time_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// Keep working; the next change tries again. Never let a full disk stop a lesson.
void report_write_error(AppState& state, const std::string& what) {
  RecoveryUi& r = state.recovery;
  if (r.write_error.empty()) {
    r.write_error = "unsaved work is not being backed up: " + what;
    state.error = r.write_error;
  }
}

}  // namespace

fs::path recovery_path(const fs::path& config_dir) { return config_dir / "recovery.json"; }

std::string recovery_json(const AppState& state, std::string_view saved_at) {
  return recovery_json(state.doc, state.scenario_path, saved_at, static_cast<long>(::getpid()));
}

void recovery_tick(AppState& state, const fs::path& dir, double now) {
  RecoveryUi& r = state.recovery;
  if (dir.empty() || r.offer) return;
  if (state.doc_version == r.written_version) {
    r.changed_at = -1;
    return;
  }
  if (r.changed_at < 0) {
    r.changed_at = now;
    return;
  }
  if (now - r.changed_at < kRecoveryDelaySeconds) return;
  if (r.in_flight) {
    if (!r.in_flight->done()) return;  // one write at a time; this change is written next
    const std::string error = r.in_flight->error();
    r.in_flight.reset();
    if (!error.empty()) report_write_error(state, error);
  }
  const Scenario& sc = state.doc.scenario;
  const fs::path file = recovery_path(dir);
  if (sc.Q.size() + sc.K.size() + sc.V.size() > kBackgroundRecoveryNumbers) {
    // The thread gets its own copy of the document: edits go on while it writes.
    auto doc = std::make_shared<const Document>(state.doc);
    r.in_flight = std::make_shared<BackgroundWrite>(
        [doc, file, path = state.scenario_path, saved_at = local_time_now(), pid = static_cast<long>(::getpid())] {
          std::error_code ec;
          fs::create_directories(file.parent_path(), ec);
          write_file_atomic(file, recovery_json(*doc, path, saved_at, pid));
        },
        state.platform.threads);
  } else {
    try {
      std::error_code ec;
      fs::create_directories(dir, ec);
      write_file_atomic(file, recovery_json(state, local_time_now()));
      r.write_error.clear();
    } catch (const std::exception& e) {
      report_write_error(state, e.what());
    }
  }
  r.written_version = state.doc_version;
  r.changed_at = -1;
}

void finish_recovery_writes(AppState& state) { state.recovery.in_flight.reset(); }

BackgroundWrite::BackgroundWrite(std::function<void()> work, bool threaded)
    : thread_(start_worker(threaded, [this, work = std::move(work)] {
        try {
          work();
        } catch (const std::exception& e) {
          const std::lock_guard lock(mutex_);
          error_ = e.what();
        }
        done_ = true;
      })) {}

BackgroundWrite::~BackgroundWrite() {
  if (thread_.joinable()) thread_.join();
}

std::string BackgroundWrite::error() const {
  const std::lock_guard lock(mutex_);
  return error_;
}

bool check_for_recovery(AppState& state, const fs::path& dir) {
  RecoveryUi& r = state.recovery;
  r.written_version = state.doc_version;  // the document as started needs no backup yet
  if (dir.empty()) return false;
  const fs::path file = recovery_path(dir);
  std::error_code ec;
  if (!fs::exists(file, ec)) return false;
  try {
    r.work = parse_recovery(read_file(file), file.string());
    r.offer = true;
  } catch (const InputError& e) {
    fs::remove(file, ec);
    state.error = std::string("a recovery file from an earlier run could not be read and was removed: ") + e.what();
  }
  return r.offer;
}

void restore_recovered_work(AppState& state) {
  RecoveryUi& r = state.recovery;
  if (!r.offer) return;
  r.offer = false;
  const RecoveredWork w = std::move(r.work);
  r.work = RecoveredWork{};
  apply(state, "restore unsaved work", [&](Document& d) { d = w.doc; });
  if (state.error.empty()) {
    state.scenario_path = w.scenario_path;
    state.notice = "Restored the work from " + (w.saved_at.empty() ? std::string("the last run") : w.saved_at);
  }
  end_merge(state);
}

void discard_recovered_work(AppState& state, const fs::path& dir) {
  RecoveryUi& r = state.recovery;
  r.offer = false;
  r.work = RecoveredWork{};
  remove_recovery_file(dir);
}

void remove_recovery_file(const fs::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::remove(recovery_path(dir), ec);
}

}  // namespace attnlab::gui
