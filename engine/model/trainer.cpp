// The Trainer (docs/MODELS.md, "Training"): the config's defaults and limits, GPT-2's
// initialization, AdamW with warm-up and a cosine decay, evaluation, and the model it has so far
// as a toy model in memory, so the forward pass, head kinds, lifting and saving are the ones
// every other model goes through (decoder_forward.cpp, model_report.cpp).
//
// [SECTION] defaults and limits
// [SECTION] the state: weights, AdamW, the batch stream
// [SECTION] a step: forward, backward, clip, AdamW
// [SECTION] evaluation
// [SECTION] the model in memory: forward, head kinds, lift, save
// [SECTION] the gradient checks' access
#include "engine/model/trainer.hpp"
#include "engine/text/text_format.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/model/decoder_model.hpp"
#include "engine/model/families.hpp"
#include "engine/model/gpt2_train.hpp"
#include "engine/model/model_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace attnlab::model {

namespace fs = std::filesystem;

// -------------------------------------------------------------------------------------------------
// [SECTION] defaults and limits
// -------------------------------------------------------------------------------------------------

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
  if (kind == TaskKind::Induction) return {4000, 32, 3e-3};
  return {1000, 32, 3e-3};
}

// The machine's physical memory, or 0 when it cannot be read.
std::int64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}


Gpt2Dims dims_of(const TrainConfig& c) {
  Gpt2Dims d;
  d.n_layer = c.n_layer;
  d.n_head = c.n_head;
  d.d_model = c.d_model;
  d.vocab = c.task.symbols;
  d.positions = c.task.sequence_length() + std::max(0, c.position_offset);
  d.eps = 1e-5;
  return d;
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
  return c;
}

void check_train_config(const TrainConfig& c) {
  const std::string task = "--task " + std::string(task_name(c.task.kind));
  if (c.task.length < 2 || c.task.length > kMaxTaskLength) {
    throw InputError("--length " + std::to_string(c.task.length) + ": " + task + " needs a " +
                     (c.task.kind == TaskKind::Induction ? "half length" : "length") + " of 2 to " + std::to_string(kMaxTaskLength));
  }
  if (c.task.symbols < 2 || c.task.symbols > kMaxTaskSymbols) {
    throw InputError("--symbols " + std::to_string(c.task.symbols) + ": " + task + " needs 2 to " + std::to_string(kMaxTaskSymbols) + " symbols");
  }
  check_task(c.task, task);
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
  // The weights, their gradients, AdamW's two moments (4 floats a parameter), a step's activations
  // and an evaluation's: refused beyond half of this machine's memory.
  const Gpt2Dims dims = dims_of(c);
  const double need = 16.0 * static_cast<double>(gpt2_parameter_count(dims)) +
                      static_cast<double>(gpt2_activation_bytes(dims, c.batch, c.task.sequence_length())) * 2;
  const std::int64_t have = physical_memory();
  if (have > 0 && need > static_cast<double>(have) / 2) {
    throw InputError("--batch " + std::to_string(c.batch) + ", --d-model " + std::to_string(c.d_model) + ", --layers " +
                     std::to_string(c.n_layer) + ": training would need " + human_bytes(need) + " (weights, optimizer state, activations), more than half of this machine's " +
                     human_bytes(static_cast<double>(have)) + "; lower --batch, --d-model or --layers");
  }
}

ModelConfig model_config(const TrainConfig& c) {
  ModelConfig m;
  m.family = Family::Gpt2;
  m.n_layer = c.n_layer;
  m.n_head = m.n_kv_head = c.n_head;
  m.d_model = c.d_model;
  m.d_head = c.d_model / c.n_head;
  m.d_ff = 4 * c.d_model;
  m.n_ctx = c.task.sequence_length() + std::max(0, c.position_offset);
  m.vocab_size = c.task.symbols;
  m.norm_eps = 1e-5;
  m.fused_qkv = true;
  m.qkv_bias = m.o_bias = m.mlp_bias = m.norm_bias = true;
  m.tied = true;
  m.task_json = task_json(c.task);
  return m;
}

