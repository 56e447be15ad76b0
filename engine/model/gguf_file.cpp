// The GGUF reader: the header, keys and tensor infos checked strictly, the data where it is mapped
// (gguf_file.hpp). Every count is checked against the bytes left before anything is allocated for
// it, so no file can make the reader ask for more memory than its own size allows.
#include "engine/model/gguf_file.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace attnlab::model {

namespace {

constexpr std::uint64_t kMaxDims = 4;
constexpr std::uint64_t kMaxNameBytes = 63;  // ggml's names: 64 bytes with the terminating zero
// The fewest bytes a key (8-byte length, a 1-byte name, type, a 1-byte value) and a tensor info
// (a 1-byte name, one dimension, type, offset) can take: the counts must fit the file at these sizes.
constexpr std::uint64_t kMinKeyBytes = 8 + 1 + 4 + 1;
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8;

std::uint64_t scalar_size(GgufType t) {
  switch (t) {
    case GgufType::U8: case GgufType::I8: case GgufType::Bool: return 1;
    case GgufType::U16: case GgufType::I16: return 2;
    case GgufType::U32: case GgufType::I32: case GgufType::F32: return 4;
    case GgufType::U64: case GgufType::I64: case GgufType::F64: return 8;
    case GgufType::String: case GgufType::Array: return 0;
  }
  return 0;
}

struct Reader {
  std::string_view file;
  std::size_t at = 0;
  const std::string& src;

  std::uint64_t left() const { return file.size() - at; }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(src + ": " + what); }
  std::string_view take(std::uint64_t n, const std::string& what) {
    if (n > left()) fail("the file ends inside " + what + " (truncated?)");
    const std::string_view out = file.substr(at, static_cast<std::size_t>(n));
    at += static_cast<std::size_t>(n);
    return out;
  }
  template <class T>
  T number(const std::string& what) {
    T v;
    std::memcpy(&v, take(sizeof(T), what).data(), sizeof(T));
    return v;
  }
  // A string: its uint64 length, then its bytes, which must be in the file.
  std::string_view string(const std::string& what) {
    const auto n = number<std::uint64_t>(what + "'s length");
    if (n > left()) fail(what + "'s length " + std::to_string(n) + " runs past the end of the file");
    return take(n, what);
  }
};

std::string key_text(std::string_view key) { return "key " + in_quotes(key, 80); }

// One value of type `t` for key `key`, checked and skipped over; arrays of arrays are refused (no
// GGUF reader takes them).
GgufValue read_value(Reader& r, GgufType t, std::string_view key) {
  GgufValue v;
  v.type = t;
  const std::size_t start = r.at;
  if (t == GgufType::String) {
    v.raw = r.string(key_text(key) + "'s string");
    return v;
  }
  if (t != GgufType::Array) {
    v.raw = r.take(scalar_size(t), key_text(key) + "'s value");
    return v;
  }
  const auto element = r.number<std::uint32_t>(key_text(key) + "'s array type");
  if (element > static_cast<std::uint32_t>(GgufType::F64)) {
    r.fail(key_text(key) + " is an array of value type " + std::to_string(element) + "; GGUF's types are 0 to 12");
  }
  v.element = static_cast<GgufType>(element);
  if (v.element == GgufType::Array) r.fail(key_text(key) + " is an array of arrays, which GGUF's readers do not take");
  v.count = r.number<std::uint64_t>(key_text(key) + "'s array length");
  // Each element takes at least its size (a string at least its 8-byte length): the count must fit.
  const std::uint64_t least = v.element == GgufType::String ? 8 : scalar_size(v.element);
  if (v.count > r.left() / least) {
    r.fail(key_text(key) + " holds an array of " + std::to_string(v.count) + " " + gguf_type_name(v.element) + " values, more than the " +
           std::to_string(r.left()) + " bytes left in the file could hold");
  }
  const std::size_t elements = r.at;
  if (v.element == GgufType::String) {
    for (std::uint64_t i = 0; i < v.count; ++i) r.string(key_text(key) + "'s string " + std::to_string(i));
  } else {
    r.take(v.count * least, key_text(key) + "'s array");
  }
  v.raw = r.file.substr(elements, r.at - elements);
  (void)start;
  return v;
}

