// Training a small model in the app (docs/MODELS.md, "Training"): a GPT-2 or a Llama, its forward
// and backward over the decoder's own blocks (decoder_train.hpp), AdamW with warm-up and a cosine
// schedule, one step at a time so the command line and the GUI's Training window drive the same
// loop. Deterministic for a given seed on a given machine. A Trainer is not thread-safe: one thread
// steps it; the GUI pauses the thread before it reads or lifts anything.
#pragma once

#include "engine/io/scenario.hpp"
#include "engine/model/language_model.hpp"
#include "engine/model/head_kinds.hpp"
#include "engine/model/training_tasks.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace attnlab::model {

struct TrainConfig {
  TaskSpec task;       // default_task("induction") unless given
  Family family = Family::Gpt2;  // a family whose row says how to write it: GPT-2 or Llama
  int n_layer = 2;
  int n_head = 2;      // two heads a layer: with four, layer 0 spread its weight instead (docs/MODELS.md)
  int n_kv_head = 0;   // K/V heads; 0: the family's default (GPT-2: one per head; Llama: docs/MODELS.md)
  double rope_theta = 0;  // rotary positions' θ (Llama); 0: the family's default
  int d_model = 64;
  int steps = 0;       // 0: the task's default
  int batch = 0;       // 0: the task's default
  double lr = 0;       // 0: the task's default peak learning rate
  double weight_decay = 0.1;
  int warmup = -1;     // −1: a default fraction of the steps
  // Training only (docs/MODELS.md, "Why a random start"): each training sequence starts at a
  // random position 0 … position_offset, so that every position up to 2L − 1 (the last of a
  // judged sequence, never an input of a sequence starting at 0) sits inside some training
  // sequences, where layer 0 must look one back. The model gets 2L + position_offset positions;
  // evaluation and every forward start at 0. −1: the task's default (induction 4, sort 0).
  int position_offset = -1;
  std::uint64_t seed = 5;
};

// The config with every 0 / −1 replaced by the task's or the family's default.
TrainConfig resolved(TrainConfig config);
// Checks the family (one the trainer writes), sizes against the limits (say the limit), d_model
// divisible by heads, heads by K/V heads, the task, the steps, batch and learning rate, and that
// the model and its optimizer state fit in memory. Throws InputError naming the flag ("--heads:
// d_model 64 is not divisible by 5 heads").
void check_train_config(const TrainConfig& config);
// The ModelConfig of the model a config trains (n_ctx = the task's sequence length + the offset,
// vocab_size = symbols, task_json set).
ModelConfig model_config(const TrainConfig& config);

struct StepStats {
  int step = 0;           // steps done, counting this one
  double loss = 0;        // mean cross-entropy over the positions in the loss, this batch
  double accuracy = 0;    // argmax == target over the positions in accuracy, this batch
  double lr = 0;          // the learning rate this step used
};

struct Evaluation {
  double loss = 0, accuracy = 0;
  int sequences = 0;
};

// The loss became NaN or infinite: training stops and this says at which step and what to lower.
class TrainingDiverged : public InputError {
public:
  using InputError::InputError;
};

class Trainer {
public:
  // Initializes the weights from the seed (GPT-2's scheme for every family: N(0, 0.02), residual
  // projections scaled by 1/√(2·layers), norms' weights 1 and biases 0). Calls
  // check_train_config first.
  explicit Trainer(TrainConfig config);
  ~Trainer();
  Trainer(Trainer&&) noexcept;
  Trainer& operator=(Trainer&&) noexcept;

  const TrainConfig& config() const;
  int steps_done() const;
  bool finished() const { return steps_done() >= config().steps; }

  // One optimizer step on a fresh batch. Throws TrainingDiverged (nothing updated) when the loss
  // or a gradient is not finite: "the loss became NaN at step 57 with --lr 0.3; lower --lr".
  StepStats step();
  // Loss and accuracy on `sequences` sequences drawn from a generator seeded apart from training's.
  Evaluation evaluate(int sequences = 512) const;

  // The forward pass over `ids` with every head's weights (and q, k, v when asked), as
  // the inference forward gives it (LanguageModel::forward): the Training window's maps and the head detector.
  ForwardTrace forward(const std::vector<int>& ids, const ForwardOptions& options = {}) const;
  // Every head's kind on the task's probe sequence, [layer][head].
  std::vector<std::vector<HeadVerdict>> head_kinds() const;
  // The head's q, k, v on `ids` as a scenario, as model_report's lift_head makes it (causal
  // mask, scaling on, T = 1, the symbols as labels, "induction · step 430 · layer 1 · head 2").
  Scenario lift_head(const std::vector<int>& ids, int layer, int head) const;

  // Writes the model folder (the family's config.json with attnlab_task, model.safetensors in F32,
  // vocab.json of the symbols): into a temporary folder beside `dir`, then renamed, so nothing is
  // half-written. An existing `dir` is refused unless `force`. Throws InputError.
  void save(const std::filesystem::path& dir, bool force) const;

  // For the gradient checks (tests/model): every parameter by its safetensors name in file order
  // (its values where the trainer keeps them), and the gradients of the mean loss over `batch` (no
  // update), in the same order and shapes.
  struct Parameter {
    std::string name;
    std::vector<std::int64_t> shape;
    std::span<float> values;
  };
  std::vector<Parameter> parameters();
  std::vector<std::vector<float>> gradients(const TaskBatch& batch);
  double loss(const TaskBatch& batch) const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace attnlab::model
