// A model's forward pass on a background thread, so that a long text recomputes while the window
// stays responsive, with progress (layers done) and Cancel, as compute_job.hpp does for attention.
#pragma once

#include "engine/model/model_report.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace attnlab::gui {

class ModelJob {
public:
  // Starts at once: every head's weights and kinds, and the top 10 next tokens, of `ids` (on a
  // thread when `threaded`, PlatformTraits::threads; else inside the constructor).
  ModelJob(std::shared_ptr<const model::LanguageModel> model, std::vector<int> ids, bool threaded);
  // Cancels and waits for the thread (a cancelled run stops after its current layer).
  ~ModelJob();
  ModelJob(const ModelJob&) = delete;
  ModelJob& operator=(const ModelJob&) = delete;

  const std::vector<int>& ids() const { return ids_; }
  double progress() const { return progress_.load(); }  // layers done / layers, 0..1
  bool done() const { return done_.load(); }
  void cancel() { cancel_ = true; }
  bool cancelled() const { return cancel_.load(); }
  // Once done(): the run (taken once), or the sentence saying why there is none.
  std::shared_ptr<const model::ModelRun> take_run();
  std::string error() const;

private:
  void run();
  std::shared_ptr<const model::LanguageModel> model_;
  std::vector<int> ids_;
  std::atomic<bool> cancel_{false}, done_{false};
  std::atomic<double> progress_{0.0};
  mutable std::mutex mutex_;  // guards run_ and error_
  std::shared_ptr<const model::ModelRun> run_;
  std::string error_;
  std::thread thread_;  // last: starts after every other member is ready
};

}  // namespace attnlab::gui
