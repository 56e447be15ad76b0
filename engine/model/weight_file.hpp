// What every file of weights gives the model (docs/MODELS.md): its tensors by name, each with its
// type, shape and bytes, read where the file is mapped (never copied). safetensors files
// (safetensors.hpp) and GGUF files (gguf_file.hpp) are the two kinds; MappedFile is the read-only
// mapping both stand on.
#pragma once

#include "engine/model/tensor_types.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

struct TensorInfo {
  std::string name;
  TensorType type = TensorType::F32;
  // The sizes, outermost first, as numpy and PyTorch write them: a Linear's weight is [out, in]
  // (GGUF lists its ne[] innermost first; the GGUF reader turns them round).
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte range, relative to the file's data_offset()
  std::int64_t elements() const;
};

// A file of weights, mapped (or a view of bytes already in memory).
class WeightFile {
public:
  virtual ~WeightFile() = default;
  virtual const std::filesystem::path& path() const = 0;
  virtual std::uint64_t file_size() const = 0;
  // Where the tensors' byte ranges start, from the file's first byte.
  virtual std::uint64_t data_offset() const = 0;
  virtual const std::map<std::string, TensorInfo>& tensor_infos() const = 0;
  // The whole file's bytes.
  virtual std::string_view bytes() const = 0;
  // The tensor's first byte.
  const std::byte* data(const TensorInfo& t) const {
    return reinterpret_cast<const std::byte*>(bytes().data()) + data_offset() + t.begin;
  }

protected:
  WeightFile() = default;
  WeightFile(WeightFile&&) = default;
  WeightFile& operator=(WeightFile&&) = default;
};

// A file mapped read-only (mmap, MAP_PRIVATE), or a view of bytes someone else keeps alive;
// move-only. Throws InputError naming the file when it is missing, not a regular file, or cannot be
// mapped.
class MappedFile {
public:
  MappedFile() = default;
  explicit MappedFile(const std::filesystem::path& path);
  static MappedFile view(std::string_view bytes, std::shared_ptr<const void> owner = {});
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {reinterpret_cast<const char*>(map_), static_cast<std::size_t>(size_)}; }
  std::uint64_t size() const { return size_; }

private:
  void release() noexcept;
  bool mapped_ = false;  // map_ came from mmap (else it is a view)
  std::shared_ptr<const void> owner_;
  const std::byte* map_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace attnlab::model
