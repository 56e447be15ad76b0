// `attnlab train`: trains a small GPT-2 or Llama on a task of docs/CLI.md's "Training" contract,
// prints progress on stderr, evaluates it on held-out sequences and writes the model folder
// atomically.
#include "cli/commands.hpp"
#include "engine/model/families.hpp"
#include "engine/model/trainer.hpp"
#include "engine/text/text_format.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <vector>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace attnlab::cli {

namespace {

// Sequences the final evaluation draws (held out: a stream apart from training's).
constexpr int kEvaluationSequences = 512;

// Progress on stderr: on a terminal one line rewritten about 4 times a second; to a file a line
// every 2 s; always the last step.
class TrainProgress {
public:
  TrainProgress() : tty_(::isatty(STDERR_FILENO) == 1), start_(Clock::now()), last_(start_) {}
  void show(const model::StepStats& s, int steps, bool force) {
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (!force && since < (tty_ ? 0.25 : 2.0)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? s.step / elapsed : 0.0;
    std::cerr << (tty_ ? "\r" : "") << "step " << s.step << "/" << steps << "  loss " << fixed_decimals(s.loss, 4) << "  accuracy "
              << fixed_decimals(s.accuracy, 3) << "  " << fixed_decimals(rate, 1) << " steps/s" << (tty_ ? "   " : "\n");
    shown_ = true;
  }
  void done() {
    if (tty_ && shown_) std::cerr << "\n";
  }

private:
  using Clock = std::chrono::steady_clock;
  bool tty_;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

struct TrainArgs {
  std::string task = "induction", family = model::family_spec(model::TrainConfig{}.family).model_type, out, format = "text";
  int layers = model::TrainConfig{}.n_layer, heads = model::TrainConfig{}.n_head, d_model = model::TrainConfig{}.d_model;
  int kv_heads = 0, steps = 0, batch = 0, length = 0, symbols = 0;
  double lr = 0, rope_theta = 0, weight_decay = model::TrainConfig{}.weight_decay;
  std::uint64_t seed = model::TrainConfig{}.seed;
  bool force = false, timing = false, start_token = false;
};

// The run the flags ask for; 0 in a field means the task's own default.
model::TrainConfig train_config(const TrainArgs& a, CLI::App* cmd) {
  model::TrainConfig config;
  config.task = model::default_task(a.task);
  // The family by its row of the table (the flag's choices are those the trainer writes).
  config.family = model::find_family(a.family)->family;
  config.n_kv_head = a.kv_heads;
  config.rope_theta = a.rope_theta;
  if (a.length) config.task.length = a.length;
  if (a.symbols) config.task.symbols = a.symbols;
  config.task.start_token = a.start_token;
  config.n_layer = a.layers;
  config.n_head = a.heads;
  config.d_model = a.d_model;
  config.steps = a.steps;
  config.batch = a.batch;
  config.lr = a.lr;
  config.seed = a.seed;
  config.weight_decay = a.weight_decay;
  // A size flag given as 0 is a mistake, not "the task's default" (which 0 means inside).
  for (const auto& [flag, value] : {std::pair<const char*, double>{"--steps", a.steps}, {"--batch", a.batch}, {"--lr", a.lr},
                                    {"--length", a.length}, {"--symbols", a.symbols}, {"--kv-heads", a.kv_heads},
                                    {"--rope-theta", a.rope_theta}}) {
    if (cmd->get_option(flag)->count() > 0 && !(value > 0)) {
      throw InputError(std::string(flag) + " " + fixed_decimals(value, 0) + ": give a positive number");
    }
  }
  return config;
}

// Refuses an --out that cannot be written before the training time is spent on it.
void check_out_folder(const TrainArgs& a) {
  std::error_code ec;
  const std::filesystem::path out(a.out);
  if (!a.force && std::filesystem::exists(std::filesystem::symlink_status(out, ec))) {
    throw InputError("--out " + a.out + ": exists; pass --force to replace it");
  }
  const std::filesystem::path parent = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(parent, ec)) {
    throw InputError("--out " + a.out + ": the folder " + parent.string() + " does not exist");
  }
}

// Every step, with its progress line; with --timing, the median step and when a batch first
// reached 90% accuracy: how long a student waits for a working model (docs/PERFORMANCE.md,
// "Training").
void train_all_steps(model::Trainer& trainer, bool timing, std::chrono::steady_clock::time_point start) {
  using Clock = std::chrono::steady_clock;
  TrainProgress progress;
  std::vector<double> step_ms;
  int step_at_90 = 0;
  double seconds_at_90 = 0;
  while (!trainer.finished()) {
    const auto t0 = Clock::now();
    model::StepStats last;
    try {
      last = trainer.step();
    } catch (...) {
      progress.done();  // the error's line starts a line of its own on a terminal
      throw;
    }
    step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (step_at_90 == 0 && last.accuracy >= 0.9) {
      step_at_90 = last.step;
      seconds_at_90 = std::chrono::duration<double>(Clock::now() - start).count();
    }
    progress.show(last, trainer.config().steps, last.step == 1 || trainer.finished());
  }
  progress.done();
  if (!timing || step_ms.empty()) return;
  // The median step, so the first steps' allocations and a busy moment do not count.
  std::sort(step_ms.begin(), step_ms.end());
  std::cerr << "timing: " << step_ms.size() << " steps, median " << fixed_decimals(step_ms[step_ms.size() / 2], 3) << " ms a step on "
            << omp_get_max_threads() << " threads\n";
  std::cerr << "timing: 90% accuracy on a step's batch "
            << (step_at_90 > 0 ? "first at step " + std::to_string(step_at_90) + ", " + fixed_decimals(seconds_at_90, 1) + " s"
                               : std::string("never reached"))
            << "\n";
}

void print_trained(const model::TrainConfig& c, const model::Evaluation& eval, double seconds, const TrainArgs& a) {
  if (a.format == "json") {
    std::cout << "{\"task\": " << json_string(model::task_name(c.task.kind)) << ", \"steps\": " << c.steps << ", \"batch\": " << c.batch
              << ", \"seconds\": " << double_json(seconds) << ", \"final_loss\": " << double_json(eval.loss)
              << ", \"accuracy\": " << double_json(eval.accuracy) << ", \"out\": " << json_string(a.out) << "}\n";
  } else {
    const std::string heads = c.n_kv_head < c.n_head ? " query heads over " + std::to_string(c.n_kv_head) + " K/V head" : " head";
    std::cout << "Trained " << model::task_name(c.task.kind) << " on a " << model::family_spec(c.family).model_type << " (" << c.n_layer
              << " layers × " << c.n_head << heads << (std::min(c.n_head, c.n_kv_head) == 1 ? "" : "s") << ", d_model " << c.d_model
              << ") for " << c.steps << " steps of " << c.batch << " in " << fixed_decimals(seconds, 1) << " s: loss "
              << fixed_decimals(eval.loss, 4) << ", accuracy " << fixed_decimals(eval.accuracy, 4) << " on " << eval.sequences
              << " held-out sequences; wrote " << a.out << "\n";
  }
  std::cout.flush();
  if (!std::cout) throw InputError("standard output: writing failed");
}

}  // namespace

Runner add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train a small GPT-2 or Llama on a task (induction, sort, grammar) and write it as a model folder");
  auto a = std::make_shared<TrainArgs>();
  cmd->add_option("--task", a->task, "induction | sort | grammar (default induction)");
  std::vector<std::string> families;  // the rows of the families' table the trainer writes
  for (const model::FamilySpec& f : model::family_table()) {
    if (f.tensor_layout) families.emplace_back(f.model_type);
  }
  cmd->add_option("--family", a->family,
                  "The model's family: gpt2 (LayerNorm, learned positions, GELU) or llama (RMSNorm, rotary positions, grouped K/V, "
                  "SwiGLU) (default " + a->family + ")")
      ->check(CLI::IsMember(families));
  cmd->add_option("--layers", a->layers, "Transformer layers (default 2)");
  cmd->add_option("--heads", a->heads, "Attention heads per layer (default 2)");
  cmd->add_option("--kv-heads", a->kv_heads, "K/V heads per layer, a divisor of --heads (llama; default: half the heads when even)");
  cmd->add_option("--rope-theta", a->rope_theta, "The rotary positions' θ (llama; default 10000)");
  cmd->add_option("--d-model", a->d_model, "Model width; a multiple of --heads (default 64)");
  cmd->add_option("--steps", a->steps, "Optimizer steps (default: the task's, docs/MODELS.md)");
  cmd->add_option("--batch", a->batch, "Sequences per step (default: the task's)");
  cmd->add_option("--lr", a->lr, "Peak learning rate of AdamW (default: the task's)");
  cmd->add_option("--weight-decay", a->weight_decay, "AdamW's decoupled weight decay on the 2-D weights (default 0.1)");
  cmd->add_option("--seed", a->seed, "Seed of the weights and the batches (default " + std::to_string(model::TrainConfig{}.seed) + ")");
  cmd->add_option("--length", a->length, "The task's length: induction's half length L, sort's N (default: the task's)");
  cmd->add_option("--symbols", a->symbols, "The task's vocabulary size V (default: the task's)");
  cmd->add_flag("--start-token", a->start_token, "Open every sequence with token 0, found nowhere else (a BOS, where attention sinks form; docs/MODELS.md)");
  cmd->add_option("--out", a->out, "The model folder to write")->required();
  cmd->add_flag("--force", a->force, "Replace an existing --out folder");
  cmd->add_option("--format", a->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_flag("--timing", a->timing, "Also print the median time of a training step, the threads it ran on, and the step and seconds at which a batch first reached 90% accuracy (stderr)");
  return [a, cmd]() {
    const auto start = std::chrono::steady_clock::now();
    model::Trainer trainer(train_config(*a, cmd));
    check_out_folder(*a);
    train_all_steps(trainer, a->timing, start);
    const model::Evaluation eval = trainer.evaluate(kEvaluationSequences);
    trainer.save(a->out, a->force);
    print_trained(trainer.config(), eval, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), *a);
    return kExitOk;
  };
}

}  // namespace attnlab::cli
