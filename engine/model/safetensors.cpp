// The safetensors reader: strict header validation, a read-only mapping, dtype conversion.
#include "engine/model/safetensors.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace attnlab::model {

namespace {

Precision parse_dtype(const nlohmann::json& v, std::string_view source, const std::string& name) {
  if (!v.is_string()) throw InputError(std::string(source) + ": tensor " + in_quotes(name) + " has no \"dtype\" string");
  const auto& s = v.get_ref<const std::string&>();
  if (const std::optional<Precision> p = precision_of_safetensors_dtype(s)) return *p;
  throw InputError(std::string(source) + ": tensor " + in_quotes(name) + " has dtype " + in_quotes(s) +
                   "; Attention Lab reads F32, F16 and BF16");
}

std::uint64_t parse_offset(const nlohmann::json& v, std::string_view source, const std::string& name) {
  if (!v.is_number_unsigned()) {
    throw InputError(std::string(source) + ": tensor " + in_quotes(name) + " has a \"data_offsets\" entry that is not a non-negative integer");
  }
  return v.get<std::uint64_t>();
}

TensorInfo parse_tensor(const std::string& name, const nlohmann::json& v, std::string_view source) {
  const std::string src(source);
  if (!v.is_object()) throw InputError(src + ": tensor " + in_quotes(name) + " is not a JSON object");
  TensorInfo t;
  t.name = name;
  t.dtype = parse_dtype(v.contains("dtype") ? v["dtype"] : nlohmann::json(), source, name);
  if (!v.contains("shape") || !v["shape"].is_array()) throw InputError(src + ": tensor " + in_quotes(name) + " has no \"shape\" list");
  if (v["shape"].size() > 8) throw InputError(src + ": tensor " + in_quotes(name) + " has more than 8 dimensions");
  // Each dimension is at most 2^40 and the running product at most 2^60, so it never wraps.
  std::uint64_t bytes = bytes_per_value(t.dtype);
  for (const auto& d : v["shape"]) {
    if (!d.is_number_unsigned()) throw InputError(src + ": tensor " + in_quotes(name) + " has a shape entry that is not a non-negative integer");
    const std::uint64_t dim = d.get<std::uint64_t>();
    if (dim > std::uint64_t{1} << 40) throw InputError(src + ": tensor " + in_quotes(name) + " has a dimension of " + std::to_string(dim));
    t.shape.push_back(static_cast<std::int64_t>(dim));
    if (dim != 0 && bytes > (std::uint64_t{1} << 60) / dim) throw InputError(src + ": tensor " + in_quotes(name) + " is larger than any file");
    bytes *= dim;
  }
  if (!v.contains("data_offsets") || !v["data_offsets"].is_array() || v["data_offsets"].size() != 2) {
    throw InputError(src + ": tensor " + in_quotes(name) + " needs \"data_offsets\": [begin, end]");
  }
  t.begin = parse_offset(v["data_offsets"][0], source, name);
  t.end = parse_offset(v["data_offsets"][1], source, name);
  if (t.end < t.begin) {
    throw InputError(src + ": tensor " + in_quotes(name) + " has data_offsets [" + std::to_string(t.begin) + ", " +
                     std::to_string(t.end) + "] that end before they begin");
  }
  if (t.end - t.begin != bytes) {
    throw InputError(src + ": tensor " + in_quotes(name) + " has " + std::to_string(t.end - t.begin) + " bytes of data but its dtype " +
                     std::string(safetensors_dtype(t.dtype)) + " and shape need " + std::to_string(bytes));
  }
  return t;
}

}  // namespace

std::int64_t TensorInfo::elements() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

SafetensorsHeader parse_safetensors(std::string_view file, std::string_view source) {
  const std::string src(source);
  if (file.size() < 8) {
    throw InputError(src + ": the file is truncated: " + std::to_string(file.size()) +
                     " bytes, fewer than the 8-byte header length a safetensors file starts with");
  }
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(file[static_cast<std::size_t>(i)]);
  if (header_len > kMaxHeaderBytes) {
    throw InputError(src + ": the header length is " + std::to_string(header_len) + " bytes, over the 100 MB limit (not a safetensors file?)");
  }
  if (header_len > file.size() - 8) {
    throw InputError(src + ": the header length is " + std::to_string(header_len) + " bytes, past the end of the " +
                     std::to_string(file.size()) + "-byte file (truncated?)");
  }
  SafetensorsHeader h;
  h.data_offset = 8 + header_len;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(file.substr(8, header_len));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(src + ": the header is not JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw InputError(src + ": the header is not a JSON object of tensors");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) throw InputError(src + ": \"__metadata__\" is not an object of strings");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) throw InputError(src + ": \"__metadata__\" entry " + in_quotes(m.key()) + " is not a string");
        h.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    h.tensors.emplace(it.key(), parse_tensor(it.key(), *it, source));
  }
  // The data must be covered exactly: sorted by begin, each tensor starts where the last ended.
  std::vector<const TensorInfo*> order;
  for (const auto& [name, t] : h.tensors) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const TensorInfo* a, const TensorInfo* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  const std::uint64_t data_bytes = file.size() - h.data_offset;
  std::uint64_t at = 0;
  const TensorInfo* last = nullptr;
  for (const TensorInfo* t : order) {
    if (t->begin < at) {
      throw InputError(src + ": tensor " + in_quotes(t->name) + " (bytes " + std::to_string(t->begin) + "–" + std::to_string(t->end) +
                       ") overlaps " + in_quotes(last ? last->name : "") + " (which ends at " + std::to_string(at) + ")");
    }
    if (t->begin > at) {
      throw InputError(src + ": there is a gap of " + std::to_string(t->begin - at) + " bytes before tensor " + in_quotes(t->name) +
                       " (data_offsets must cover the data with no gaps)");
    }
    if (t->end > data_bytes) {
      // Counted from the file's start, as a hex viewer or `ls -l` counts them, not from the data section.
      throw InputError(src + ": tensor " + in_quotes(t->name) + " runs past the end of the file (its data ends at byte " +
                       std::to_string(h.data_offset + t->end) + " of " + std::to_string(file.size()) + "; truncated?)");
    }
    at = t->end;
    last = t;
  }
  if (at != data_bytes) {
    throw InputError(src + ": " + std::to_string(data_bytes - at) + " bytes after the last tensor belong to none (data_offsets must cover the data)");
  }
  return h;
}

