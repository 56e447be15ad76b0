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

// Takes a finished streaming run's result (or its error) into the results.
void poll_job(Results& results, Recomputed& said) {
  if (!results.job || !results.job->done()) return;
  const std::shared_ptr<ComputeJob> job = std::move(results.job);
  std::optional<Result> r = job->take_result();
  if (!r) {
    if (job->error() == "cancelled") results.job_cancelled = true;
    else said.error = job->error();
    return;
  }
  results.blocked = BlockGrid();  // n × m would not fit: the streaming views never need it
  for (int k = 0; k < kStageCount; ++k) results.ranges[static_cast<size_t>(k)] = {0.0, 1.0};
  results.ranges[static_cast<size_t>(Stage::Output)] = finite_range(r->output, nullptr);
  results.streamed = streamed_views(*r);
  results.result = std::move(*r);
  results.has_result = true;
  results.computed_doc = std::exchange(results.job_doc, std::nullopt);
  results.computed_version = job->doc_version();
  ++results.result_version;
  results.last_compute_ms = job->elapsed_ms();
  results.backend_description = job->description();
  said.notice = job->fallback_note();
}

// The document computed densely on `backend` into the results; bad input found only by computing
// (scores that overflow to NaN, sizes that cannot fit) asks for the document to be rolled back.
void compute_dense(Results& results, const Document& doc, std::uint64_t doc_version, Backend& backend, Recomputed& said) {
  results.job.reset();  // a dense document makes a streaming run stale
  results.job_cancelled = false;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const Problem problem = doc.scenario.problem();
    Result r = backend.compute(problem);
    results.blocked = mask_grid(problem.options.mask, r.n, r.m);
    for (int k = 0; k < kStageCount; ++k) {
      const Stage st = static_cast<Stage>(k);
      results.ranges[static_cast<size_t>(k)] =
          r.dense || st == Stage::Output ? finite_range(stage_matrix(r, st), st == Stage::Logits ? &results.blocked : nullptr)
                                         : std::pair<double, double>{0.0, 1.0};
    }
    results.overflow = overflow_notes(r, results.blocked, query_labels(doc.scenario));
    results.result = std::move(r);
    results.has_result = true;
    ++results.result_version;
    results.computed_doc = doc;
    results.computed_version = doc_version;
  } catch (const InputError& e) {
    said.error = e.what();
    said.roll_back = results.computed_doc.has_value();
  } catch (const std::bad_alloc&) {
    said.error = "the computation ran out of memory; showing the last result that fit";
    said.roll_back = results.computed_doc.has_value();
  } catch (const std::exception& e) {
    said.error = std::string("the ") + backend.description() + " backend failed: " + e.what();
  }
  results.last_compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  results.backend_description = backend.description();
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

Recomputed recompute_if_needed(Results& results, const Document& doc, std::uint64_t doc_version, Backend& backend,
                              const PlatformTraits& platform) {
  Recomputed said;
  poll_job(results, said);
  if (!results.needs_compute) return said;
  results.needs_compute = false;
  if (gui_streams(doc.scenario.Q.rows(), doc.scenario.K.rows())) {
    if (std::string why = start_streaming(results, doc, doc_version, backend.kind(), platform); !why.empty()) said.error = std::move(why);
    return said;
  }
  compute_dense(results, doc, doc_version, backend, said);
  return said;
}

}  // namespace attnlab::gui
