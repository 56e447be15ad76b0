// The Training window's state (training/training_window.cpp, docs/MODELS.md "The Training window"):
// the form, the run in progress and what its thread last published, the chosen head, lifted
// heads' titles (the banner), the saved folder. Plain data; training/training_actions.hpp changes it.
#pragma once

#include "engine/model/head_kinds.hpp"
#include "engine/model/trainer.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::gui {

class TrainingJob;  // training/training_job.hpp

// One optimizer step's numbers on its batch.
struct TrainingPoint {
  int step = 0;
  float loss = 0, accuracy = 0;
};

// A head that settled into a new kind (the first time it settles into that kind): "L1H2 became an
// induction head at step 430".
struct KindChange {
  int step = 0, layer = 0, head = 0;
  model::HeadKind kind = model::HeadKind::Mixed;
  double score = 0;
};

enum class TrainingPhase {
  Starting,   // the thread is making the Trainer (its weights from the seed)
  Paused,     // waiting for Start or Step
  Running,
  Finished,   // every step done
  Cancelled,  // stopped for good by Cancel; the model as it was stays
  Failed,     // the config was refused, memory ran out or the loss diverged: `error` says why
};

// What the training thread publishes; the window keeps a copy (TrainingJob::poll updates it).
struct TrainingView {
  TrainingPhase phase = TrainingPhase::Starting;
  int step = 0, steps = 0;
  double steps_per_second = 0;
  std::vector<TrainingPoint> points;  // every step's, in order
  // Every head's attention on the task's probe sequence, [layer][head] (n × n each), and its kind,
  // as the model was after `maps_step` steps.
  std::vector<int> probe;
  std::vector<std::vector<model::CausalWeights>> maps;
  std::vector<std::vector<model::HeadVerdict>> kinds;
  int maps_step = -1;
  std::uint64_t maps_version = 0;  // bumped whenever the maps change
  std::vector<KindChange> changes;
  std::optional<model::Evaluation> evaluation;  // held-out loss and accuracy once finished
  std::string error;
};

// A folder of this session's own (models written for "Open in the Model window"), removed when the
// app closes. The Model window maps the file it opened, which stays readable after the removal.
struct ScratchFolder {
  std::filesystem::path path;
  ScratchFolder() = default;
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

struct TrainingUi {
  // The form, as typed: 0 (and warmup −1) mean the task's default, shown resolved.
  model::TrainConfig config;
  std::string config_error;  // check_train_config's sentence for the form, shown beside it
  bool form_open = true;     // the form shown, else a one-line summary (Start folds it away)
  std::shared_ptr<TrainingJob> job;  // the run (its thread idles when paused, finished or cancelled)
  // Jobs replaced by Reset or a new Start: their threads end after the step in progress and are
  // joined once done, so replacing one never waits for a step.
  std::vector<std::shared_ptr<TrainingJob>> retiring;
  TrainingView view;
  std::string error;   // a refused action (a lift, a save), in place; the last good state stays
  std::string notice;  // "Saved to models/induction (step 2000)"
  int layer = 0, head = 0;  // the chosen head (outlined; the one a click lifts)
  bool lift_pending = false;
  std::vector<std::string> lifted_titles;  // titles of heads lifted into the lab (the banner)
  // The last folder written and the step it holds: "Open in the Model window" reuses it while the
  // model has not trained since.
  std::string saved_dir;
  int saved_step = -1;
  std::string overwrite_dir;  // a save refused because this folder exists: Save again replaces it
  bool open_after_save = false;  // the save in flight is for "Open in the Model window"
  std::shared_ptr<ScratchFolder> scratch;
  int scratch_count = 0;
};

}  // namespace attnlab::gui
