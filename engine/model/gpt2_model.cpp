// Opening a GPT-2 folder: the files it must hold, the tensors the config implies, the tokenizer.
#include "engine/model/gpt2_model.hpp"

#include "engine/io/atomic_file.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace attnlab::model {

namespace fs = std::filesystem;

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

fs::path require_file(const fs::path& folder, const char* name, const char* why) {
  const fs::path p = folder / name;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) {
    throw InputError(p.string() + ": missing; " + why);
  }
  return p;
}

// The one .safetensors file of a folder: none is a missing file, two are ambiguous.
fs::path find_weights(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".safetensors") found.push_back(entry.path());
  }
  if (ec) throw InputError(folder.string() + ": cannot list the folder (" + ec.message() + ")");
  std::sort(found.begin(), found.end());
  if (found.empty()) throw InputError((folder / "model.safetensors").string() + ": missing; a model folder holds its weights there");
  if (found.size() > 1) {
    throw InputError(folder.string() + ": holds " + std::to_string(found.size()) + " .safetensors files (" + found[0].filename().string() +
                     ", " + found[1].filename().string() + (found.size() > 2 ? ", …" : "") +
                     "); Attention Lab reads one: open the file itself");
  }
  return found[0];
}

}  // namespace

Gpt2Model::Gpt2Model(Gpt2Config config, BpeTokenizer tokenizer, SafetensorsFile file, fs::path folder)
    : config_(std::move(config)), tokenizer_(std::move(tokenizer)), file_(std::move(file)), folder_(std::move(folder)) {}

std::unique_ptr<Gpt2Model> Gpt2Model::open(const fs::path& path) {
  std::error_code ec;
  fs::path folder, weights;
  if (fs::is_directory(path, ec)) {
    folder = path;
  } else if (fs::is_regular_file(path, ec)) {
    if (path.extension() != ".safetensors") {
      throw InputError(path.string() + ": not a model: give a model folder or its .safetensors file");
    }
    folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    weights = path;
  } else {
    throw InputError(path.string() + ": no such model folder or file (see attnlab models for the built-in ones)");
  }
  const fs::path config_path = require_file(folder, "config.json", "a model folder holds config.json beside its weights");
  Gpt2Config config = parse_gpt2_config(read_file(config_path), config_path.string());
  const fs::path vocab_path = require_file(folder, "vocab.json", "a model folder holds its tokenizer's vocab.json");
  BpeTokenizer tokenizer = [&] {
    if (config.is_toy()) return BpeTokenizer::parse_symbols(read_file(vocab_path), vocab_path.string());
    const fs::path merges_path = require_file(folder, "merges.txt", "a GPT-2 folder holds its tokenizer's merges.txt beside vocab.json");
    return BpeTokenizer::load(vocab_path, merges_path);
  }();
  if (tokenizer.vocab_size() > config.vocab_size) {
    throw InputError(vocab_path.string() + ": has " + std::to_string(tokenizer.vocab_size()) + " tokens but " + config_path.string() +
                     " says vocab_size " + std::to_string(config.vocab_size));
  }
  if (weights.empty()) weights = find_weights(folder);
  SafetensorsFile file(weights);
  std::unique_ptr<Gpt2Model> m(new Gpt2Model(std::move(config), std::move(tokenizer), std::move(file), folder));
  m->bind_tensors();
  return m;
}

std::unique_ptr<Gpt2Model> Gpt2Model::open_memory(const ModelFiles& files, const std::string& name) {
  const fs::path folder = name;
  const std::string config_src = (folder / "config.json").string(), vocab_src = (folder / "vocab.json").string();
  Gpt2Config config = parse_gpt2_config(files.config_json, config_src);
  if (!config.is_toy()) throw InputError(config_src + ": has no \"attnlab_task\"; only Attention Lab's own toy models open from memory");
  BpeTokenizer tokenizer = BpeTokenizer::parse_symbols(files.vocab_json, vocab_src);
  if (tokenizer.vocab_size() > config.vocab_size) {
    throw InputError(vocab_src + ": has " + std::to_string(tokenizer.vocab_size()) + " tokens but " + config_src + " says vocab_size " +
                     std::to_string(config.vocab_size));
  }
  SafetensorsFile file = SafetensorsFile::view(files.weights, folder / "model.safetensors", files.owner);
  std::unique_ptr<Gpt2Model> m(new Gpt2Model(std::move(config), std::move(tokenizer), std::move(file), folder));
  m->name_ = name;
  m->memory_ = files;
  m->bind_tensors();
  return m;
}

