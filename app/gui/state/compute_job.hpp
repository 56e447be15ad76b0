// A streaming computation running on a background thread, so that a document whose n × m stages
// do not fit (n = m = 100 000) computes while the window stays responsive, with progress and cancel.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/gpu/backend_choice.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace attnlab::gui {

class ComputeJob {
public:
  // Starts the streaming computation of `problem` at once, on a backend that `backend` makes on the
  // job's own thread (headless_backend_factory: the window's GL context belongs to the window's
  // thread), or on the CPU where it cannot, saying why. `doc_version` names the document it computes.
  // Without `threaded` (PlatformTraits::threads) it runs inside the constructor.
  ComputeJob(Problem problem, std::uint64_t doc_version, BackendFactory backend, bool threaded = true);
  // Cancels the computation and waits for the thread (a cancelled run stops at its next tile).
  ~ComputeJob();
  ComputeJob(const ComputeJob&) = delete;
  ComputeJob& operator=(const ComputeJob&) = delete;

  std::uint64_t doc_version() const { return doc_version_; }
  // Whether it was asked to run on the GPU (fallback_note() says when it could not).
  bool on_gpu() const { return backend_.kind == BackendKind::Gpu; }
  Eigen::Index rows() const { return problem_.Q.rows(); }
  Eigen::Index keys() const { return problem_.K.rows(); }
  // Fraction of query rows done, 0..1.
  double progress() const { return progress_.load(); }
  double elapsed_ms() const;
  bool done() const { return done_.load(); }
  void cancel() { cancel_ = true; }

  // Once done(): the result, or the sentence saying why there is none. Each can be taken once.
  std::optional<Result> take_result();
  std::string error() const;
  // Once done(): what computed it ("GPU streaming: …" or "CPU streaming …"), and why the GPU was
  // not used when it was asked for (empty otherwise).
  std::string description() const;
  std::string fallback_note() const;

private:
  void run();

  Problem problem_;
  std::uint64_t doc_version_;
  BackendFactory backend_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> done_{false};
  std::atomic<double> progress_{0.0};
  double started_ms_ = 0;
  mutable std::mutex mutex_;  // guards result_, error_, description_ and fallback_note_
  std::optional<Result> result_;
  std::string error_;
  std::string description_;
  std::string fallback_note_;
  std::thread thread_;  // last: starts after every other member is ready
};

// True when the GUI computes an n × m document by streaming: its dense stages would not fit in
// memory, or they are too large to show as textures (the window shows pixels, not 10⁸ cells).
bool gui_streams(Eigen::Index n, Eigen::Index m);
// The largest n or m the GUI keeps dense.
inline constexpr Eigen::Index kMaxDenseSide = 8192;

}  // namespace attnlab::gui
