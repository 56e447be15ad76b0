// The Training window's actions; see training_actions.hpp.
#include "gui/training/training_actions.hpp"

#include "engine/model/training_tasks.hpp"
#include "gui/training/training_job.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace attnlab::gui {

namespace fs = std::filesystem;

namespace {

bool same_config(const model::TrainConfig& a, const model::TrainConfig& b) {
  return a.task.kind == b.task.kind && a.task.length == b.task.length && a.task.symbols == b.task.symbols &&
         a.n_layer == b.n_layer && a.n_head == b.n_head && a.d_model == b.d_model && a.steps == b.steps && a.batch == b.batch &&
         a.lr == b.lr && a.weight_decay == b.weight_decay && a.warmup == b.warmup && a.seed == b.seed;
}

void check_form(TrainingUi& t) {
  try {
    model::check_train_config(model::resolved(t.config));
    t.config_error.clear();
  } catch (const InputError& e) {
    t.config_error = e.what();
  }
}

// The job being replaced: asked to end, kept until its thread has (poll_training lets it go).
void retire(TrainingUi& t) {
  if (!t.job) return;
  t.job->stop();
  t.retiring.push_back(std::move(t.job));
  t.job.reset();
}

// A new run of the form from step 0, running or paused. False (and the sentence in place) when the
// form is refused.
bool new_run(TrainingUi& t, bool run, bool threaded) {
  check_form(t);
  if (!t.config_error.empty()) {
    t.error = t.config_error;
    return false;
  }
  retire(t);
  t.view = TrainingView{};
  t.error.clear();
  t.notice.clear();
  t.saved_dir.clear();
  t.saved_step = -1;
  t.lift_pending = false;
  t.open_after_save = false;
  t.job = std::make_shared<TrainingJob>(resolved_form(t), run, threaded);
  return true;
}

// The model in `dir` opened in the Model window, its chosen head this window's.
OpenInModelWindow open_in_model_window(const TrainingUi& t, const std::string& dir) {
  // A toy model's text is its symbols separated by spaces: the probe the maps here show.
  return OpenInModelWindow{dir, probe_text(t.view.probe), t.layer, t.head};
}

}  // namespace

void set_training_task(TrainingUi& t, const std::string& name) {
  try {
    t.config.task = model::default_task(name);
    t.config.steps = t.config.batch = 0;
    t.config.lr = 0;
    t.config.warmup = -1;
    // The form shows the numbers a run uses, not zeros meaning "the default"; the warm-up stays a
    // share of whatever steps are typed.
    t.config = model::resolved(t.config);
    t.config.warmup = -1;
    check_form(t);
  } catch (const InputError& e) {
    t.config_error = e.what();
  }
}

void ensure_training_form(TrainingUi& t) {
  if (t.config.task.length == 0) set_training_task(t, "induction");
}

void set_training_config(TrainingUi& t, const model::TrainConfig& config) {
  t.config = config;
  check_form(t);
}

model::TrainConfig resolved_form(const TrainingUi& t) {
  try {
    return model::resolved(t.config);
  } catch (const InputError&) {
    return t.config;
  }
}

bool training_resumable(const TrainingUi& t) {
  if (!t.job || !t.config_error.empty()) return false;
  const TrainingPhase p = t.view.phase;
  return (p == TrainingPhase::Starting || p == TrainingPhase::Paused || p == TrainingPhase::Running) &&
         same_config(t.job->config(), resolved_form(t));
}

bool training_running(const TrainingUi& t) { return t.job && t.view.phase == TrainingPhase::Running; }

bool training_busy(const TrainingUi& t) { return t.job && !t.job->idle(); }

void start_training(TrainingUi& t, bool threaded) {
  if (training_resumable(t)) {
    t.error.clear();
    t.job->run();
    return;
  }
  new_run(t, true, threaded);
}

void pause_training(TrainingUi& t) {
  if (t.job) t.job->pause();
}

void step_training(TrainingUi& t, bool threaded) {
  if (!training_resumable(t) && !new_run(t, false, threaded)) return;
  t.error.clear();
  t.job->step_once();
}

void cancel_training(TrainingUi& t) {
  if (t.job) t.job->cancel();
}

void reset_training(TrainingUi& t, bool threaded) { new_run(t, false, threaded); }