// -------------------------------------------------------------------------------------------------
// [SECTION] the state: weights, AdamW, the batch stream
// -------------------------------------------------------------------------------------------------

struct Trainer::State {
  TrainConfig config;
  Gpt2Dims dims;
  Gpt2Weights<float> weights, grads, m, v;  // AdamW's first and second moments in m, v
  Gpt2Activations<float> acts;
  TaskGenerator batches;
  std::mt19937_64 starts;  // each training sequence's first position
  int steps_done = 0;
  // The model as it is now, in memory, made on first use after each step.
  mutable std::unique_ptr<DecoderModel> model;

  explicit State(const TrainConfig& c)
      : config(c), dims(dims_of(c)), weights(dims), grads(dims), m(dims), v(dims), batches(c.task, c.seed ^ 0xda7a'5eedULL), starts(c.seed ^ 0x6a95'0000ULL) {}

  const DecoderModel& current_model();
};

namespace {

// N(0, 1) by Box–Muller from a 64-bit generator: the same numbers with every standard library.
struct Normal {
  std::mt19937_64 rng;
  bool have = false;
  double spare = 0;
  double operator()() {
    if (have) {
      have = false;
      return spare;
    }
    double u1;
    do u1 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    while (u1 <= 0);
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare = r * std::sin(2 * M_PI * u2);
    have = true;
    return r * std::cos(2 * M_PI * u2);
  }
};

// GPT-2's initialization: N(0, 0.02) for the embeddings and weights, the two projections into the
// residual stream scaled by 1/√(2·layers), biases 0, LayerNorm weights 1.
void initialize(Gpt2Weights<float>& w, int n_layer, std::uint64_t seed) {
  Normal normal{std::mt19937_64(seed)};
  const double residual = 0.02 / std::sqrt(2.0 * n_layer);
  for (auto& t : w.tensors()) {
    const std::string_view name = t.name;
    const auto ends = [&](std::string_view tail) { return name.size() >= tail.size() && name.substr(name.size() - tail.size()) == tail; };
    if (ends("ln_1.weight") || ends("ln_2.weight") || ends("ln_f.weight")) {
      std::fill(t.values->begin(), t.values->end(), 1.0f);
    } else if (ends(".bias")) {
      std::fill(t.values->begin(), t.values->end(), 0.0f);
    } else {
      const double sd = ends("c_proj.weight") ? residual : 0.02;
      for (float& x : *t.values) x = static_cast<float>(sd * normal());
    }
  }
}

// The batch's inputs (B × T, T = 2L − 1), targets (−1 where the loss skips a position) and, with
// an offset, positions.
struct StepData {
  std::vector<int> inputs, targets, accuracy_targets, positions;
  int B = 0, T = 0;
};
StepData step_data(const TaskBatch& b, int offset = 0, std::mt19937_64* rng = nullptr) {
  StepData s;
  s.B = b.batch;
  s.T = b.length - 1;
  const auto n = static_cast<std::size_t>(s.B) * static_cast<std::size_t>(s.T);
  s.inputs.resize(n), s.targets.resize(n), s.accuracy_targets.resize(n);
  for (int r = 0; r < s.B; ++r) {
    const int* seq = b.ids.data() + static_cast<std::ptrdiff_t>(r) * b.length;
    for (int t = 0; t < s.T; ++t) {
      const auto at = static_cast<std::size_t>(r) * static_cast<std::size_t>(s.T) + static_cast<std::size_t>(t);
      s.inputs[at] = seq[t];
      s.targets[at] = b.in_loss[at] ? seq[t + 1] : -1;
      s.accuracy_targets[at] = b.in_accuracy[at] ? seq[t + 1] : -1;
    }
  }
  if (offset > 0 && rng) {
    // Where each sequence starts (docs/MODELS.md, "Why a random start"): uniform in 0 … offset.
    s.positions.resize(n);
    for (int r = 0; r < s.B; ++r) {
      const int a = uniform(*rng, offset + 1);
      for (int t = 0; t < s.T; ++t) s.positions[static_cast<std::size_t>(r) * static_cast<std::size_t>(s.T) + static_cast<std::size_t>(t)] = a + t;
    }
  }
  return s;
}

// Counts argmax(probs) == target over the rows whose accuracy target is set (ties: the lower id,
// as the inference forward ranks them).
void count_correct(const std::vector<float>& probs, const std::vector<int>& targets, int V, std::int64_t& right, std::int64_t& counted) {
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (targets[i] < 0) continue;
    const float* p = probs.data() + i * static_cast<std::size_t>(V);
    const auto best = std::max_element(p, p + V) - p;
    right += best == targets[i];
    ++counted;
  }
}

}  // namespace

