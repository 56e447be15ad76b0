// The background streaming computation of the GUI (see compute_job.hpp).
#include "gui/state/compute_job.hpp"

#include "engine/attention/backend.hpp"
#include "engine/cpu/cpu_backend.hpp"
#include "gui/state/worker_thread.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <new>

namespace attnlab::gui {

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ComputeJob::ComputeJob(Problem problem, std::uint64_t doc_version, BackendFactory backend, bool threaded)
    : problem_(std::move(problem)),
      doc_version_(doc_version),
      backend_(std::move(backend)),
      started_ms_(now_ms()),
      thread_(start_worker(threaded, [this] { run(); })) {}

ComputeJob::~ComputeJob() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

double ComputeJob::elapsed_ms() const { return now_ms() - started_ms_; }

void ComputeJob::run() {
  // Below the window's thread: the UI keeps its frames while the run uses the cores. The worker
  // threads that OpenMP starts from this thread inherit the value.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  StreamingOptions options;
  options.cancel = &cancel_;
  options.progress = [this](double fraction) { progress_ = fraction; };
  std::optional<Result> result;
  std::string error, description = "CPU streaming (tiles, online softmax)", fallback;
  try {
    std::unique_ptr<Backend> backend;
    try {
      backend = backend_.make();
    } catch (const BackendUnavailable& e) {
      fallback = std::string("streaming on the CPU: ") + e.what();
      backend = make_cpu_backend();
    }
    result = backend->compute_streaming(problem_, options);
    // The GPU hands the rows its kernels cannot finish to the CPU, and the result says so.
    if (backend->kind() == BackendKind::Gpu) {
      if (result->computed_by.all_on(BackendKind::Gpu)) {
        description = "GPU streaming (" + backend->device() + ")";
      } else {
        fallback = "streaming on the CPU: " + result->computed_by.why;
      }
    }
  } catch (const Cancelled&) {
    error = "cancelled";
  } catch (const InputError& e) {
    error = e.what();
  } catch (const std::bad_alloc&) {
    error = "the streaming computation ran out of memory; showing the last result that fit";
  } catch (const std::exception& e) {
    error = std::string("the streaming computation failed: ") + e.what();
  }
  {
    const std::lock_guard lock(mutex_);
    result_ = std::move(result);
    error_ = std::move(error);
    description_ = std::move(description);
    fallback_note_ = std::move(fallback);
  }
  done_ = true;
}

std::optional<Result> ComputeJob::take_result() {
  const std::lock_guard lock(mutex_);
  std::optional<Result> r = std::move(result_);
  result_.reset();
  return r;
}

std::string ComputeJob::error() const {
  const std::lock_guard lock(mutex_);
  return error_;
}

std::string ComputeJob::description() const {
  const std::lock_guard lock(mutex_);
  return description_;
}

std::string ComputeJob::fallback_note() const {
  const std::lock_guard lock(mutex_);
  return fallback_note_;
}

bool gui_streams(Eigen::Index n, Eigen::Index m) {
  return n > kMaxDenseSide || m > kMaxDenseSide || !dense_fits(n, m);
}

}  // namespace attnlab::gui