void read_keys(Reader& r, std::uint64_t n_kv, GgufHeader& h) {
  for (std::uint64_t i = 0; i < n_kv; ++i) {
    const std::string what = "key " + std::to_string(i);
    const auto len = r.number<std::uint64_t>(what + "'s length");
    if (len == 0) r.fail(what + " is empty; every key has a name");
    if (len > r.left()) r.fail(what + "'s length " + std::to_string(len) + " runs past the end of the file");
    const std::string key(r.take(len, what));
    const auto type = r.number<std::uint32_t>(key_text(key) + "'s value type");
    if (type > static_cast<std::uint32_t>(GgufType::F64)) {
      r.fail(key_text(key) + " has value type " + std::to_string(type) + "; GGUF's types are 0 to 12");
    }
    GgufValue v = read_value(r, static_cast<GgufType>(type), key);
    if (!h.metadata.emplace(key, v).second) r.fail(key_text(key) + " appears twice");
  }
  if (const auto it = h.metadata.find("general.alignment"); it != h.metadata.end()) {
    if (it->second.type != GgufType::U32) {
      r.fail("\"general.alignment\" is a " + gguf_type_name(it->second.type) + "; it must be a uint32 (a power of two)");
    }
    std::uint32_t a;
    std::memcpy(&a, it->second.raw.data(), 4);
    if (a == 0 || (a & (a - 1)) != 0) r.fail("\"general.alignment\" is " + std::to_string(a) + ", not a power of two");
    h.alignment = a;
  }
}

std::string tensor_text(std::string_view name) { return "tensor " + in_quotes(name, 80); }

// One tensor info: its name, sizes, type and offset, each checked.
TensorInfo read_tensor_info(Reader& r, std::uint64_t index) {
  TensorInfo t;
  const std::string what = "tensor " + std::to_string(index);
  const std::string_view name = r.string(what + "'s name");
  if (name.empty()) r.fail(what + " has an empty name");
  if (name.size() > kMaxNameBytes) {
    r.fail(tensor_text(name) + "'s name is " + std::to_string(name.size()) + " bytes long; GGUF's names hold at most 63");
  }
  t.name = std::string(name);
  const auto n_dims = r.number<std::uint32_t>(tensor_text(name) + "'s dimension count");
  if (n_dims == 0 || n_dims > kMaxDims) {
    r.fail(tensor_text(name) + " has " + std::to_string(n_dims) + " dimensions; GGUF's tensors have 1 to 4");
  }
  std::uint64_t elements = 1;
  std::vector<std::int64_t> ne;
  for (std::uint32_t d = 0; d < n_dims; ++d) {
    const auto size = r.number<std::uint64_t>(tensor_text(name) + "'s sizes");
    if (size > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      r.fail(tensor_text(name) + " has a size of " + std::to_string(static_cast<std::int64_t>(size)) + " (" + std::to_string(size) +
             " as read), not a count");
    }
    if (size != 0 && elements > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / size) {
      r.fail(tensor_text(name) + " has sizes whose product overflows 64 bits");
    }
    elements *= size;
    ne.push_back(static_cast<std::int64_t>(size));
  }
  t.shape.assign(ne.rbegin(), ne.rend());
  const auto id = r.number<std::uint32_t>(tensor_text(name) + "'s type");
  const std::optional<TensorType> type = type_of_ggml(id);
  if (!type) {
    const std::string_view other = other_ggml_type_name(id);
    if (other.empty()) r.fail(tensor_text(name) + " has ggml type " + std::to_string(id) + ", which is no GGUF type");
    r.fail(tensor_text(name) + " is " + std::string(other) + " (ggml type " + std::to_string(id) + "), a type Attention Lab does not read; it reads " +
           type_list());
  }
  t.type = *type;
  const TensorTypeInfo& info = type_info(t.type);
  if (ne[0] % info.block != 0) {
    r.fail(tensor_text(name) + " is " + info.name + ", whose blocks hold " + std::to_string(info.block) + " values, but its rows of " +
           std::to_string(ne[0]) + " are not whole blocks");
  }
  if (elements / static_cast<std::uint64_t>(info.block) > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(info.block_bytes)) {
    r.fail(tensor_text(name) + " has " + std::to_string(elements) + " values of " + info.name + ", more bytes than 64 bits can count");
  }
  t.begin = r.number<std::uint64_t>(tensor_text(name) + "'s offset");
  t.end = type_bytes(t.type, elements);  // its size, for now: check_data places it
  return t;
}

