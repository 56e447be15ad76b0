// The Scaling lab's run, a slice per frame (scaling_lab_ui.hpp).
#include "gui/scaling_lab/scaling_lab_ui.hpp"

#include "engine/gpu/backend_choice.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>

namespace attnlab::gui {

namespace {

constexpr double kFrameBudgetMs = 15.0;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void start_scaling(ScalingLabState& lab) {
  ScalingOptions o;
  o.d_ks.clear();
  for (int i = 0; i < ScalingLabState::kDkChoices; ++i) {
    if (lab.dk_on[static_cast<size_t>(i)]) o.d_ks.push_back(1 << i);
  }
  o.keys = lab.keys;
  o.trials = lab.trials;
  o.seed = static_cast<std::uint64_t>(std::max(0, lab.seed));
  lab.error.clear();
  try {
    lab.job.emplace(o);
    lab.started_ms = now_ms();
    lab.status.clear();
  } catch (const std::exception& e) {
    lab.job.reset();
    lab.error = e.what();
  }
}

void advance_scaling(ScalingLabState& lab, Backend& backend) {
  if (!lab.job) return;
  if (lab.started_ms == 0) lab.started_ms = now_ms();
  try {
    if (!lab.sampler) lab.sampler = make_scaling_sampler(backend);
    if (lab.job->step(*lab.sampler, kFrameBudgetMs)) {
      lab.result = lab.job->result();
      lab.status = fixed_decimals((now_ms() - lab.started_ms) / 1000.0, 2) + " s on " + backend.description();
      lab.job.reset();
      lab.started_ms = 0;
      lab.histogram_row = std::min<int>(lab.histogram_row, static_cast<int>(lab.result.rows.size()) - 1);
    }
  } catch (const std::exception& e) {
    lab.error = e.what();
    lab.job.reset();
  }
}

void cancel_scaling(ScalingLabState& lab) {
  if (!lab.job) return;
  lab.result = lab.job->result();
  lab.status = "cancelled after " + std::to_string(lab.result.rows.size()) + " of " + std::to_string(lab.job->options().d_ks.size()) +
               " d_k values";
  lab.job.reset();
}

}  // namespace attnlab::gui
