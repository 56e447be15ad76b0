// The recompute after an edit: dense documents through the chosen backend on this thread, larger
// ones streamed by a ComputeJob on a background thread (see compute.hpp).
#include "gui/state/compute.hpp"

#include "gui/state/compute_job.hpp"
#include "gui/state/result_caches.hpp"
#include "gui/state/services.hpp"

#include <chrono>
#include <new>
#include <utility>

namespace attnlab::gui {

namespace {

// Bad input found only by computing (scores that overflow to NaN, sizes that cannot fit): the
// document goes back to the one the shown result belongs to, so what is on screen stays consistent
// and the next frame does not retry. The refused edit's undo entry stays (undoing it is harmless).
void roll_back_to_computed(AppState& state) {
  if (!state.results.computed_doc) return;
  state.doc = *state.results.computed_doc;
  ++state.doc_version;
  state.results.computed_version = state.doc_version;
  state.history.merge_key.clear();
  state.error += "; the edit was not applied";
}

// Takes a finished streaming run's result (or its error) into the state.
void poll_job(AppState& state) {
  if (!state.results.job || !state.results.job->done()) return;
  const std::shared_ptr<ComputeJob> job = std::move(state.results.job);
  std::optional<Result> r = job->take_result();
  if (!r) {
    if (job->error() == "cancelled") state.results.job_cancelled = true;
    else state.error = job->error();
    return;
  }
  state.results.blocked = BlockGrid();  // n × m would not fit: the streaming views never need it
  for (int k = 0; k < kStageCount; ++k) state.results.ranges[static_cast<size_t>(k)] = {0.0, 1.0};
  state.results.ranges[static_cast<size_t>(Stage::Output)] = finite_range(r->output, nullptr);
  state.results.streamed = streamed_views(*r);
  state.results.result = std::move(*r);
  state.results.has_result = true;
  state.results.computed_doc = std::exchange(state.results.job_doc, std::nullopt);
  state.results.computed_version = job->doc_version();
  ++state.results.result_version;
  state.results.last_compute_ms = job->elapsed_ms();
  state.results.backend_description = job->description();
  if (!job->fallback_note().empty()) state.notice = job->fallback_note();
}

}  // namespace

BackendKind active_backend_kind(const Services& services) {
  return services.backend ? services.backend->kind() : BackendKind::Cpu;
}

std::string start_streaming(Results& results, const Document& doc, std::uint64_t doc_version, BackendKind kind,
                            const PlatformTraits& platform) {
  results.job.reset();  // cancels a stale run and waits for its current tile
  results.job_cancelled = false;
  try {
    Problem problem = doc.scenario.problem();
    validate_problem(problem);
    if (results.result.n != problem.Q.rows() || results.result.m != problem.K.rows()) results.has_result = false;
    results.job_doc = doc;
    results.job = std::make_shared<ComputeJob>(std::move(problem), doc_version, headless_backend_factory(kind), platform.threads);
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::bad_alloc&) {
    return "the streaming computation ran out of memory; showing the last result that fit";
  }
  return {};
}

void cancel_streaming(Results& results) {
  if (!results.job) return;
  results.job.reset();
  results.job_cancelled = true;
}

void recompute_if_needed(AppState& state, Services& services) {
  poll_job(state);
  if (!state.results.needs_compute) return;
  state.results.needs_compute = false;
  if (gui_streams(state.doc.scenario.Q.rows(), state.doc.scenario.K.rows())) {
    const BackendKind kind = active_backend_kind(services);
    if (std::string why = start_streaming(state.results, state.doc, state.doc_version, kind, state.platform); !why.empty()) {
      state.error = std::move(why);
    }
    return;
  }
  state.results.job.reset();  // a dense document makes a streaming run stale
  state.results.job_cancelled = false;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const Problem problem = state.doc.scenario.problem();
    Result r = services.backend->compute(problem);
    state.results.blocked = mask_grid(problem.options.mask, r.n, r.m);
    for (int k = 0; k < kStageCount; ++k) {
      const Stage st = static_cast<Stage>(k);
      state.results.ranges[static_cast<size_t>(k)] =
          r.dense || st == Stage::Output ? finite_range(stage_matrix(r, st), st == Stage::Logits ? &state.results.blocked : nullptr)
                                         : std::pair<double, double>{0.0, 1.0};
    }
    state.results.overflow = overflow_notes(r, state.results.blocked, query_labels(state.doc.scenario));
    state.results.result = std::move(r);
    state.results.has_result = true;
    ++state.results.result_version;
    state.results.computed_doc = state.doc;
    state.results.computed_version = state.doc_version;
  } catch (const InputError& e) {
    state.error = e.what();
    roll_back_to_computed(state);
  } catch (const std::bad_alloc&) {
    state.error = "the computation ran out of memory; showing the last result that fit";
    roll_back_to_computed(state);
  } catch (const std::exception& e) {
    state.error = std::string("the ") + services.backend->description() + " backend failed: " + e.what();
  }
  state.results.last_compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  state.results.backend_description = services.backend->description();
}

}  // namespace attnlab::gui