namespace {

// Every half's float, computed once (256 KiB): a lookup per element converts an F16 layer several
// times faster than the bit manipulation above, and an F16 model converts every layer per forward.
const std::vector<float>& half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) t[h] = half_to_float(static_cast<std::uint16_t>(h));
    return t;
  }();
  return table;
}

}  // namespace

void to_float(Precision dtype, const std::byte* src, std::size_t count, float* dst) {
  switch (dtype) {
    case Precision::Float32:
      std::memcpy(dst, src, count * 4);
      return;
    case Precision::Float16: {
      const float* table = half_table().data();
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        dst[i] = table[h];
      }
      return;
    }
    case Precision::BFloat16:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t b;
        std::memcpy(&b, src + 2 * i, 2);
        dst[i] = bfloat16_to_float(b);
      }
      return;
  }
}

std::string safetensors_f32_bytes(const std::vector<F32Tensor>& tensors, const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const F32Tensor& t : tensors) {
    std::uint64_t count = 1;
    for (std::int64_t d : t.shape) count *= static_cast<std::uint64_t>(d);
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + 4 * count}}};
    offset += 4 * count;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += text;
  out.reserve(out.size() + offset);
  for (const F32Tensor& t : tensors) {
    std::uint64_t count = 1;
    for (std::int64_t d : t.shape) count *= static_cast<std::uint64_t>(d);
    // Little-endian as the format requires; this build targets little-endian machines only.
    static_assert(sizeof(float) == 4, "safetensors F32 is 4 bytes");
    out.append(reinterpret_cast<const char*>(t.data), 4 * count);
  }
  return out;
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path) : path_(path) {
  const std::string src = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(src + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(src + ": not a regular file");
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw InputError(src + ": cannot map the file into memory (" + std::strerror(errno) + ")");
    }
    map_ = static_cast<const std::byte*>(p);
    mapped_ = true;
  }
  ::close(fd);
  try {
    header_ = parse_safetensors(std::string_view(reinterpret_cast<const char*>(map_), size_), src);
  } catch (...) {
    release();
    throw;
  }
}

SafetensorsFile SafetensorsFile::view(std::string_view bytes, const std::filesystem::path& name, std::shared_ptr<const void> owner) {
  SafetensorsFile f;
  f.path_ = name;
  f.owner_ = std::move(owner);
  f.map_ = reinterpret_cast<const std::byte*>(bytes.data());
  f.size_ = bytes.size();
  f.header_ = parse_safetensors(bytes, name.string());
  return f;
}

SafetensorsFile::~SafetensorsFile() { release(); }

SafetensorsFile::SafetensorsFile(SafetensorsFile&& o) noexcept
    : path_(std::move(o.path_)),
      mapped_(o.mapped_),
      owner_(std::move(o.owner_)),
      map_(o.map_),
      size_(o.size_),
      header_(std::move(o.header_)) {
  o.map_ = nullptr;
  o.size_ = 0;
  o.mapped_ = false;
}

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    mapped_ = o.mapped_;
    owner_ = std::move(o.owner_);
    map_ = o.map_;
    size_ = o.size_;
    header_ = std::move(o.header_);
    o.map_ = nullptr;
    o.size_ = 0;
    o.mapped_ = false;
  }
  return *this;
}

void SafetensorsFile::release() noexcept {
  if (map_ && mapped_) ::munmap(const_cast<std::byte*>(map_), size_);
  map_ = nullptr;
  mapped_ = false;
  owner_.reset();
}

const std::byte* SafetensorsFile::data(const TensorInfo& t) const { return map_ + header_.data_offset + t.begin; }

}  // namespace attnlab::model