// Every tensor's data: aligned, inside the file, and no two overlapping.
void check_data(const Reader& r, GgufHeader& h) {
  const std::uint64_t data_bytes = r.file.size() - h.data_offset;
  std::vector<TensorInfo*> order;
  for (const std::string& name : h.tensor_order) {
    TensorInfo& t = h.tensors.at(name);
    const std::uint64_t size = t.end;
    if (t.begin % h.alignment != 0) {
      r.fail(tensor_text(t.name) + " starts at data offset " + std::to_string(t.begin) + ", not a multiple of the alignment " +
             std::to_string(h.alignment));
    }
    if (t.begin > data_bytes || size > data_bytes - t.begin) {
      r.fail(tensor_text(t.name) + " runs past the end of the file: its " + std::to_string(size) + " bytes at data offset " + std::to_string(t.begin) +
             " need more than the " + std::to_string(data_bytes) + " bytes of data there (truncated?)");
    }
    t.end = t.begin + size;
    order.push_back(&t);
  }
  std::stable_sort(order.begin(), order.end(), [](const TensorInfo* a, const TensorInfo* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const TensorInfo &a = *order[i - 1], &b = *order[i];
    if (b.begin < a.end) {
      r.fail(tensor_text(b.name) + " (data bytes " + std::to_string(b.begin) + " to " + std::to_string(b.end) + ") overlaps " +
             in_quotes(a.name, 80) + " (which ends at " + std::to_string(a.end) + ")");
    }
  }
}

}  // namespace

std::string gguf_type_name(GgufType type) {
  static const char* const names[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
                                      "bool",  "string", "array", "uint64", "int64", "float64"};
  const auto i = static_cast<std::size_t>(type);
  return i < std::size(names) ? names[i] : "type " + std::to_string(i);
}

GgufHeader parse_gguf(std::string_view file, std::string_view source) {
  const std::string src(source);
  Reader r{file, 0, src};
  if (file.size() < 4 || file.substr(0, 4) != "GGUF") {
    r.fail(file.size() < 4 ? "not a GGUF file (" + std::to_string(file.size()) + " bytes, too short to start with 'GGUF')"
                           : "not a GGUF file (it starts with " + in_quotes(file.substr(0, 4)) + ", not 'GGUF')");
  }
  r.at = 4;
  GgufHeader h;
  h.version = r.number<std::uint32_t>("the GGUF header's version");
  if (h.version != 2 && h.version != 3) {
    const bool swapped = h.version > 0xFFFF && (h.version & 0xFFFF) == 0;
    r.fail("GGUF version " + std::to_string(h.version) + (swapped ? " (a big-endian file?)" : h.version == 1 ? " (the first, with 32-bit counts)" : "") +
           "; Attention Lab reads little-endian versions 2 and 3");
  }
  const auto n_tensors = r.number<std::uint64_t>("the GGUF header's tensor count");
  const auto n_kv = r.number<std::uint64_t>("the GGUF header's key count");
  if (n_kv > r.left() / kMinKeyBytes) {
    r.fail("the header counts " + std::to_string(n_kv) + " keys, more than the file's " + std::to_string(file.size()) + " bytes could hold");
  }
  if (n_tensors > r.left() / kMinTensorInfoBytes) {
    r.fail("the header counts " + std::to_string(n_tensors) + " tensors, more than the file's " + std::to_string(file.size()) +
           " bytes could hold");
  }
  read_keys(r, n_kv, h);
  for (std::uint64_t i = 0; i < n_tensors; ++i) {
    TensorInfo t = read_tensor_info(r, i);
    const std::string name = t.name;
    if (!h.tensors.emplace(name, std::move(t)).second) r.fail("the tensor name " + in_quotes(name, 80) + " appears twice");
    h.tensor_order.push_back(name);
  }
  h.data_offset = (r.at + h.alignment - 1) / h.alignment * h.alignment;
  if (h.data_offset > file.size()) {
    if (n_tensors > 0) r.fail(tensor_text(h.tensor_order.front()) + "'s data is missing: the file ends before its data starts (truncated?)");
    h.data_offset = file.size();
  }
  check_data(r, h);
  return h;
}

GgufFile::GgufFile(const std::filesystem::path& path) : path_(path), map_(path) { header_ = parse_gguf(map_.bytes(), path.string()); }

// ---- typed values ----------------------------------------------------------------------------

