// Opening a model folder (or a toy model in memory): config.json, the weights, the tokenizer when
// its files are there; and saving those files again.
#include "engine/model/decoder_model.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/model/gguf_model.hpp"
#include "engine/model/gguf_tokenizer.hpp"
#include "engine/model/tokenizer/tokenizer_json.hpp"

#include <fstream>
#include <map>
#include <set>

namespace attnlab::model {

namespace fs = std::filesystem;

namespace {

fs::path require_file(const fs::path& folder, const char* name, const char* why) {
  const fs::path p = folder / name;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) throw InputError(p.string() + ": missing; " + why);
  return p;
}

bool has_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

struct LoadedTokenizer {
  std::unique_ptr<Tokenizer> tokenizer;
  std::string missing;  // why there is none
};

// A toy model's vocab.json of symbols, or what the family's row names: GPT-2's vocab.json +
// merges.txt, or tokenizer.json (with tokenizer_config.json when there is one). Files that are there must be
// right (InputError); files that are not leave the model without a tokenizer, and --text then says
// which is missing.
LoadedTokenizer load_tokenizer(const fs::path& folder, const ModelConfig& c) {
  const auto none = [](const fs::path& file, const std::string& why) { return LoadedTokenizer{nullptr, file.string() + ": " + why}; };
  if (c.is_toy() || family_spec(c.family).tokenizer == TokenizerKind::Gpt2Bpe) {
    const fs::path vocab = folder / "vocab.json", merges = folder / "merges.txt";
    const char* why = "missing; a text needs the model's tokenizer there (attnlab model … --ids runs without one)";
    if (!has_file(vocab)) return none(vocab, why);
    if (!c.is_toy() && !has_file(merges)) return none(merges, why);
    auto bpe = std::make_unique<BpeTokenizer>(c.is_toy() ? BpeTokenizer::parse_symbols(read_file(vocab), vocab.string())
                                                         : BpeTokenizer::load(vocab, merges));
    if (bpe->vocab_size() > c.vocab_size) {
      throw InputError(vocab.string() + ": has " + std::to_string(bpe->vocab_size()) + " tokens but " + (folder / "config.json").string() +
                       " says vocab_size " + std::to_string(c.vocab_size));
    }
    return {std::move(bpe), ""};
  }
  // A tokenizer.json with more tokens than the embedding has rows is not refused here (some carry
  // unused added tokens): an id it gives beyond vocab_size is refused by check_ids instead.
  const fs::path json = folder / "tokenizer.json";
  if (!has_file(json)) return none(json, "missing; a text needs the model's tokenizer there (attnlab model … --ids runs without one)");
  return {load_tokenizer_json(folder), ""};
}

// Whether the file starts as a GGUF file does.
bool starts_as_gguf(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[4] = {};
  return f.read(magic, 4) && std::string_view(magic, 4) == "GGUF";
}

// The type most of the weights' values are stored in.
std::string most_values_type(const WeightFiles& w) {
  std::map<TensorType, std::int64_t> values;
  for (const auto& [name, ref] : w.tensors()) values[ref.info->type] += ref.info->elements();
  const auto most = std::max_element(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return most == values.end() ? "F32" : type_name(most->first);
}

}  // namespace

DecoderModel::DecoderModel(ModelConfig config, WeightFiles weights, DecoderTensors tensors, fs::path folder)
    : config_(std::move(config)), weights_(std::move(weights)), tensors_(std::move(tensors)), folder_(std::move(folder)) {
  tensor_type_ = most_values_type(weights_);
}

std::unique_ptr<DecoderModel> DecoderModel::open_gguf(const fs::path& file, const std::string& name) {
  auto gguf = std::make_unique<GgufFile>(file);
  const GgufFile& f = *gguf;
  ModelConfig config = gguf_model_config(f);
  GgufTokenizer tok = gguf_tokenizer(f.metadata());
  const std::string type = gguf_tensor_type(f);
  std::string shown = name;
  if (shown.empty()) shown = std::string(f.metadata().string("general.name").value_or(file.stem().string()));
  WeightFiles weights = WeightFiles::of(std::move(gguf));
  DecoderTensors tensors = bind_gguf_tensors(config, weights);
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  std::unique_ptr<DecoderModel> m(new DecoderModel(std::move(config), std::move(weights), std::move(tensors), folder));
  // A tokenizer with more tokens than the embedding has rows is not refused here: an id it gives
  // past them is refused by check_ids, as for tokenizer.json's unused added tokens.
  m->tokenizer_ = std::move(tok.tokenizer);
  m->missing_tokenizer_ = std::move(tok.missing);
  m->name_ = shown;
  m->gguf_ = file;
  m->tensor_type_ = type;
  return m;
}

std::unique_ptr<DecoderModel> DecoderModel::open(const fs::path& path, const std::string& name) {
  std::error_code ec;
  fs::path folder, file;
  if (fs::is_directory(path, ec)) {
    folder = path;
  } else if (fs::is_regular_file(path, ec)) {
    if (path.extension() == ".gguf" || starts_as_gguf(path)) return open_gguf(path, name);
    if (path.extension() != ".safetensors") {
      throw InputError(path.string() + ": not a model: give a model folder, its .safetensors file or a .gguf file");
    }
    folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    file = path;
  } else {
    throw InputError(path.string() + ": no such model folder or file (see attnlab models for the built-in ones)");
  }
  const fs::path config_path = require_file(folder, "config.json", "a model folder holds config.json beside its weights");
  ModelConfig config = parse_model_config(read_file(config_path), config_path.string());
  LoadedTokenizer tok = load_tokenizer(folder, config);
  WeightFiles weights = file.empty() ? WeightFiles::open_folder(folder) : WeightFiles::open_file(file);
  DecoderTensors tensors = family_spec(config.family).bind_tensors(config, weights);
  std::unique_ptr<DecoderModel> m(new DecoderModel(std::move(config), std::move(weights), std::move(tensors), folder));
  m->tokenizer_ = std::move(tok.tokenizer);
  m->missing_tokenizer_ = std::move(tok.missing);
  m->name_ = name;
  return m;
}

std::unique_ptr<DecoderModel> DecoderModel::open_memory(const ModelFiles& files, const std::string& name) {
  const fs::path folder = name;
  const std::string config_src = (folder / "config.json").string(), vocab_src = (folder / "vocab.json").string();
  ModelConfig config = parse_model_config(files.config_json, config_src);
  if (!config.is_toy()) throw InputError(config_src + ": has no \"attnlab_task\"; only Attention Lab's own toy models open from memory");
  auto tokenizer = std::make_unique<BpeTokenizer>(BpeTokenizer::parse_symbols(files.vocab_json, vocab_src));
  if (tokenizer->vocab_size() > config.vocab_size) {
    throw InputError(vocab_src + ": has " + std::to_string(tokenizer->vocab_size()) + " tokens but " + config_src + " says vocab_size " +
                     std::to_string(config.vocab_size));
  }
  WeightFiles weights = WeightFiles::view(files.weights, folder / "model.safetensors", files.owner);
  DecoderTensors tensors = family_spec(config.family).bind_tensors(config, weights);
  std::unique_ptr<DecoderModel> m(new DecoderModel(std::move(config), std::move(weights), std::move(tensors), folder));
  m->tokenizer_ = std::move(tokenizer);
  m->name_ = name;
  m->memory_ = files;
  return m;
}

std::string DecoderModel::display_name() const {
  if (!gguf_.empty()) return name_;
  if (const char* family = family_spec(config_.family).display_name; family && !config_.is_toy()) return family;
  if (!name_.empty()) return name_;
  const fs::path f = fs::absolute(folder_).lexically_normal();
  const std::string name = (f.has_filename() ? f.filename() : f.parent_path().filename()).string();
  return name.empty() ? "model" : name;
}

std::int64_t DecoderModel::parameters() const {
  std::set<const TensorInfo*> seen;  // the tied output matrix once
  const auto add = [&](TensorRef t) {
    if (t) seen.insert(t.info);
  };
  add(tensors_.embed);
  add(tensors_.position);
  add(tensors_.final_norm.w);
  add(tensors_.final_norm.b);
  add(tensors_.lm_head);
  for (const LayerTensors& L : tensors_.layers) {
    for (const NormRef& n : {L.attn_norm, L.ffn_norm}) {
      add(n.w);
      add(n.b);
    }
    for (const LinearRef& p : {L.qkv, L.q, L.k, L.v, L.o, L.up, L.gate, L.down}) {
      add(p.w);
      add(p.b);
    }
    add(L.q_norm);
    add(L.k_norm);
  }
  std::int64_t n = 0;
  for (const TensorInfo* t : seen) n += t->elements();
  return n;
}

void DecoderModel::save(const fs::path& dir, bool force) const {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError("--save " + dir.string() + ": cannot create the folder (" + ec.message() + ")");
  const auto refuse_existing = [&](const fs::path& to) {
    if (!force && fs::exists(to, ec)) throw InputError("--save " + to.string() + ": the file exists; pass --force to replace it");
  };
  if (!gguf_.empty()) {
    // A GGUF model is its one file, copied whole (through a temporary name, renamed into place).
    const fs::path to = dir / gguf_.filename().replace_extension(".gguf");
    refuse_existing(to);
    const fs::path tmp = to.string() + ".tmp";
    fs::copy_file(gguf_, tmp, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(tmp, to, ec);
    if (ec) {
      fs::remove(tmp, ec);
      throw InputError("--save " + to.string() + ": cannot write the file (" + ec.message() + ")");
    }
    return;
  }
  if (memory_) {
    const std::pair<const char*, std::string_view> files[] = {
        {"config.json", memory_->config_json}, {"model.safetensors", memory_->weights}, {"vocab.json", memory_->vocab_json}};
    for (const auto& [name, bytes] : files) refuse_existing(dir / name);
    for (const auto& [name, bytes] : files) write_file_atomic(dir / name, bytes);
    return;
  }
  std::vector<std::pair<fs::path, fs::path>> files = {{folder_ / "config.json", dir / "config.json"}};
  if (weights_.index_path().empty()) {
    files.emplace_back(weights_.files().front()->path(), dir / "model.safetensors");
  } else {
    files.emplace_back(weights_.index_path(), dir / kShardIndex);
    for (const auto& f : weights_.files()) files.emplace_back(f->path(), dir / f->path().filename());
  }
  for (const char* name : {"vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json"}) {
    if (has_file(folder_ / name)) files.emplace_back(folder_ / name, dir / name);
  }
  for (const auto& [from, to] : files) refuse_existing(to);
  for (const auto& [from, to] : files) write_file_atomic(to, read_file(from));
}

}  // namespace attnlab::model
