// The safetensors format (docs/MODELS.md): an 8-byte little-endian header length, a JSON header
// naming each tensor's dtype, shape and byte range, then the raw little-endian data. The file is
// mapped, never copied; the header is checked strictly before any tensor is read.
#pragma once

#include "engine/attention/float_format.hpp"
#include "engine/model/weight_file.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

struct SafetensorsHeader {
  std::uint64_t data_offset = 0;  // where the data starts in the file: 8 + header length
  std::map<std::string, TensorInfo> tensors;
  std::map<std::string, std::string> metadata;  // __metadata__, when given
};

// Headers longer than this are refused before anything is allocated for them (the format's own
// reference implementation refuses the same).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

// Parses and validates the header of a whole safetensors file held in `file` (its every byte:
// the data is checked to be covered exactly, with no overlap, gap or byte past the end). Throws
// InputError with one sentence naming `source`, the tensor and what is wrong.
SafetensorsHeader parse_safetensors(std::string_view file, std::string_view source);

// Converts `count` little-endian elements of `dtype` at `src` (any alignment) to float.
void to_float(Precision dtype, const std::byte* src, std::size_t count, float* dst);

// One F32 tensor for the writer below.
struct F32Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  const float* data = nullptr;  // product(shape) floats
};
// A whole safetensors file of F32 tensors, their data in the given order (the trainer's models):
// the header padded with spaces to a multiple of 8 bytes, as the format's own writer does, so
// every tensor's data stays 4-byte aligned where the bytes are.
std::string safetensors_f32_bytes(const std::vector<F32Tensor>& tensors, const std::map<std::string, std::string>& metadata = {});

// A safetensors file mapped read-only into memory; move-only. The mapping lives as long as the
// object, and tensors' bytes point into it.
class SafetensorsFile final : public WeightFile {
public:
  // Maps and validates `path`. Throws InputError (missing, unreadable, malformed).
  explicit SafetensorsFile(const std::filesystem::path& path);
  // A view of a whole safetensors file already in memory (a built-in model embedded in the
  // binary, a model the trainer holds): validated the same way, never copied. `name` stands for
  // the path in messages; `owner` keeps the bytes alive when they are not static.
  static SafetensorsFile view(std::string_view bytes, const std::filesystem::path& name, std::shared_ptr<const void> owner = {});

  const SafetensorsHeader& header() const { return header_; }
  const std::filesystem::path& path() const override { return path_; }
  std::uint64_t file_size() const override { return map_.size(); }
  std::uint64_t data_offset() const override { return header_.data_offset; }
  const std::map<std::string, TensorInfo>& tensor_infos() const override { return header_.tensors; }
  std::string_view bytes() const override { return map_.bytes(); }

private:
  SafetensorsFile() = default;
  std::filesystem::path path_;
  MappedFile map_;
  SafetensorsHeader header_;
};

}  // namespace attnlab::model
