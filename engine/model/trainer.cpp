// The Trainer (docs/MODELS.md, "Training"): the model's weights as one model.safetensors in memory,
// bound by its family's binder as a folder's are, GPT-2's initialization, a step over the
// decoder's own blocks (decoder_train.hpp) with AdamW, warm-up and a cosine decay, evaluation,
// and the model so far opened over those same bytes, so the forward pass, head kinds, lifting
// and saving are the ones every other model goes through (decoder_forward.cpp, model_report.cpp).
// The defaults and limits are trainer_config.cpp's.
//
// [SECTION] the state: the weights file, AdamW, the batch stream
// [SECTION] a step: forward, backward, clip, AdamW
// [SECTION] evaluation
// [SECTION] the model in memory: forward, head kinds, lift, save
// [SECTION] the gradient checks' access
#include "engine/model/trainer.hpp"
#include "engine/text/text_format.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/model/decoder_model.hpp"
#include "engine/model/decoder_train.hpp"
#include "engine/model/families.hpp"
#include "engine/model/model_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>

namespace attnlab::model {

namespace fs = std::filesystem;

// -------------------------------------------------------------------------------------------------
// [SECTION] the state: the weights file, AdamW, the batch stream
// -------------------------------------------------------------------------------------------------

// Named, not anonymous: Trainer::State holds one, and a unity build would otherwise warn that the
// State's field has internal linkage.
namespace trainer_storage {

// The model's model.safetensors held in memory in float storage: the header's bytes first (padded
// to a multiple of 8, so the data after it is float-aligned), then every tensor's floats in the
// order of the family's layout. The family's binder finds the tensors in place as it finds a
// folder's, the inference forward opens the same bytes without a copy, and save writes them.
class WeightsFile {
public:
  explicit WeightsFile(const ModelConfig& c) {
    const std::vector<TensorSpec> layout = family_spec(c.family).tensor_layout(c);
    std::size_t total = 0;
    for (const TensorSpec& t : layout) total += static_cast<std::size_t>(elements(t.shape));
    const std::vector<float> zeros(total);
    std::vector<F32Tensor> tensors;
    std::size_t at = 0;
    for (const TensorSpec& t : layout) {
      tensors.push_back({t.name, t.shape, zeros.data() + at});
      at += static_cast<std::size_t>(elements(t.shape));
    }
    const std::string bytes = safetensors_f32_bytes(tensors, {{"format", "pt"}});
    storage_.resize(bytes.size() / sizeof(float));
    std::memcpy(storage_.data(), bytes.data(), bytes.size());
    files_ = WeightFiles::view(this->bytes(), "model.safetensors");
    const WeightFile& file = *files_.files().front();
    data_ = storage_.data() + file.data_offset() / sizeof(float);
    for (const TensorSpec& t : layout) {
      const TensorInfo& info = *files_.find(t.name).info;
      slices_.push_back({t.name, t.shape, static_cast<std::size_t>(info.begin / sizeof(float)), static_cast<std::size_t>(info.elements())});
    }
    count_ = total;
  }
  WeightsFile(const WeightsFile&) = delete;
  WeightsFile& operator=(const WeightsFile&) = delete;

  // A tensor's floats: from `begin` in data(), `count` of them.
  struct Slice {
    std::string name;
    std::vector<std::int64_t> shape;
    std::size_t begin, count;
  };
  std::string_view bytes() const { return {reinterpret_cast<const char*>(storage_.data()), storage_.size() * sizeof(float)}; }
  const WeightFiles& files() const { return files_; }
  float* data() { return data_; }
  const float* data() const { return data_; }
  std::size_t count() const { return count_; }
  const std::vector<Slice>& slices() const { return slices_; }

private:
  static std::int64_t elements(const std::vector<std::int64_t>& shape) {
    std::int64_t n = 1;
    for (const std::int64_t s : shape) n *= s;
    return n;
  }
  std::vector<float> storage_;
  WeightFiles files_;
  float* data_ = nullptr;
  std::size_t count_ = 0;
  std::vector<Slice> slices_;
};

}  // namespace trainer_storage

using trainer_storage::WeightsFile;

namespace {

std::string vocab_json_text(int symbols) {
  std::string s = "{";
  for (int i = 0; i < symbols; ++i) s += (i ? ", \"" : "\"") + std::to_string(i) + "\": " + std::to_string(i);
  return s + "}\n";
}

}  // namespace

struct Trainer::State {
  TrainConfig config;
  ModelConfig model_config;
  WeightsFile weights;
  DecoderTensors tensors;              // the weights as the family's binder finds them
  std::vector<float> grads, m, v;      // laid out as the weights; AdamW's first and second moments in m, v
  TrainActivations acts;
  TaskGenerator batches;
  std::mt19937_64 starts;  // each training sequence's first position
  int steps_done = 0;
  std::string config_json, vocab_json;  // the folder's other two files
  // The model as it is now, opened over the weights' bytes on first use after each step.
  mutable std::unique_ptr<DecoderModel> model;