Trainer::Trainer(TrainConfig config) {
  config = resolved(config);
  check_train_config(config);
  state_ = std::make_unique<State>(config);
  initialize(state_->weights, config.n_layer, config.seed);
}

Trainer::~Trainer() = default;
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;

const TrainConfig& Trainer::config() const { return state_->config; }
int Trainer::steps_done() const { return state_->steps_done; }

// -------------------------------------------------------------------------------------------------
// [SECTION] a step: forward, backward, clip, AdamW
// -------------------------------------------------------------------------------------------------

namespace {

// Linear warm-up to the peak over `warmup` steps, then a cosine decay reaching 10% of it at the
// last step.
double learning_rate(const TrainConfig& c, int step) {
  if (step < c.warmup) return c.lr * (step + 1) / c.warmup;
  const double span = std::max(1, c.steps - c.warmup - 1);
  const double progress = std::min(1.0, (step - c.warmup) / span);
  const double floor = 0.1 * c.lr;
  return floor + 0.5 * (1 + std::cos(M_PI * progress)) * (c.lr - floor);
}


}  // namespace

StepStats Trainer::step() {
  State& s = *state_;
  const TrainConfig& c = s.config;
  const StepData d = step_data(s.batches.next(c.batch), c.position_offset, &s.starts);
  const Gpt2Loss loss =
      gpt2_train_forward(s.dims, s.weights, d.inputs.data(), d.targets.data(), d.B, d.T, s.acts, d.positions.empty() ? nullptr : d.positions.data());
  const int step_number = s.steps_done + 1;
  const double lr = learning_rate(c, s.steps_done);
  const auto diverged = [&](const char* what) {
    return TrainingDiverged(std::string(what) + " became " + (std::isnan(loss.loss) ? "NaN" : "infinite") + " at step " +
                            std::to_string(step_number) + " with --lr " + significant(c.lr, 6) + "; lower --lr");
  };
  if (!std::isfinite(loss.loss)) throw diverged("the loss");
  StepStats stats;
  stats.step = step_number;
  stats.loss = loss.loss;
  stats.lr = lr;
  {
    std::int64_t right = 0, counted = 0;
    count_correct(s.acts.logits, d.accuracy_targets, s.dims.vocab, right, counted);
    stats.accuracy = counted ? static_cast<double>(right) / static_cast<double>(counted) : 0.0;
  }
  gpt2_train_backward(s.dims, s.weights, d.inputs.data(), s.acts, s.grads);

  // The gradient's global norm, summed in a fixed order; clipped to 1 as nanoGPT does, so a rare
  // large batch cannot throw the weights far.
  auto grads = s.grads.tensors();
  double norm2 = 0;
  for (const auto& t : grads) {
    for (float g : *t.values) norm2 += static_cast<double>(g) * g;
  }
  if (!std::isfinite(norm2)) {
    throw TrainingDiverged("a gradient became " + std::string(std::isnan(norm2) ? "NaN" : "infinite") + " at step " +
                           std::to_string(step_number) + " with --lr " + significant(c.lr, 6) + "; lower --lr");
  }
  const double norm = std::sqrt(norm2);
  const auto clip = static_cast<float>(norm > 1.0 ? 1.0 / norm : 1.0);

  // AdamW exactly as PyTorch's torch.optim.AdamW: decoupled weight decay first (on the 2-D
  // weights only: not on biases or LayerNorm), then the bias-corrected moment step.
  constexpr double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  const double t = step_number;
  const double bc1 = 1 - std::pow(beta1, t), bc2 = 1 - std::pow(beta2, t);
  const auto step_size = static_cast<float>(lr / bc1);
  const auto bc2_sqrt = static_cast<float>(std::sqrt(bc2));
  auto weights = s.weights.tensors(), ms = s.m.tensors(), vs = s.v.tensors();
  for (std::size_t k = 0; k < weights.size(); ++k) {
    const auto decay = static_cast<float>(weights[k].shape.size() == 2 ? 1 - lr * c.weight_decay : 1.0);
    float* p = weights[k].values->data();
    float* m1 = ms[k].values->data();
    float* m2 = vs[k].values->data();
    const float* g = grads[k].values->data();
    const std::size_t n = weights[k].values->size();
    for (std::size_t i = 0; i < n; ++i) {
      const float gi = g[i] * clip;
      m1[i] = static_cast<float>(beta1) * m1[i] + static_cast<float>(1 - beta1) * gi;
      m2[i] = static_cast<float>(beta2) * m2[i] + static_cast<float>(1 - beta2) * gi * gi;
      p[i] = p[i] * decay - step_size * m1[i] / (std::sqrt(m2[i]) / bc2_sqrt + static_cast<float>(eps));
    }
  }
  s.steps_done = step_number;
  s.model.reset();
  return stats;
}