void Gpt2Model::bind_tensors() {
  const auto& tensors = file_.header().tensors;
  const std::string src = file_.path().string();
  const std::string prefix = tensors.count("transformer.wte.weight") ? "transformer." : "";
  const std::int64_t d = config_.n_embd, V = config_.vocab_size, P = config_.n_positions;
  std::set<std::string> used;
  const auto need = [&](const std::string& name, std::vector<std::int64_t> shape) -> const TensorInfo* {
    const auto it = tensors.find(prefix + name);
    if (it == tensors.end()) {
      throw InputError(src + ": tensor '" + prefix + name + "' is missing (config.json has " + std::to_string(config_.n_layer) +
                       " layers of width " + std::to_string(d) + ")");
    }
    if (it->second.shape != shape) {
      throw InputError(src + ": tensor '" + it->first + "' has shape " + shape_text(it->second.shape) + " but config.json (n_embd " +
                       std::to_string(d) + ", vocab_size " + std::to_string(V) + ", n_positions " + std::to_string(P) + ") needs " +
                       shape_text(shape));
    }
    used.insert(it->first);
    return &it->second;
  };
  wte_ = need("wte.weight", {V, d});
  wpe_ = need("wpe.weight", {P, d});
  ln_f_w_ = need("ln_f.weight", {d});
  ln_f_b_ = need("ln_f.bias", {d});
  layers_.clear();
  for (int l = 0; l < config_.n_layer; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    Gpt2LayerTensors t{};
    t.ln_1_w = need(h + "ln_1.weight", {d});
    t.ln_1_b = need(h + "ln_1.bias", {d});
    t.c_attn_w = need(h + "attn.c_attn.weight", {d, 3 * d});
    t.c_attn_b = need(h + "attn.c_attn.bias", {3 * d});
    t.attn_proj_w = need(h + "attn.c_proj.weight", {d, d});
    t.attn_proj_b = need(h + "attn.c_proj.bias", {d});
    t.ln_2_w = need(h + "ln_2.weight", {d});
    t.ln_2_b = need(h + "ln_2.bias", {d});
    t.c_fc_w = need(h + "mlp.c_fc.weight", {d, 4 * d});
    t.c_fc_b = need(h + "mlp.c_fc.bias", {4 * d});
    t.mlp_proj_w = need(h + "mlp.c_proj.weight", {4 * d, d});
    t.mlp_proj_b = need(h + "mlp.c_proj.bias", {d});
    layers_.push_back(t);
  }
  // Anything else is a mistake (a model with more layers than its config says, another
  // architecture), except the causal-mask buffers some exports carry and a copy of the tied
  // output matrix.
  for (const auto& [name, t] : tensors) {
    if (used.count(name)) continue;
    std::string rest = name.substr(0, prefix.size()) == prefix ? name.substr(prefix.size()) : name;
    if (rest == "lm_head.weight" || name == "lm_head.weight") continue;
    if (rest.rfind("h.", 0) == 0) {
      const std::size_t dot = rest.find('.', 2);
      const std::string tail = dot == std::string::npos ? "" : rest.substr(dot + 1);
      const bool numbered = dot != std::string::npos && dot > 2 && rest.find_first_not_of("0123456789", 2) == dot;
      if (numbered && std::strtol(rest.c_str() + 2, nullptr, 10) < config_.n_layer && (tail == "attn.bias" || tail == "attn.masked_bias")) {
        continue;
      }
    }
    throw InputError(src + ": tensor '" + name + "' is not part of a GPT-2 with " + std::to_string(config_.n_layer) +
                     " layers (does config.json belong to these weights?)");
  }
}

std::string Gpt2Model::display_name() const {
  if (!name_.empty()) return name_;
  if (!config_.is_toy()) return "GPT-2";
  const fs::path f = fs::absolute(folder_).lexically_normal();
  const std::string name = (f.has_filename() ? f.filename() : f.parent_path().filename()).string();
  return name.empty() ? "model" : name;
}

void Gpt2Model::check_ids(const std::vector<int>& ids, std::string_view what) const {
  const std::string w(what);
  if (ids.empty()) throw InputError(w + ": gives no tokens; the model needs at least one");
  if (static_cast<std::int64_t>(ids.size()) > config_.n_positions) {
    throw InputError(w + ": " + std::to_string(ids.size()) + " tokens, more than this model's " + std::to_string(config_.n_positions) +
                     " positions (n_positions)");
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= config_.vocab_size) {
      throw InputError(w + ": token " + std::to_string(i) + " has id " + std::to_string(ids[i]) + ", beyond the vocabulary (ids 0 to " +
                       std::to_string(config_.vocab_size - 1) + ")");
    }
  }
}

std::vector<int> Gpt2Model::tokenize(std::string_view text, std::string_view what) const {
  std::vector<int> ids;
  try {
    ids = tokenizer_.encode(text);
  } catch (const InputError& e) {
    throw InputError(std::string(what) + ": " + e.what());
  }
  check_ids(ids, what);
  return ids;
}

}  // namespace attnlab::model
