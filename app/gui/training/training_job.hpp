// A Trainer (engine/model/trainer.hpp) stepped on its own thread, so that the Training window stays
// at frame rate while a model trains: the window asks (run, pause, one step, cancel, lift a head,
// save) and the thread answers by publishing snapshots under a mutex that it holds only to copy
// them. The window never touches the Trainer, and never waits for a step.
//
// A page opened from file:// cannot have threads (gui/state/worker_thread.hpp), so in the browser
// the same loop runs inside the frame instead: each poll() first works for up to kFrameSeconds
// (at least one step while running), then the window draws what it published.
#pragma once

#include "engine/io/scenario.hpp"
#include "engine/model/trainer.hpp"
#include "gui/training/training_ui.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace attnlab::gui {

class TrainingJob {
public:
  // Starts the thread, which makes the Trainer for `config` and waits paused (or runs at once).
  // Without `threaded` (PlatformTraits::threads: a page from file://) there is no thread: poll()
  // does the thread's work inside each frame, for about kFrameSeconds.
  TrainingJob(model::TrainConfig config, bool run, bool threaded);
  // Stops the thread after the step in progress and joins it.
  ~TrainingJob();
  TrainingJob(const TrainingJob&) = delete;
  TrainingJob& operator=(const TrainingJob&) = delete;

  const model::TrainConfig& config() const { return config_; }

  // Requests; each returns at once and takes effect after the step in progress.
  void run();
  void pause();
  void step_once();
  // Stops training for good after the step in progress; the model stays for lifting and saving.
  void cancel();
  // Ends the thread after the step in progress without waiting for it (thread_done() says when it
  // has): a job being replaced is stopped, kept until then, and destroyed without blocking.
  void stop();
  // The head's q, k, v on the probe sequence as a scenario (Trainer::lift_head), taken by take_lift.
  // Pauses first, so the lifted head is the model as it is now, as the maps show it.
  void request_lift(int layer, int head);
  // Writes the model folder (Trainer::save) on the thread; the outcome by take_save.
  void request_save(const std::string& dir, bool force);

  // Brings `view` up to date with what the thread has published (appends new points). Returns
  // true when anything changed.
  bool poll(TrainingView& view);
  // The thread has ended (after Cancel, or a failure) or is idle: nothing is stepping now.
  bool idle() const;
  bool thread_done() const;
  // Once answered: the lifted scenario, or the sentence why not.
  struct LiftOutcome {
    std::optional<Scenario> scenario;
    std::string error;
    int layer = 0, head = 0, step = 0;
  };
  std::optional<LiftOutcome> take_lift();
  struct SaveOutcome {
    std::string dir, error;  // error empty: written
    int step = 0;
  };
  std::optional<SaveOutcome> take_save();

  // How often the thread looks at the heads' kinds: every this many steps (deterministic, so a
  // seed gives the same markers), and the maps at least this often in time while running.
  static int check_every(int steps);
  static constexpr double kMapsSeconds = 0.2;
  static constexpr double kFrameSeconds = 0.03;

private:
  void thread_main();
  // The thread's loop, one pass: answers a lift or a save, or takes one step. `wait`: block until
  // there is something to do (the thread); else return false at once when there is nothing (the
  // browser's frame). Returns false when the job is to end or, not waiting, has nothing to do.
  bool pass(bool wait);
  // Makes the Trainer; false (the phase Failed, with the sentence) when it cannot be made.
  bool make_trainer();
  void set_phase(TrainingPhase phase, const std::string& error = {});
  void finish();  // nothing will step again: idle and done
  void advance(double seconds);  // the thread's work inside a frame, for about `seconds` (no threads)
  void publish_maps(model::Trainer& trainer, bool check_kinds);
  int shared_maps_step() const;

  model::TrainConfig config_;
  bool in_frame_;  // no thread: the work is done inside poll()
  // Requests from the window (guarded by request_mutex_, signalled by wake_).
  mutable std::mutex request_mutex_;
  std::condition_variable wake_;
  bool running_ = false, quit_ = false, cancel_ = false;
  int steps_wanted_ = 0;
  std::optional<std::pair<int, int>> lift_request_;
  std::optional<std::pair<std::string, bool>> save_request_;
  std::optional<LiftOutcome> lift_outcome_;
  std::optional<SaveOutcome> save_outcome_;
  bool busy_ = true;  // the thread is making the Trainer or stepping
  bool done_ = false;

  // What the thread publishes (guarded by view_mutex_).
  mutable std::mutex view_mutex_;
  TrainingView shared_;

  // The thread's own: the kinds it settled on per head, and a change seen once, awaiting its second
  // look ([layer][head]).
  std::vector<std::vector<model::HeadKind>> settled_;
  std::vector<std::vector<std::optional<KindChange>>> candidate_;
  std::set<std::tuple<int, int, model::HeadKind>> marked_;  // (layer, head, kind) already marked
  std::chrono::steady_clock::time_point last_maps_{};
  std::unique_ptr<model::Trainer> trainer_;
  bool failed_ = false;
  double seconds_per_step_ = 0;

  std::thread thread_;  // last: starts after every other member is ready
};

}  // namespace attnlab::gui
