// What a training run trains (docs/MODELS.md, "Training"): the task's and the family's defaults,
// the limits every flag is checked against, and the ModelConfig of the model a TrainConfig makes.
#include "engine/model/trainer.hpp"

#include "engine/model/decoder_train.hpp"
#include "engine/model/families.hpp"
#include "engine/text/text_format.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace attnlab::model {

namespace {

constexpr int kMaxLayers = 12, kMaxHeads = 32, kMinDModel = 4, kMaxDModel = 1024;
constexpr int kMaxSteps = 1'000'000, kMaxBatch = 4096;

// What a task trains with unless told (docs/MODELS.md, "Training": chosen so that `attnlab train`
// and `attnlab train --task sort` reach their accuracy in well under a minute on two cores).
struct TaskDefaults {
  int steps, batch;
  double lr;
};
// Training's random start for induction (docs/MODELS.md, "Why a random start"): enough that the
// last judged position is inside many training sequences.
constexpr int kInductionOffset = 4;

TaskDefaults defaults_for(TaskKind kind) {
  if (kind != TaskKind::Sort) return {4000, 32, 3e-3};
  return {1000, 32, 3e-3};
}

// A Llama's defaults (docs/MODELS.md, "Training"): its query heads share K/V heads in pairs where
// they can, and the rotation is Llama 2's.
constexpr double kLlamaRopeTheta = 10000;
int default_kv_heads(Family family, int n_head) { return family == Family::Llama && n_head % 2 == 0 ? n_head / 2 : n_head; }

// llama2.c's width of the SiLU-gated MLP: 8·d/3 (the three matrices of width 8d/3 hold as many
// weights as GPT-2's two of 4d), rounded up to a multiple of 32.
int llama_d_ff(int d_model) { return (8 * d_model / 3 + 31) / 32 * 32; }

// The machine's physical memory, or 0 when it cannot be read.
std::int64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

void check_task_flags(const TrainConfig& c) {
  const std::string task = "--task " + std::string(task_name(c.task.kind));
  if (c.task.length < 2 || c.task.length > kMaxTaskLength) {
    throw InputError("--length " + std::to_string(c.task.length) + ": " + task + " needs a " +
                     (c.task.kind != TaskKind::Sort ? "half length" : "length") + " of 2 to " + std::to_string(kMaxTaskLength));
  }
  if (c.task.symbols < 2 || c.task.symbols > kMaxTaskSymbols) {
    throw InputError("--symbols " + std::to_string(c.task.symbols) + ": " + task + " needs 2 to " + std::to_string(kMaxTaskSymbols) + " symbols");
  }
  check_task(c.task, task);
}

void check_model_flags(const TrainConfig& c) {
  const FamilySpec& spec = family_spec(c.family);
  if (!spec.tensor_layout) {
    throw InputError("--family " + std::string(spec.model_type) + ": attnlab train trains " + family_list(true) + " models");
  }
  if (c.n_layer < 1 || c.n_layer > kMaxLayers) {
    throw InputError("--layers " + std::to_string(c.n_layer) + ": give 1 to " + std::to_string(kMaxLayers) + " layers");
  }
  if (c.n_head < 1 || c.n_head > kMaxHeads) {
    throw InputError("--heads " + std::to_string(c.n_head) + ": give 1 to " + std::to_string(kMaxHeads) + " heads");
  }
  if (c.d_model < kMinDModel || c.d_model > kMaxDModel) {
    throw InputError("--d-model " + std::to_string(c.d_model) + ": give " + std::to_string(kMinDModel) + " to " + std::to_string(kMaxDModel));
  }
  if (c.d_model % c.n_head != 0) {
    throw InputError("--heads: d_model " + std::to_string(c.d_model) + " is not divisible by " + std::to_string(c.n_head) + " heads");
  }
  const std::string kv = "--kv-heads " + std::to_string(c.n_kv_head);
  if (c.n_kv_head < 1 || c.n_kv_head > c.n_head || c.n_head % c.n_kv_head != 0) {
    throw InputError(kv + ": give a number of K/V heads that divides the " + std::to_string(c.n_head) + " query heads");
  }
  if (c.family == Family::Gpt2 && c.n_kv_head != c.n_head) {
    throw InputError(kv + ": a GPT-2 gives every head its own K/V heads (--family llama groups them)");
  }
  if (c.family == Family::Llama && (c.d_model / c.n_head) % 2 != 0) {
    throw InputError("--heads: d_model " + std::to_string(c.d_model) + " over " + std::to_string(c.n_head) + " heads gives heads of width " +
                     std::to_string(c.d_model / c.n_head) + ", and rotary positions need an even width");
  }
  if (!(c.rope_theta > 0) || !std::isfinite(c.rope_theta)) throw InputError("--rope-theta: give a positive number");
}

void check_run_flags(const TrainConfig& c) {
  if (c.steps < 1 || c.steps > kMaxSteps) {
    throw InputError("--steps " + std::to_string(c.steps) + ": give 1 to " + std::to_string(kMaxSteps) + " steps");
  }
  if (c.batch < 1 || c.batch > kMaxBatch) {
    throw InputError("--batch " + std::to_string(c.batch) + ": give 1 to " + std::to_string(kMaxBatch) + " sequences");
  }
  if (!(c.lr > 0) || !std::isfinite(c.lr)) throw InputError("--lr: the learning rate must be a positive number");
  if (!(c.weight_decay >= 0) || !std::isfinite(c.weight_decay)) throw InputError("--weight-decay: give a number ≥ 0");
  if (c.position_offset < 0 || c.position_offset > kMaxTaskLength) {
    throw InputError("the position offset of " + std::to_string(c.position_offset) + " must be 0 to " + std::to_string(kMaxTaskLength));
  }
  if (c.warmup < 0 || c.warmup > c.steps) {
    throw InputError("the warm-up of " + std::to_string(c.warmup) + " steps must be 0 to the " + std::to_string(c.steps) + " steps");
  }
}

}  // namespace

