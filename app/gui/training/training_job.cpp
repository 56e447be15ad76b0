// The Trainer on its own thread (in the browser, inside the frame); see training_job.hpp.
#include "gui/training/training_job.hpp"

#include "engine/model/training_tasks.hpp"

#include <algorithm>
#include <new>

namespace attnlab::gui {

namespace {

bool is_pattern(model::HeadKind k) { return k != model::HeadKind::Broad && k != model::HeadKind::Mixed; }

}  // namespace

int TrainingJob::check_every(int steps) { return std::max(1, steps / 200); }

int TrainingJob::shared_maps_step() const {
  std::lock_guard<std::mutex> lock(view_mutex_);
  return shared_.maps_step;
}

TrainingJob::TrainingJob(model::TrainConfig config, bool run, bool threaded)
    : config_(std::move(config)), in_frame_(!threaded), running_(run) {
  // Without threads, advance() does the thread's work inside each frame.
  if (!in_frame_) thread_ = std::thread([this] { thread_main(); });
}

TrainingJob::~TrainingJob() {
  stop();
  if (thread_.joinable()) thread_.join();
}

void TrainingJob::stop() {
  {
    std::lock_guard<std::mutex> lock(request_mutex_);
    quit_ = true;
    if (in_frame_) done_ = true;  // nothing runs between frames: it has ended now
  }
  wake_.notify_all();
}

void TrainingJob::run() {
  {
    std::lock_guard<std::mutex> lock(request_mutex_);
    if (cancel_) return;
    running_ = true;
  }
  wake_.notify_all();
}

void TrainingJob::pause() {
  std::lock_guard<std::mutex> lock(request_mutex_);
  running_ = false;
  steps_wanted_ = 0;
}

void TrainingJob::step_once() {
  {
    std::lock_guard<std::mutex> lock(request_mutex_);
    if (cancel_) return;
    running_ = false;
    ++steps_wanted_;
  }
  wake_.notify_all();
}

void TrainingJob::cancel() {
  {
    std::lock_guard<std::mutex> lock(request_mutex_);
    cancel_ = true;
    running_ = false;
    steps_wanted_ = 0;
  }
  wake_.notify_all();
}

void TrainingJob::request_lift(int layer, int head) {
  {
    std::lock_guard<std::mutex> lock(request_mutex_);
    running_ = false;
    steps_wanted_ = 0;
    lift_request_ = std::make_pair(layer, head);
    lift_outcome_.reset();
  }
  wake_.notify_all();
}

void TrainingJob::request_save(const std::string& dir, bool force) {
  {
    std::lock_guard<std::mutex> lock(request_mutex_);
    save_request_ = std::make_pair(dir, force);
    save_outcome_.reset();
  }
  wake_.notify_all();
}

bool TrainingJob::poll(TrainingView& view) {
  if (in_frame_) advance(kFrameSeconds);
  std::lock_guard<std::mutex> lock(view_mutex_);
  bool changed = view.phase != shared_.phase || view.step != shared_.step || view.error != shared_.error ||
                 view.changes.size() != shared_.changes.size() || view.evaluation.has_value() != shared_.evaluation.has_value();
  view.phase = shared_.phase;
  view.step = shared_.step;
  view.steps = shared_.steps;
  view.steps_per_second = shared_.steps_per_second;
  view.error = shared_.error;
  view.evaluation = shared_.evaluation;
  // The points only grow: the window copies the new ones (a long run has tens of thousands).
  if (view.points.size() > shared_.points.size()) view.points.clear();
  if (view.points.size() < shared_.points.size()) {
    view.points.insert(view.points.end(), shared_.points.begin() + static_cast<std::ptrdiff_t>(view.points.size()), shared_.points.end());
    changed = true;
  }
  if (view.maps_version != shared_.maps_version) {
    view.probe = shared_.probe;
    view.maps = shared_.maps;
    view.kinds = shared_.kinds;
    view.maps_step = shared_.maps_step;
    view.maps_version = shared_.maps_version;
    changed = true;
  }
  if (view.changes.size() != shared_.changes.size()) view.changes = shared_.changes;
  return changed;
}

bool TrainingJob::idle() const {
  std::lock_guard<std::mutex> lock(request_mutex_);
  return !busy_;
}

bool TrainingJob::thread_done() const {
  std::lock_guard<std::mutex> lock(request_mutex_);
  return done_;
}

std::optional<TrainingJob::LiftOutcome> TrainingJob::take_lift() {
  std::lock_guard<std::mutex> lock(request_mutex_);
  std::optional<LiftOutcome> out = std::move(lift_outcome_);
  lift_outcome_.reset();
  return out;
}

std::optional<TrainingJob::SaveOutcome> TrainingJob::take_save() {
  std::lock_guard<std::mutex> lock(request_mutex_);
  std::optional<SaveOutcome> out = std::move(save_outcome_);
  save_outcome_.reset();
  return out;
}

// The forward pass on the probe sequence: every head's map and kind. At a check (every
// check_every steps) a head whose kind differs from the one it settled on is looked at again at
// the next check, and only a kind seen twice in a row settles: a head hovering at the detector's
// threshold does not scatter markers over the curve.
void TrainingJob::publish_maps(model::Trainer& trainer, bool check_kinds) {
  const int step = trainer.steps_done();
  std::vector<int> probe = model::probe_sequence(trainer.config().task);
  const model::ForwardTrace trace = trainer.forward(probe);
  std::vector<std::vector<model::CausalWeights>> maps(trace.heads.size());
  std::vector<std::vector<model::HeadVerdict>> kinds(trace.heads.size());
  for (std::size_t l = 0; l < trace.heads.size(); ++l) {
    for (const model::HeadTrace& h : trace.heads[l]) {
      maps[l].push_back(h.weights);
      kinds[l].push_back(model::classify_head(h.weights, probe));
    }
  }
  std::vector<KindChange> settled_now;
  if (settled_.empty()) {
    // The kinds at the first look are where each head starts: no marker.
    for (const auto& row : kinds) {
      settled_.emplace_back();
      candidate_.emplace_back(row.size());
      for (const auto& v : row) settled_.back().push_back(v.kind);
    }
  } else if (check_kinds) {
    for (std::size_t l = 0; l < kinds.size(); ++l) {
      for (std::size_t h = 0; h < kinds[l].size(); ++h) {
        const model::HeadVerdict& v = kinds[l][h];
        std::optional<KindChange>& seen = candidate_[l][h];
        if (v.kind == settled_[l][h]) {
          seen.reset();
        } else if (seen && seen->kind == v.kind) {
          settled_[l][h] = v.kind;
          // A head marked once for a kind is not marked again when it wavers and returns.
          const auto key = std::make_tuple(static_cast<int>(l), static_cast<int>(h), v.kind);
          if (is_pattern(v.kind) && marked_.insert(key).second) settled_now.push_back(*seen);
          seen.reset();
        } else {
          seen = KindChange{step, static_cast<int>(l), static_cast<int>(h), v.kind, v.score};
        }
      }
    }
  }
  last_maps_ = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(view_mutex_);
  shared_.probe = std::move(probe);
  shared_.maps = std::move(maps);
  shared_.kinds = std::move(kinds);
  shared_.maps_step = step;
  ++shared_.maps_version;
  shared_.changes.insert(shared_.changes.end(), settled_now.begin(), settled_now.end());
}

void TrainingJob::set_phase(TrainingPhase phase, const std::string& error) {
  std::lock_guard<std::mutex> lock(view_mutex_);
  shared_.phase = phase;
  if (!error.empty()) shared_.error = error;
}

void TrainingJob::finish() {
  std::lock_guard<std::mutex> lock(request_mutex_);
  busy_ = false;
  done_ = true;
}

bool TrainingJob::make_trainer() {
  try {
    trainer_ = std::make_unique<model::Trainer>(config_);
    {
      std::lock_guard<std::mutex> lock(view_mutex_);
      shared_.steps = trainer_->config().steps;
    }
    publish_maps(*trainer_, false);
    return true;
  } catch (const std::bad_alloc&) {
    set_phase(TrainingPhase::Failed, "out of memory making the model: lower --d-model, --layers or --batch");
  } catch (const std::exception& e) {
    set_phase(TrainingPhase::Failed, e.what());
  }
  finish();
  return false;
}

void TrainingJob::thread_main() {
  if (!make_trainer()) return;
  while (pass(true)) {
  }
  finish();
}

void TrainingJob::advance(double seconds) {
  if (done_) return;
  if (!trainer_ && !make_trainer()) return;
  const auto start = std::chrono::steady_clock::now();
  while (pass(false) && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
  }
  if (quit_) finish();
}

bool TrainingJob::pass(bool wait) {
  model::Trainer& trainer = *trainer_;
  bool do_step = false, keep_running = false;
  std::optional<std::pair<int, int>> lift;
  std::optional<std::pair<std::string, bool>> save;
  {
    std::unique_lock<std::mutex> lock(request_mutex_);
    const auto may_step = [&] { return !failed_ && !cancel_ && !trainer.finished() && (running_ || steps_wanted_ > 0); };
    const auto has_work = [&] { return quit_ || lift_request_ || save_request_ || may_step(); };
    // Before waiting, say where the model stands: paused, finished, cancelled (or still running),
    // with the maps of the model as it is (a pause asked for during a step arrives after it).
    if (!may_step()) {
      lock.unlock();
      if (!failed_ && shared_maps_step() != trainer.steps_done()) publish_maps(trainer, false);
      set_phase(failed_ ? TrainingPhase::Failed
                : cancel_ ? TrainingPhase::Cancelled
                : trainer.finished() ? TrainingPhase::Finished
                                     : TrainingPhase::Paused);
      lock.lock();
    }
    // Idle only now: whoever sees idle() and then polls gets the maps and phase just published.
    busy_ = false;
    if (wait) wake_.wait(lock, has_work);
    if (quit_) return false;
    if (!has_work()) return false;  // the browser's frame: nothing to do now
    lift = std::move(lift_request_);
    lift_request_.reset();
    save = std::move(save_request_);
    save_request_.reset();
    if (!lift && !save && may_step()) {
      do_step = true;
      if (!running_) --steps_wanted_;
    }
    keep_running = running_;
    busy_ = true;
  }
  try {
    if (lift) {
      // The maps first, so that what the window shows is the head it lifts.
      publish_maps(trainer, false);
      LiftOutcome out;
      out.layer = lift->first;
      out.head = lift->second;
      out.step = trainer.steps_done();
      try {
        out.scenario = trainer.lift_head(model::probe_sequence(trainer.config().task), lift->first, lift->second);
      } catch (const InputError& e) {
        out.error = e.what();
      }
      std::lock_guard<std::mutex> lock(request_mutex_);
      lift_outcome_ = std::move(out);
    }
    if (save) {
      SaveOutcome out;
      out.dir = save->first;
      out.step = trainer.steps_done();
      try {
        trainer.save(save->first, save->second);
      } catch (const InputError& e) {
        out.error = e.what();
      } catch (const std::bad_alloc&) {
        out.error = save->first + ": out of memory writing the model";
      }
      std::lock_guard<std::mutex> lock(request_mutex_);
      save_outcome_ = std::move(out);
    }
    if (!do_step) return true;
    if (keep_running) set_phase(TrainingPhase::Running);
    const auto t0 = std::chrono::steady_clock::now();
    const model::StepStats s = trainer.step();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    seconds_per_step_ = seconds_per_step_ == 0 ? dt : 0.9 * seconds_per_step_ + 0.1 * dt;
    {
      std::lock_guard<std::mutex> lock(view_mutex_);
      shared_.points.push_back({s.step, static_cast<float>(s.loss), static_cast<float>(s.accuracy)});
      shared_.step = s.step;
      shared_.steps_per_second = seconds_per_step_ > 0 ? 1.0 / seconds_per_step_ : 0;
    }
    const bool at_check = s.step % check_every(trainer.config().steps) == 0;
    const bool stopping = trainer.finished() || !keep_running;
    const bool stale = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_maps_).count() >= kMapsSeconds;
    if (at_check || stopping || stale) publish_maps(trainer, at_check);
    if (trainer.finished()) {
      const model::Evaluation e = trainer.evaluate();
      std::lock_guard<std::mutex> lock(view_mutex_);
      shared_.evaluation = e;
    }
  } catch (const std::bad_alloc&) {
    failed_ = true;
    set_phase(TrainingPhase::Failed, "out of memory while training: lower --d-model, --layers or --batch");
  } catch (const std::exception& e) {
    // TrainingDiverged says at which step and what to lower; the model stays as it was before it.
    failed_ = true;
    set_phase(TrainingPhase::Failed, e.what());
  }
  return true;
}

}  // namespace attnlab::gui
