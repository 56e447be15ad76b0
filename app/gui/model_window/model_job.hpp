// A model's run on a background thread, so that a long text recomputes while the window stays
// responsive, with progress and Cancel, as compute_job.hpp does for attention. Every run goes
// through the window's sequence over a KV cache (engine/model/generate.hpp): a text edited at its
// end runs only from the first changed token, and Generate writes tokens one position at a time.
#pragma once

#include "engine/model/generate.hpp"
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

// What a run asks of the window's sequence: to become the text's tokens, or to write tokens after
// itself.
struct ModelRequest {
  std::vector<int> ids;  // the text's tokens (when generate is 0)
  int generate = 0;      // tokens to write after the sequence
  model::SamplingOptions sampling;
  std::shared_ptr<model::Sampler> sampler;  // the draws' generator, advanced by them
};

class ModelJob {
public:
  // Starts at once (on a thread when `threaded`, PlatformTraits::threads; else inside the
  // constructor). The job uses `sequence` alone until it is done.
  ModelJob(std::shared_ptr<const model::LanguageModel> model, std::shared_ptr<model::CachedSequence> sequence, ModelRequest request,
           bool threaded);
  // Cancels and waits for the thread (a cancelled run stops after its current layer).
  ~ModelJob();
  ModelJob(const ModelJob&) = delete;
  ModelJob& operator=(const ModelJob&) = delete;

  bool generating() const { return request_.generate > 0; }
  double progress() const { return progress_.load(); }  // 0..1: layers of the text's run, or tokens written
  std::string status() const;                            // "layer 3 of 12", "token 4 of 20"
  // A text's run: the positions it runs, those after the prefix its sequence already holds
  // (−1 until known; 0 when nothing changed).
  std::int64_t positions_run() const { return positions_.load(); }
  bool done() const { return done_.load(); }
  void cancel() { cancel_ = true; }
  bool cancelled() const { return cancel_.load(); }
  // The run as it now stands, taken once (null when nothing new): after a text's run; while
  // generating, after each written token (when the one before was taken), and once more at the
  // end, stopped or not, with every token written.
  std::shared_ptr<const model::ModelRun> take_run();
  // Once done() with no run: the sentence saying why.
  std::string error() const;

private:
  void run();
  void run_text();
  void run_generation();
  void publish(std::vector<model::DrawnToken> written);
  std::shared_ptr<const model::LanguageModel> model_;
  std::shared_ptr<model::CachedSequence> sequence_;
  ModelRequest request_;
  std::atomic<bool> cancel_{false}, done_{false}, taken_{true};
  std::atomic<double> progress_{0.0};
  std::atomic<int> layers_done_{0}, tokens_done_{0};
  std::atomic<std::int64_t> positions_{-1};
  mutable std::mutex mutex_;  // guards run_ and error_
  std::shared_ptr<const model::ModelRun> run_;
  std::string error_;
  std::thread thread_;  // last: starts after every other member is ready
};

// The sequence a Model window runs `model` through: every head's attention rows, and every head's
// q, k, v while they fit in 64 MiB (64 tokens of GPT-2 small take 7 MiB), so that "Open in the lab"
// lifts at once; a longer text's are recomputed for the one head lifted.
std::shared_ptr<model::CachedSequence> window_sequence(const model::LanguageModel& model);

}  // namespace attnlab::gui
