// Finding a model's weight files (one, or the shards of an index) and each tensor in them.
#include "engine/model/weight_files.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace attnlab::model {

namespace fs = std::filesystem;

namespace {

bool plain_shard_name(const std::string& f) {
  const std::string ext = ".safetensors";
  return f.size() > ext.size() && f.compare(f.size() - ext.size(), ext.size(), ext) == 0 && f.find('/') == std::string::npos &&
         f.find('\\') == std::string::npos && f.find('\0') == std::string::npos && f.front() != '.';
}

// The one .safetensors file of a folder that has no index: none is a missing file, two are
// ambiguous.
fs::path only_weights(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".safetensors") found.push_back(entry.path());
  }
  if (ec) throw InputError(folder.string() + ": cannot list the folder (" + ec.message() + ")");
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    throw InputError((folder / "model.safetensors").string() + ": missing; a model folder holds its weights there (or shards listed in " +
                     kShardIndex + ")");
  }
  if (found.size() > 1) {
    throw InputError(folder.string() + ": holds " + std::to_string(found.size()) + " .safetensors files (" + found[0].filename().string() +
                     ", " + found[1].filename().string() + (found.size() > 2 ? ", …" : "") + ") and no " + kShardIndex +
                     " to say which are its shards: open the file itself");
  }
  return found[0];
}

}  // namespace

std::map<std::string, std::string> parse_shard_index(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  // nlohmann keeps the last of two equal keys; the callback sees every key, so a tensor named
  // twice in weight_map is caught instead of silently losing one of its files.
  std::string top_key, twice;
  std::set<std::string> seen;
  const auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::key) {
      if (depth == 1) top_key = parsed.get<std::string>();
      if (depth == 2 && top_key == "weight_map" && !seen.insert(parsed.get<std::string>()).second && twice.empty()) {
        twice = parsed.get<std::string>();
      }
    }
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text, callback);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(src + ": not JSON (" + e.what() + ")");
  }
  if (!twice.empty()) throw InputError(src + ": names tensor " + in_quotes(twice) + " twice in \"weight_map\"");
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
    throw InputError(src + ": needs a \"weight_map\" object of tensor names and the shard files that hold them");
  }
  std::map<std::string, std::string> out;
  for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
    if (!it->is_string() || !plain_shard_name(it->get<std::string>())) {
      throw InputError(src + ": tensor " + in_quotes(it.key()) + " is in " + in_quotes(it->dump()) +
                       ", which is not the name of a .safetensors file beside the index");
    }
    out.emplace(it.key(), it->get<std::string>());
  }
  if (out.empty()) throw InputError(src + ": \"weight_map\" names no tensors");
  return out;
}

void WeightFiles::add(std::unique_ptr<WeightFile> file) {
  for (const auto& [name, info] : file->tensor_infos()) {
    const auto [at, fresh] = tensors_.emplace(name, TensorRef{file.get(), &info});
    if (!fresh) {
      throw InputError(file->path().string() + ": holds tensor " + in_quotes(name) + ", which " + at->second.file->path().filename().string() +
                       " holds too; each tensor belongs to one shard");
    }
  }
  files_.push_back(std::move(file));
}

WeightFiles WeightFiles::open_folder(const fs::path& folder) {
  const fs::path index = folder / kShardIndex;
  std::error_code ec;
  if (!fs::exists(index, ec)) return open_file(only_weights(folder));
  WeightFiles w;
  w.index_ = index;
  const auto map = parse_shard_index(read_file(index), index.string());
  std::set<std::string> shards;
  for (const auto& [tensor, file] : map) shards.insert(file);
  for (const std::string& shard : shards) {
    const fs::path p = folder / shard;
    if (!fs::is_regular_file(p, ec)) throw InputError(p.string() + ": missing; " + kShardIndex + " lists it as a shard");
    w.add(std::make_unique<SafetensorsFile>(p));
  }
  for (const auto& [tensor, file] : map) {
    const TensorRef ref = w.find(tensor);
    if (!ref || ref.file->path().filename() != file) {
      throw InputError(index.string() + ": puts tensor " + in_quotes(tensor) + " in " + file + ", which does not hold it" +
                       (ref ? " (" + ref.file->path().filename().string() + " does)" : ""));
    }
  }
  return w;
}

WeightFiles WeightFiles::open_file(const fs::path& file) {
  WeightFiles w;
  w.add(std::make_unique<SafetensorsFile>(file));
  return w;
}

WeightFiles WeightFiles::view(std::string_view bytes, const fs::path& name, std::shared_ptr<const void> owner) {
  WeightFiles w;
  w.add(std::make_unique<SafetensorsFile>(SafetensorsFile::view(bytes, name, std::move(owner))));
  return w;
}

WeightFiles WeightFiles::of(std::unique_ptr<WeightFile> file) {
  WeightFiles w;
  w.add(std::move(file));
  return w;
}

TensorRef WeightFiles::find(const std::string& name) const {
  const auto it = tensors_.find(name);
  return it == tensors_.end() ? TensorRef{} : it->second;
}

std::string WeightFiles::source() const {
  if (!index_.empty()) return index_.string();
  return files_.empty() ? std::string("the weights") : files_.front()->path().string();
}

std::uint64_t WeightFiles::total_bytes() const {
  std::uint64_t n = 0;
  for (const auto& f : files_) n += f->file_size();
  return n;
}

}  // namespace attnlab::model