TrainConfig resolved(TrainConfig c) {
  if (c.task.length == 0 && c.task.symbols == 0) c.task = default_task(task_name(c.task.kind));
  const TaskDefaults d = defaults_for(c.task.kind);
  if (c.steps == 0) c.steps = d.steps;
  if (c.batch == 0) c.batch = d.batch;
  if (c.lr == 0) c.lr = d.lr;
  if (c.warmup < 0) c.warmup = std::max(1, c.steps / 10);
  if (c.position_offset < 0) c.position_offset = c.task.kind == TaskKind::Induction ? kInductionOffset : 0;
  if (c.n_kv_head == 0) c.n_kv_head = default_kv_heads(c.family, c.n_head);
  if (c.rope_theta == 0) c.rope_theta = kLlamaRopeTheta;
  return c;
}

void check_train_config(const TrainConfig& c) {
  check_task_flags(c);
  check_model_flags(c);
  check_run_flags(c);
  // The weights, their gradients, AdamW's two moments (4 floats a parameter), a step's activations
  // and an evaluation's: refused beyond half of this machine's memory.
  const ModelConfig m = model_config(c);
  const double need = 16.0 * static_cast<double>(parameter_count(m)) +
                      static_cast<double>(train_activation_bytes(m, c.batch, c.task.sequence_length())) * 2;
  const std::int64_t have = physical_memory();
  if (have > 0 && need > static_cast<double>(have) / 2) {
    throw InputError("--batch " + std::to_string(c.batch) + ", --d-model " + std::to_string(c.d_model) + ", --layers " +
                     std::to_string(c.n_layer) + ": training would need " + human_bytes(need) +
                     " (weights, optimizer state, activations), more than half of this machine's " + human_bytes(static_cast<double>(have)) +
                     "; lower --batch, --d-model or --layers");
  }
}

ModelConfig model_config(const TrainConfig& c) {
  ModelConfig m;
  m.family = c.family;
  m.n_layer = c.n_layer;
  m.n_head = c.n_head;
  m.n_kv_head = c.n_kv_head > 0 ? c.n_kv_head : c.n_head;
  m.d_model = c.d_model;
  m.d_head = c.d_model / std::max(1, c.n_head);
  m.n_ctx = c.task.sequence_length() + std::max(0, c.position_offset);
  m.vocab_size = c.task.symbols;
  m.norm_eps = 1e-5;
  m.task_json = task_json(c.task);
  if (c.family == Family::Gpt2) {
    // GPT-2 as Hugging Face's GPT2LMHeadModel: LayerNorm, learned positions, c_attn, biases, tanh GELU, tied.
    m.d_ff = 4 * c.d_model;
    m.fused_qkv = true;
    m.qkv_bias = m.o_bias = m.mlp_bias = m.norm_bias = true;
    m.tied = true;
  } else {
    // Llama as LlamaForCausalLM: RMSNorm, rotary positions, SwiGLU, its own output matrix, and
    // "attention_bias": q, k, v and o with biases (docs/MODELS.md, "A Llama": without them the
    // layer-0 head that must look one back formed on one seed of four).
    m.d_ff = llama_d_ff(c.d_model);
    m.norm = NormKind::Rms;
    m.ffn = FfnKind::SiluGated;
    m.positions = PositionKind::Rope;
    m.rope_theta = c.rope_theta > 0 ? c.rope_theta : kLlamaRopeTheta;
    m.qkv_bias = m.o_bias = true;
  }
  return m;
}

}  // namespace attnlab::model
