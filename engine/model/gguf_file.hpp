// The GGUF format (llama.cpp's files; docs/MODELS.md, "GGUF files"), written here from the format's
// documentation (ggml's docs/gguf.md): little-endian "GGUF", a uint32 version (2 or 3: the same
// layout), uint64 tensor and key counts, the keys (a string, a uint32 value type, the value; arrays:
// element type, uint64 count, the elements), the tensor infos (name, uint32 dimension count, uint64
// sizes innermost first, uint32 ggml type, uint64 offset into the data), padding to
// `general.alignment` (default 32), then the data. The file is mapped, never copied, and checked
// before anything is read from it: every count against the bytes that could hold it before anything
// is allocated for it, every value type, the alignment, every tensor's type, shape, size and place.
#pragma once

#include "engine/model/weight_file.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

// GGUF's value types, by their ids in the file.
enum class GgufType : std::uint32_t { U8, I8, U16, I16, U32, I32, F32, Bool, String, Array, U64, I64, F64 };

// A metadata value where it is in the file: a scalar's bytes, a string's text, or an array's
// elements (a string array's as their length-prefixed records).
struct GgufValue {
  GgufType type = GgufType::U8;
  GgufType element = GgufType::U8;  // arrays
  std::uint64_t count = 0;          // arrays
  std::string_view raw;
};

struct GgufHeader {
  std::uint32_t version = 0;
  std::uint64_t alignment = 32;
  std::uint64_t data_offset = 0;  // where the data starts in the file
  std::map<std::string, GgufValue> metadata;
  std::map<std::string, TensorInfo> tensors;  // shape outermost first (ne reversed)
  std::vector<std::string> tensor_order;      // as the file lists them
};

// Parses and checks the header of a whole GGUF file held in `file`, and that every tensor's data
// lies in it. Throws InputError with one sentence naming `source` and the key or tensor.
GgufHeader parse_gguf(std::string_view file, std::string_view source);

// Reading typed values; each throws InputError naming the file and the key when the value is there
// but of another type ("… is a string; expected a whole number").
class GgufMetadata {
public:
  GgufMetadata(const std::map<std::string, GgufValue>& values, std::string source) : values_(values), source_(std::move(source)) {}
  const GgufValue* find(const std::string& key) const;
  bool has(const std::string& key) const { return find(key) != nullptr; }
  // Any integer type (a bool is not one).
  std::optional<std::int64_t> integer(const std::string& key) const;
  // float32, float64 or any integer type.
  std::optional<double> number(const std::string& key) const;
  std::optional<bool> boolean(const std::string& key) const;
  std::optional<std::string_view> string(const std::string& key) const;
  // Arrays: of strings; of numbers (float32, float64 or integers) as double; of integers.
  std::optional<std::vector<std::string_view>> strings(const std::string& key) const;
  std::optional<std::vector<double>> numbers(const std::string& key) const;
  std::optional<std::vector<std::int64_t>> integers(const std::string& key) const;
  const std::string& source() const { return source_; }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

private:
  const std::map<std::string, GgufValue>& values_;
  std::string source_;
};

// A GGUF file mapped read-only.
class GgufFile final : public WeightFile {
public:
  // Maps and checks `path`. Throws InputError.
  explicit GgufFile(const std::filesystem::path& path);

  const GgufHeader& header() const { return header_; }
  GgufMetadata metadata() const { return GgufMetadata(header_.metadata, path_.string()); }
  const std::filesystem::path& path() const override { return path_; }
  std::uint64_t file_size() const override { return map_.size(); }
  std::uint64_t data_offset() const override { return header_.data_offset; }
  const std::map<std::string, TensorInfo>& tensor_infos() const override { return header_.tensors; }
  std::string_view bytes() const override { return map_.bytes(); }

private:
  std::filesystem::path path_;
  MappedFile map_;
  GgufHeader header_;
};

// The name of a GGUF value type ("uint32", "array of string").
std::string gguf_type_name(GgufType type);

}  // namespace attnlab::model