  explicit State(const TrainConfig& c)
      : config(c), model_config(model::model_config(c)), weights(model_config),
        tensors(family_spec(model_config.family).bind_tensors(model_config, weights.files())), grads(weights.count()), m(weights.count()),
        v(weights.count()), batches(c.task, c.seed ^ 0xda7a'5eedULL), starts(c.seed ^ 0x6a95'0000ULL),
        config_json(family_spec(model_config.family).config_json(model_config)), vocab_json(vocab_json_text(c.task.symbols)) {}

  Gradients gradients() { return {grads.data(), grads.size()}; }
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

enum class Init { One, Zero, Normal, Residual };

// What each tensor starts as, by its place in the model (any family): norms' weights 1, biases 0,
// the two projections into the residual stream (attention's output, the MLP's down) N(0, 0.02)
// scaled by 1/√(2·layers), every other matrix N(0, 0.02).
std::map<const TensorInfo*, Init> initial_values(const DecoderTensors& t) {
  std::map<const TensorInfo*, Init> init;
  const auto set = [&](TensorRef r, Init i) {
    if (r) init[r.info] = i;
  };
  const auto linear = [&](const LinearRef& p, Init i) {
    set(p.w, i);
    set(p.b, Init::Zero);
  };
  const auto norm = [&](const NormRef& n) {
    set(n.w, Init::One);
    set(n.b, Init::Zero);
  };
  set(t.embed, Init::Normal);
  set(t.position, Init::Normal);
  set(t.lm_head, Init::Normal);
  norm(t.final_norm);
  for (const LayerTensors& L : t.layers) {
    norm(L.attn_norm);
    norm(L.ffn_norm);
    set(L.q_norm, Init::One);
    set(L.k_norm, Init::One);
    for (const LinearRef* p : {&L.qkv, &L.q, &L.k, &L.v, &L.up, &L.gate}) linear(*p, Init::Normal);
    linear(L.o, Init::Residual);
    linear(L.down, Init::Residual);
  }
  return init;
}

// GPT-2's initialization for every family, tensor by tensor in file order from one seeded stream.
void initialize(WeightsFile& w, const DecoderTensors& tensors, int n_layer, std::uint64_t seed) {
  Normal normal{std::mt19937_64(seed)};
  const double residual = 0.02 / std::sqrt(2.0 * n_layer);
  const auto init = initial_values(tensors);
  for (const auto& slice : w.slices()) {
    float* x = w.data() + slice.begin;
    const Init i = init.at(w.files().find(slice.name).info);
    if (i == Init::One || i == Init::Zero) {
      std::fill_n(x, slice.count, i == Init::One ? 1.0f : 0.0f);
    } else {
      const double sd = i == Init::Residual ? residual : 0.02;
      for (std::size_t k = 0; k < slice.count; ++k) x[k] = static_cast<float>(sd * normal());
    }
  }
}

// The batch's inputs (B × T, T = 2L − 1), targets (−1 where the loss skips a position) and, with
// an offset, each sequence's first position.
struct StepData {
  std::vector<int> inputs, targets, accuracy_targets, starts;
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
    s.starts.resize(static_cast<std::size_t>(s.B));
    for (int& a : s.starts) a = uniform(*rng, offset + 1);
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
  initialize(state_->weights, state_->tensors, config.n_layer, config.seed);
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

// The gradient's global norm, summed in a fixed order.
double global_norm(const std::vector<float>& g) {
  double norm2 = 0;
  for (const float x : g) norm2 += static_cast<double>(x) * x;
  return std::sqrt(norm2);
}

// AdamW exactly as PyTorch's torch.optim.AdamW: decoupled weight decay first (on the 2-D weights
// only: not on biases or norms), then the bias-corrected moment step, each gradient scaled by
// `clip` first.
void adamw(WeightsFile& w, const std::vector<float>& grads, std::vector<float>& m, std::vector<float>& v, double lr, double weight_decay,
           int step_number, float clip) {
  constexpr double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  const double t = step_number;
  const double bc1 = 1 - std::pow(beta1, t), bc2 = 1 - std::pow(beta2, t);
  const auto step_size = static_cast<float>(lr / bc1);
  const auto bc2_sqrt = static_cast<float>(std::sqrt(bc2));
  // Element by element, so the threads' shares change nothing in the result.
#pragma omp parallel
  for (const auto& slice : w.slices()) {
    const auto decay = static_cast<float>(slice.shape.size() == 2 ? 1 - lr * weight_decay : 1.0);
    float* p = w.data() + slice.begin;
    float* m1 = m.data() + slice.begin;
    float* m2 = v.data() + slice.begin;
    const float* g = grads.data() + slice.begin;
    const auto count = static_cast<std::int64_t>(slice.count);
#pragma omp for simd schedule(static) nowait
    for (std::int64_t i = 0; i < count; ++i) {
      const float gi = g[i] * clip;
      m1[i] = static_cast<float>(beta1) * m1[i] + static_cast<float>(1 - beta1) * gi;
      m2[i] = static_cast<float>(beta2) * m2[i] + static_cast<float>(1 - beta2) * gi * gi;
      p[i] = p[i] * decay - step_size * m1[i] / (std::sqrt(m2[i]) / bc2_sqrt + static_cast<float>(eps));
    }
  }
}

}  // namespace

StepStats Trainer::step() {
  State& s = *state_;
  const TrainConfig& c = s.config;
  const StepData d = step_data(s.batches.next(c.batch), c.position_offset, &s.starts);
  const TrainLoss loss = train_forward(s.model_config, s.tensors, d.inputs.data(), d.targets.data(), d.starts.empty() ? nullptr : d.starts.data(),
                                       d.B, d.T, s.acts);
  const int step_number = s.steps_done + 1;
  const auto diverged = [&](const char* what, double value) {
    return TrainingDiverged(std::string(what) + " became " + (std::isnan(value) ? "NaN" : "infinite") + " at step " +
                            std::to_string(step_number) + " with --lr " + significant(c.lr, 6) + "; lower --lr");
  };
  if (!std::isfinite(loss.loss)) throw diverged("the loss", loss.loss);
  StepStats stats;
  stats.step = step_number;
  stats.loss = loss.loss;
  stats.lr = learning_rate(c, s.steps_done);
  std::int64_t right = 0, counted = 0;
  count_correct(s.acts.probs, d.accuracy_targets, s.model_config.vocab_size, right, counted);
  stats.accuracy = counted ? static_cast<double>(right) / static_cast<double>(counted) : 0.0;
  train_backward(s.model_config, s.tensors, s.acts, s.gradients());
  // Clipped to a global norm of 1 as nanoGPT does, so a rare large batch cannot throw the weights far.
  const double norm = global_norm(s.grads);
  if (!std::isfinite(norm)) throw diverged("a gradient", norm);
  adamw(s.weights, s.grads, s.m, s.v, stats.lr, c.weight_decay, step_number, static_cast<float>(norm > 1.0 ? 1.0 / norm : 1.0));
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
  TrainActivations acts;
  double loss_sum = 0;
  std::int64_t loss_count = 0, right = 0, counted = 0;
  for (int done = 0; done < sequences;) {
    const int b = std::min(sequences - done, std::max(1, s.config.batch));
    const StepData d = step_data(held_out.judged(b));
    const TrainLoss l = train_forward(s.model_config, s.tensors, d.inputs.data(), d.targets.data(), nullptr, d.B, d.T, acts);
    loss_sum += l.loss * l.counted;
    loss_count += l.counted;
    count_correct(acts.probs, d.accuracy_targets, s.model_config.vocab_size, right, counted);
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

const DecoderModel& Trainer::State::current_model() {
  if (!model) {
    // Opened over the weights' own bytes (no copy): the model is dropped at every step.
    const ModelFiles files{config_json, vocab_json, weights.bytes(), nullptr};
    model = DecoderModel::open_memory(files, std::string(task_name(config.task.kind)) + " · step " + std::to_string(steps_done));
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
  for (const auto& slice : state_->weights.slices()) {
    out.push_back({slice.name, slice.shape, std::span<float>(state_->weights.data() + slice.begin, slice.count)});
  }
  state_->model.reset();  // the caller may change them
  return out;
}

std::vector<std::vector<float>> Trainer::gradients(const TaskBatch& batch) {
  State& s = *state_;
  const StepData d = step_data(batch);
  train_forward(s.model_config, s.tensors, d.inputs.data(), d.targets.data(), nullptr, d.B, d.T, s.acts);
  train_backward(s.model_config, s.tensors, s.acts, s.gradients());
  std::vector<std::vector<float>> out;
  for (const auto& slice : s.weights.slices()) {
    out.emplace_back(s.grads.begin() + static_cast<std::ptrdiff_t>(slice.begin),
                     s.grads.begin() + static_cast<std::ptrdiff_t>(slice.begin + slice.count));
  }
  return out;
}

double Trainer::loss(const TaskBatch& batch) const {
  const StepData d = step_data(batch);
  TrainActivations acts;
  return train_forward(state_->model_config, state_->tensors, d.inputs.data(), d.targets.data(), nullptr, d.B, d.T, acts).loss;
}

}  // namespace attnlab::model