namespace {

bool is_integer(GgufType t) {
  switch (t) {
    case GgufType::U8: case GgufType::I8: case GgufType::U16: case GgufType::I16: case GgufType::U32: case GgufType::I32:
    case GgufType::U64: case GgufType::I64: return true;
    default: return false;
  }
}

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// The scalar of type t at p as a double (integers exactly up to 2^53); u64 past 2^63 stays positive.
double scalar_at(GgufType t, const char* p) {
  switch (t) {
    case GgufType::U8: return load<std::uint8_t>(p);
    case GgufType::I8: return load<std::int8_t>(p);
    case GgufType::U16: return load<std::uint16_t>(p);
    case GgufType::I16: return load<std::int16_t>(p);
    case GgufType::U32: return load<std::uint32_t>(p);
    case GgufType::I32: return load<std::int32_t>(p);
    case GgufType::U64: return static_cast<double>(load<std::uint64_t>(p));
    case GgufType::I64: return static_cast<double>(load<std::int64_t>(p));
    case GgufType::F32: return load<float>(p);
    case GgufType::F64: return load<double>(p);
    case GgufType::Bool: return load<std::uint8_t>(p) ? 1 : 0;
    default: return 0;
  }
}

// An integer of type t at p, or nullopt when it does not fit int64 (a uint64 past 2^63).
std::optional<std::int64_t> integer_at(GgufType t, const char* p) {
  if (t == GgufType::U64) {
    const auto v = load<std::uint64_t>(p);
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(v);
  }
  if (t == GgufType::I64) return load<std::int64_t>(p);
  return static_cast<std::int64_t>(scalar_at(t, p));
}

}  // namespace

const GgufValue* GgufMetadata::find(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

void GgufMetadata::fail(const std::string& key, const std::string& what) const { throw InputError(source_ + ": " + key_text(key) + " " + what); }

std::optional<std::int64_t> GgufMetadata::integer(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (!is_integer(v->type)) fail(key, "is a " + gguf_type_name(v->type) + "; expected a whole number");
  const auto n = integer_at(v->type, v->raw.data());
  if (!n) fail(key, "is a uint64 past the largest whole number Attention Lab reads (2^63 − 1)");
  return n;
}

std::optional<double> GgufMetadata::number(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (!is_integer(v->type) && v->type != GgufType::F32 && v->type != GgufType::F64) {
    fail(key, "is a " + gguf_type_name(v->type) + "; expected a number");
  }
  return scalar_at(v->type, v->raw.data());
}

std::optional<bool> GgufMetadata::boolean(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != GgufType::Bool) fail(key, "is a " + gguf_type_name(v->type) + "; expected true or false");
  return v->raw[0] != 0;
}

std::optional<std::string_view> GgufMetadata::string(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != GgufType::String) fail(key, "is a " + gguf_type_name(v->type) + "; expected a string");
  return v->raw;
}

std::optional<std::vector<std::string_view>> GgufMetadata::strings(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != GgufType::Array || v->element != GgufType::String) fail(key, "is not an array of strings");
  std::vector<std::string_view> out;
  out.reserve(static_cast<std::size_t>(v->count));  // the reader checked: at least 8 bytes each
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < v->count; ++i) {
    const auto n = load<std::uint64_t>(v->raw.data() + at);
    out.push_back(v->raw.substr(at + 8, static_cast<std::size_t>(n)));
    at += 8 + static_cast<std::size_t>(n);
  }
  return out;
}

std::optional<std::vector<double>> GgufMetadata::numbers(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != GgufType::Array || !(is_integer(v->element) || v->element == GgufType::F32 || v->element == GgufType::F64)) {
    fail(key, "is not an array of numbers");
  }
  std::vector<double> out(static_cast<std::size_t>(v->count));
  const std::uint64_t size = scalar_size(v->element);
  for (std::uint64_t i = 0; i < v->count; ++i) out[i] = scalar_at(v->element, v->raw.data() + i * size);
  return out;
}

std::optional<std::vector<std::int64_t>> GgufMetadata::integers(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != GgufType::Array || !is_integer(v->element)) fail(key, "is not an array of whole numbers");
  std::vector<std::int64_t> out(static_cast<std::size_t>(v->count));
  const std::uint64_t size = scalar_size(v->element);
  for (std::uint64_t i = 0; i < v->count; ++i) {
    const auto n = integer_at(v->element, v->raw.data() + i * size);
    if (!n) fail(key, "holds a uint64 past the largest whole number Attention Lab reads");
    out[i] = *n;
  }
  return out;
}

}  // namespace attnlab::model
