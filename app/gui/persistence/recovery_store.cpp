// The recovery file: debounced atomic writes of the document, the start-up offer, clean removal.
#include "gui/persistence/recovery_store.hpp"

#include "engine/io/atomic_file.hpp"
#include "gui/state/worker_thread.hpp"

#include <unistd.h>

#include <ctime>
#include <utility>

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

// Keep working; the next change tries again. Never let a full disk stop a lesson. Returns the
// sentence for the status line the first time.
std::string report_write_error(RecoveryUi& r, const std::string& what) {
  if (!r.write_error.empty()) return {};
  r.write_error = "unsaved work is not being backed up: " + what;
  return r.write_error;
}

}  // namespace

fs::path recovery_path(const fs::path& config_dir) { return config_dir / "recovery.json"; }

std::string recovery_tick(RecoveryUi& r, const RecoveryDocument& d, bool threaded, const fs::path& dir, double now) {
  if (dir.empty() || r.offer) return {};
  if (d.version == r.written_version) {
    r.changed_at = -1;
    return {};
  }
  if (r.changed_at < 0) {
    r.changed_at = now;
    return {};
  }
  if (now - r.changed_at < kRecoveryDelaySeconds) return {};
  std::string said;
  if (r.in_flight) {
    if (!r.in_flight->done()) return {};  // one write at a time; this change is written next
    const std::string error = r.in_flight->error();
    r.in_flight.reset();
    if (!error.empty()) said = report_write_error(r, error);
  }
  const Scenario& sc = d.doc.scenario;
  const fs::path file = recovery_path(dir);
  if (sc.Q.size() + sc.K.size() + sc.V.size() > kBackgroundRecoveryNumbers) {
    // The thread gets its own copy of the document: edits go on while it writes.
    auto doc = std::make_shared<const Document>(d.doc);
    r.in_flight = std::make_shared<BackgroundWrite>(
        [doc, file, path = d.scenario_path, saved_at = local_time_now(), pid = static_cast<long>(::getpid())] {
          std::error_code ec;
          fs::create_directories(file.parent_path(), ec);
          write_file_atomic(file, recovery_json(*doc, path, saved_at, pid));
        },
        threaded);
  } else {
    try {
      std::error_code ec;
      fs::create_directories(dir, ec);
      write_file_atomic(file, recovery_json(d.doc, d.scenario_path, local_time_now(), static_cast<long>(::getpid())));
      r.write_error.clear();
    } catch (const std::exception& e) {
      said = report_write_error(r, e.what());
    }
  }
  r.written_version = d.version;
  r.changed_at = -1;
  return said;
}

void finish_recovery_writes(RecoveryUi& r) { r.in_flight.reset(); }

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

std::string check_for_recovery(RecoveryUi& r, std::uint64_t doc_version, const fs::path& dir) {
  r.written_version = doc_version;  // the document as started needs no backup yet
  if (dir.empty()) return {};
  const fs::path file = recovery_path(dir);
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  try {
    r.work = parse_recovery(read_file(file), file.string());
    r.offer = true;
  } catch (const InputError& e) {
    fs::remove(file, ec);
    return std::string("a recovery file from an earlier run could not be read and was removed: ") + e.what();
  }
  return {};
}

std::optional<RecoveredWork> take_recovered_work(RecoveryUi& r) {
  if (!r.offer) return std::nullopt;
  r.offer = false;
  return std::exchange(r.work, RecoveredWork{});
}

void discard_recovered_work(RecoveryUi& r, const fs::path& dir) {
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
