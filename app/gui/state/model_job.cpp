// The forward pass on its own thread; see model_job.hpp.
#include "gui/state/model_job.hpp"
#include "gui/state/worker_thread.hpp"

namespace attnlab::gui {

ModelJob::ModelJob(std::shared_ptr<const model::LanguageModel> m, std::vector<int> ids, bool threaded)
    : model_(std::move(m)), ids_(std::move(ids)), thread_(start_worker(threaded, [this] { run(); })) {}

ModelJob::~ModelJob() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

void ModelJob::run() {
  try {
    model::ForwardOptions opt;
    opt.top_k = 10;
    // Every head's q, k, v when they are small (64 tokens of GPT-2 small: 7 MiB), so that "Open
    // in the lab" lifts at once; a long text's are recomputed for the one head lifted.
    const auto& c = model_->config();
    const double qkv_bytes = 4.0 * 3 * static_cast<double>(ids_.size()) * c.q_width() * c.n_layer;
    opt.keep_all_qkv = qkv_bytes <= 64.0 * 1024 * 1024;
    opt.progress = [this](int done, int all) {
      progress_ = static_cast<double>(done) / all;
      return !cancel_.load();
    };
    auto r = std::make_shared<model::ModelRun>(model::run_model(*model_, ids_, opt));
    std::lock_guard<std::mutex> lock(mutex_);
    if (r->trace.cancelled) error_ = "cancelled";
    else run_ = std::move(r);
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
  return std::move(run_);
}

std::string ModelJob::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

}  // namespace attnlab::gui
