// The Scaling lab's own state and what it does with it: Exercise 2.3.1 run a slice per frame so the
// GUI stays responsive, on the active backend; Cancel keeps the d_k values already finished. Never
// part of the document, never undone.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/lessons/scaling.hpp"

#include <array>
#include <memory>
#include <optional>
#include <string>

namespace attnlab::gui {

struct ScalingLabState {
  static constexpr int kDkChoices = 17;  // d_k = 1, 2, 4, …, 65536
  std::array<bool, kDkChoices> dk_on{};  // set in the constructor: 8, 64, 512, 4096
  int keys = 10;
  int trials = 1000;
  int seed = 42;
  int histogram_row = 0;             // index into result.rows
  std::optional<ScalingJob> job;     // set while running
  // Made from the active backend by the run's first slice; dropped whenever the backend changes (a GPU
  // sampler uses its backend's GL programs) and before the window's GL context goes.
  std::shared_ptr<ScalingSampler> sampler;
  ScalingResult result;              // the last finished (or cancelled) run
  std::string status;                // "cancelled after 2 of 4 d_k values", "1.20 s on GPU: …"
  std::string error;
  double started_ms = 0;             // steady clock at start, for the status line
  ScalingLabState() { dk_on[3] = dk_on[6] = dk_on[9] = dk_on[12] = true; }
  bool running() const { return job.has_value(); }
};

// Run: the form's d_k values, keys, trials and seed as a new run; an invalid form says why in
// lab.error.
void start_scaling(ScalingLabState& lab);
// One slice of the run under way, about a frame's worth, on `backend` (its sampler made on first use);
// a finished run keeps its result and says how long it took. Nothing to do when no run is under way.
void advance_scaling(ScalingLabState& lab, Backend& backend);
// Cancel: the run stops, keeping the d_k values it finished.
void cancel_scaling(ScalingLabState& lab);

}  // namespace attnlab::gui
