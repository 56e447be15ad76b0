// A run of the window's sequence on its own thread; see model_job.hpp.
#include "gui/model_window/model_job.hpp"
#include "gui/state/worker_thread.hpp"

#include <algorithm>

namespace attnlab::gui {

std::shared_ptr<model::CachedSequence> window_sequence(const model::LanguageModel& model) {
  const auto& c = model.config();
  model::SequenceOptions so;
  so.keep_all_qkv = true;
  so.qkv_max_positions = std::max<std::int64_t>(1, 64ll * 1024 * 1024 / (4ll * 3 * c.q_width() * c.n_layer));
  return std::make_shared<model::CachedSequence>(model, so);
}

ModelJob::ModelJob(std::shared_ptr<const model::LanguageModel> m, std::shared_ptr<model::CachedSequence> sequence, ModelRequest request,
                   bool threaded)
    : model_(std::move(m)), sequence_(std::move(sequence)), request_(std::move(request)), thread_(start_worker(threaded, [this] { run(); })) {}

ModelJob::~ModelJob() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string ModelJob::status() const {
  if (generating()) return "token " + std::to_string(std::min(tokens_done_.load() + 1, request_.generate)) + " of " + std::to_string(request_.generate);
  std::string s = "layer " + std::to_string(layers_done_.load()) + " of " + std::to_string(model_->config().n_layer);
  const std::int64_t run = positions_run(), all = static_cast<std::int64_t>(request_.ids.size());
  if (run >= 0 && run < all) s += " · " + std::to_string(run) + " of " + std::to_string(all) + " tokens (the rest from the cache)";
  return s;
}

void ModelJob::publish(std::vector<model::DrawnToken> written) {
  auto r = std::make_shared<model::ModelRun>(model::sequence_run(*sequence_, std::move(written), 10));
  std::lock_guard<std::mutex> lock(mutex_);
  run_ = std::move(r);
  taken_ = false;
}

void ModelJob::run_text() {
  const auto progress = [this](int done, int all) {
    layers_done_ = done;
    progress_ = static_cast<double>(done) / all;
    return !cancel_.load();
  };
  positions_ = static_cast<std::int64_t>(request_.ids.size()) - sequence_->reused(request_.ids);
  if (sequence_->assign(request_.ids, "the text", progress) < 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = "cancelled";
    return;
  }
  publish({});
}

void ModelJob::run_generation() {
  model::GenerateOptions go;
  go.count = request_.generate;
  go.sampling = request_.sampling;
  go.progress = [this](int, int) { return !cancel_.load(); };
  std::vector<model::DrawnToken> so_far;
  model::generate(*sequence_, *request_.sampler, go, [&](const model::DrawnToken& t) {
    so_far.push_back(t);
    tokens_done_ = static_cast<int>(so_far.size());
    progress_ = static_cast<double>(so_far.size()) / request_.generate;
    // A new picture of the grid only once the window has taken the last: assembling it costs as
    // much as a step at a few hundred tokens.
    if (taken_.load() && static_cast<int>(so_far.size()) < request_.generate) publish(so_far);
    return !cancel_.load();
  });
  publish(std::move(so_far));  // stopped or finished: every token written so far
}

void ModelJob::run() {
  try {
    if (generating()) run_generation();
    else run_text();
  } catch (const std::bad_alloc&) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = "out of memory: try a shorter text";
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = e.what();
  }
  done_ = true;
}

std::shared_ptr<const model::ModelRun> ModelJob::take_run() {
  std::lock_guard<std::mutex> lock(mutex_);
  taken_ = true;
  return std::move(run_);
}

std::string ModelJob::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

}  // namespace attnlab::gui