// -------------------------------------------------------------------------------------------------
// [SECTION] evaluation
// -------------------------------------------------------------------------------------------------

Evaluation Trainer::evaluate(int sequences) const {
  const State& s = *state_;
  if (sequences < 1) throw InputError("evaluation needs at least one sequence");
  // Its own stream, apart from training's, the same on every call.
  TaskGenerator held_out(s.config.task, s.config.seed ^ 0xe7a1'0a7e'0000'0001ULL);
  Gpt2Activations<float> acts;
  double loss_sum = 0;
  std::int64_t loss_count = 0, right = 0, counted = 0;
  for (int done = 0; done < sequences;) {
    const int b = std::min(sequences - done, std::max(1, s.config.batch));
    const StepData d = step_data(held_out.judged(b));
    const Gpt2Loss l = gpt2_train_forward(s.dims, s.weights, d.inputs.data(), d.targets.data(), d.B, d.T, acts);
    loss_sum += l.loss * l.counted;
    loss_count += l.counted;
    count_correct(acts.logits, d.accuracy_targets, s.dims.vocab, right, counted);
    done += b;
  }
  Evaluation e;
  e.loss = loss_count ? loss_sum / static_cast<double>(loss_count) : 0.0;
  e.accuracy = counted ? static_cast<double>(right) / static_cast<double>(counted) : 0.0;
  e.sequences = sequences;
  return e;
}

// -------------------------------------------------------------------------------------------------
// [SECTION] the model in memory: forward, head kinds, lift, save
// -------------------------------------------------------------------------------------------------

namespace {

std::string vocab_json_text(int symbols) {
  std::string s = "{";
  for (int i = 0; i < symbols; ++i) s += (i ? ", \"" : "\"") + std::to_string(i) + "\": " + std::to_string(i);
  return s + "}\n";
}

struct OwnedFiles {
  std::string config, vocab, weights;
};

}  // namespace

const DecoderModel& Trainer::State::current_model() {
  if (!model) {
    auto files = std::make_shared<OwnedFiles>();
    const ModelConfig mc = model_config(config);
    files->config = family_spec(mc.family).config_json(mc);
    files->vocab = vocab_json_text(config.task.symbols);
    std::vector<F32Tensor> tensors;
    for (const auto& t : weights.tensors()) tensors.push_back({t.name, t.shape, t.values->data()});
    files->weights = safetensors_f32_bytes(tensors, {{"format", "pt"}});
    ModelFiles mf{files->config, files->vocab, files->weights, files};
    model = DecoderModel::open_memory(mf, std::string(task_name(config.task.kind)) + " · step " + std::to_string(steps_done));
  }
  return *model;
}

ForwardTrace Trainer::forward(const std::vector<int>& ids, const ForwardOptions& options) const {
  return state_->current_model().forward(ids, options);
}

std::vector<std::vector<HeadVerdict>> Trainer::head_kinds() const {
  ForwardOptions o;
  o.top_k = 0;
  return run_model(state_->current_model(), probe_sequence(state_->config.task), o).kinds;
}

Scenario Trainer::lift_head(const std::vector<int>& ids, int layer, int head) const {
  const DecoderModel& m = state_->current_model();
  check_head(m, layer, head);
  ForwardOptions o;
  o.keep_weights = false;
  o.qkv_layer = layer;
  o.qkv_head = head;
  o.top_k = 0;
  return model::lift_head(m, run_model(m, ids, o), layer, head);
}

void Trainer::save(const fs::path& dir, bool force) const {
  const DecoderModel& m = state_->current_model();
  const ModelFiles& files = *m.memory_files();
  std::error_code ec;
  const bool exists = fs::exists(fs::symlink_status(dir, ec));
  if (exists && !force) throw InputError("--out " + dir.string() + ": exists; pass --force to replace it");
  if (exists && !fs::is_directory(dir, ec)) throw InputError("--out " + dir.string() + ": is a file, not a model folder; give a folder");
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) throw InputError("--out " + dir.string() + ": the folder " + parent.string() + " does not exist");
  const std::string stem = dir.filename().empty() ? "model" : dir.filename().string();
  const fs::path tmp = parent / ("." + stem + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  try {
    fs::create_directory(tmp, ec);
    if (ec) throw InputError("--out " + dir.string() + ": cannot create a folder beside it (" + ec.message() + ")");
    write_file_atomic(tmp / "config.json", files.config_json);
    write_file_atomic(tmp / "model.safetensors", files.weights);
    write_file_atomic(tmp / "vocab.json", files.vocab_json);
    if (exists) {
      // Swap: the old folder aside, the new one in, the old one removed, so `dir` is at every
      // moment either the old model or the new one.
      const fs::path old = parent / ("." + stem + ".old-" + std::to_string(::getpid()));
      fs::remove_all(old, ec);
      fs::rename(dir, old, ec);
      if (ec) throw InputError("--out " + dir.string() + ": cannot replace it (" + ec.message() + ")");
      fs::rename(tmp, dir, ec);
      if (ec) {
        std::error_code ignored;
        fs::rename(old, dir, ignored);
        throw InputError("--out " + dir.string() + ": cannot replace it (" + ec.message() + ")");
      }
      fs::remove_all(old, ec);
    } else {
      fs::rename(tmp, dir, ec);
      if (ec) throw InputError("--out " + dir.string() + ": cannot create it (" + ec.message() + ")");
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw;
  }
}

// -------------------------------------------------------------------------------------------------
// [SECTION] the gradient checks' access
// -------------------------------------------------------------------------------------------------

std::vector<Trainer::Parameter> Trainer::parameters() {
  std::vector<Parameter> out;
  for (auto& t : state_->weights.tensors()) out.push_back({t.name, t.shape, t.values});
  state_->model.reset();  // the caller may change them
  return out;
}

std::vector<std::vector<float>> Trainer::gradients(const TaskBatch& batch) {
  State& s = *state_;
  const StepData d = step_data(batch);
  gpt2_train_forward(s.dims, s.weights, d.inputs.data(), d.targets.data(), d.B, d.T, s.acts);
  gpt2_train_backward(s.dims, s.weights, d.inputs.data(), s.acts, s.grads);
  std::vector<std::vector<float>> out;
  for (const auto& t : s.grads.tensors()) out.push_back(*t.values);
  return out;
}

double Trainer::loss(const TaskBatch& batch) const {
  const StepData d = step_data(batch);
  Gpt2Activations<float> acts;
  return gpt2_train_forward(state_->dims, state_->weights, d.inputs.data(), d.targets.data(), d.B, d.T, acts).loss;
}

}  // namespace attnlab::model
