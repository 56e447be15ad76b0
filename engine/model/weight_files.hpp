// A model's weights: one safetensors file, the shards model.safetensors.index.json lists, or one
// GGUF file, each mapped (never copied), with every tensor found by name in whichever file holds it.
#pragma once

#include "engine/model/safetensors.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

// A tensor and the file that holds it; empty (false) for an optional tensor that is absent.
struct TensorRef {
  const WeightFile* file = nullptr;
  const TensorInfo* info = nullptr;
  explicit operator bool() const { return info != nullptr; }
};

inline constexpr const char* kShardIndex = "model.safetensors.index.json";

// Parses a shard index, {"weight_map": {tensor: file, …}} (other fields such as "metadata" are
// left alone), into tensor → file. Throws InputError naming `source`: not JSON, no weight_map
// object, a file that is not a string naming a .safetensors file in the same folder (no folder
// part, no ".."), a tensor named twice.
std::map<std::string, std::string> parse_shard_index(std::string_view json_text, std::string_view source);

class WeightFiles {
public:
  // The weights of a model folder: the shards its model.safetensors.index.json lists when there
  // is one, else its one .safetensors file. Throws InputError: no weights, two .safetensors files
  // and no index, a shard listed but missing (named), a tensor in two shards, a tensor the index
  // puts in a shard that does not hold it, any file's own errors (safetensors.hpp).
  static WeightFiles open_folder(const std::filesystem::path& folder);
  // One .safetensors file.
  static WeightFiles open_file(const std::filesystem::path& file);
  // A whole safetensors file already in memory (SafetensorsFile::view).
  static WeightFiles view(std::string_view bytes, const std::filesystem::path& name, std::shared_ptr<const void> owner = {});
  // One file already opened (a GGUF file).
  static WeightFiles of(std::unique_ptr<WeightFile> file);

  // The tensor called `name`, or an empty ref.
  TensorRef find(const std::string& name) const;
  const std::map<std::string, TensorRef>& tensors() const { return tensors_; }
  const std::vector<std::unique_ptr<WeightFile>>& files() const { return files_; }
  // The index of a sharded model (empty otherwise).
  const std::filesystem::path& index_path() const { return index_; }
  // What error sentences start with: the one file's path, or the index's.
  std::string source() const;
  // Bytes in all files.
  std::uint64_t total_bytes() const;

private:
  void add(std::unique_ptr<WeightFile> file);
  std::vector<std::unique_ptr<WeightFile>> files_;  // behind pointers: refs survive a move
  std::map<std::string, TensorRef> tensors_;
  std::filesystem::path index_;
};

}  // namespace attnlab::model