Commands poll_training(TrainingUi& t) {
  t.retiring.erase(std::remove_if(t.retiring.begin(), t.retiring.end(), [](const auto& j) { return j->thread_done(); }),
                   t.retiring.end());
  if (!t.job) return {};
  Commands out;
  t.job->poll(t.view);
  choose_training_head(t, t.layer, t.head);
  if (auto lift = t.job->take_lift()) {
    t.lift_pending = false;
    if (lift->scenario) {
      const std::string title = lift->scenario->title;
      t.lifted_titles.push_back(title);
      // The lab is where the head now is: the window steps aside (F2 brings it back).
      out.push_back(LoadScenario{std::move(*lift->scenario), "", "open " + title + " in the lab", "Training"});
    } else {
      t.error = lift->error;
    }
  }
  if (auto save = t.job->take_save()) {
    const bool then_open = t.open_after_save;
    t.open_after_save = false;
    if (!save->error.empty()) {
      t.error = save->error;
    } else {
      t.saved_dir = save->dir;
      t.saved_step = save->step;
      if (then_open) {
        out.push_back(open_in_model_window(t, save->dir));
      } else {
        t.notice = "Saved the model at step " + std::to_string(save->step) + " to " + save->dir;
        out.push_back(Deliver{{DeliveryKind::TrainedModel, save->dir, save->step}});
      }
    }
  }
  return out;
}

void choose_training_head(TrainingUi& t, int layer, int head) {
  if (t.view.maps.empty() || t.view.maps[0].empty()) return;
  t.layer = std::clamp(layer, 0, static_cast<int>(t.view.maps.size()) - 1);
  t.head = std::clamp(head, 0, static_cast<int>(t.view.maps[0].size()) - 1);
}

void lift_training_head(TrainingUi& t, int layer, int head) {
  if (!t.job) {
    t.error = "There is no model to lift a head from yet: press Start or Step first.";
    return;
  }
  choose_training_head(t, layer, head);
  t.error.clear();
  t.lift_pending = true;
  t.job->request_lift(t.layer, t.head);
}

void save_trained_model(TrainingUi& t, const std::string& dir) {
  if (!t.job) {
    t.error = "There is no model to save yet: press Start or Step first.";
    return;
  }
  std::error_code ec;
  const bool exists = fs::exists(dir, ec);
  if (exists && t.overwrite_dir != dir) {
    t.overwrite_dir = dir;
    t.error = dir + ": the folder exists; Save again to replace it, or choose another name.";
    return;
  }
  t.overwrite_dir.clear();
  t.error.clear();
  t.notice.clear();
  t.open_after_save = false;
  t.job->request_save(dir, exists);
}

Commands open_trained_in_model_window(TrainingUi& t) {
  if (!t.job) {
    t.error = "There is no model to open yet: press Start or Step first.";
    return {};
  }
  std::error_code ec;
  if (!t.saved_dir.empty() && t.saved_step == t.view.step && !training_running(t) && fs::exists(t.saved_dir, ec)) {
    return {open_in_model_window(t, t.saved_dir)};
  }
  if (!t.scratch) {
    auto scratch = std::make_shared<ScratchFolder>();
    const fs::path path = fs::temp_directory_path(ec) / ("attnlab-training-" + std::to_string(::getpid()));
    fs::create_directories(path, ec);
    if (ec) {
      t.error = path.string() + ": cannot make a folder for the model (" + ec.message() + "); use Save model… instead.";
      return {};
    }
    scratch->path = path;
    t.scratch = std::move(scratch);
  }
  const std::string name = trained_model_name(t) + (t.scratch_count ? "-" + std::to_string(t.scratch_count) : "");
  ++t.scratch_count;
  t.error.clear();
  t.open_after_save = true;
  t.job->request_save((t.scratch->path / name).string(), true);
  return {};
}

std::string trained_model_name(const TrainingUi& t) {
  if (!t.job) return "model";
  return std::string(model::task_name(t.job->config().task.kind)) + "-step-" + std::to_string(t.view.step);
}

std::string training_banner(const TrainingUi& t, const Scenario& shown) {
  const auto& lifted = t.lifted_titles;
  return std::find(lifted.begin(), lifted.end(), shown.title) != lifted.end() ? shown.title : std::string();
}

std::string kind_change_text(const KindChange& c) {
  const std::string kind(model::head_kind_name(c.kind));
  const bool vowel = !kind.empty() && std::string("aeiou").find(kind[0]) != std::string::npos;
  return "L" + std::to_string(c.layer) + "H" + std::to_string(c.head) + " became " + (vowel ? "an " : "a ") + kind + " head at step " +
         std::to_string(c.step);
}

std::string probe_text(const std::vector<int>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
  return out;
}

}  // namespace attnlab::gui
