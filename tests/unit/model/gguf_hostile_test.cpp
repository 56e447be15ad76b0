// The GGUF container's reader (engine/model/gguf_file.hpp) on hostile files: one test per failure
// mode of tests/model/gguf_writer.py's hostile cases (llama.cpp's own GGUF tests' list and more: bad
// magic, versions 0, 1, 4 and big-endian, counts of −1 and 2⁴⁰, bad key sizes and value types,
// duplicate keys, alignments 13 and 0, names too long, 5 dimensions, negative and overflowing shapes,
// bad and unsupported types, offsets unaligned, overlapping and out of range, duplicate names, data
// one byte short), written at build time into ATTNLAB_GGUF_HOSTILE. Each is refused with one
// sentence that names the file and what cases.json says it must mention, and no allocation while it
// is read is larger than the file (a count read from the file is checked against the bytes that could
// hold it before anything is allocated for it). The valid controls parse.
#include "engine/model/gguf_file.hpp"

#include "engine/attention/matrix.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The largest single allocation while `watching` is set.
std::atomic<bool> watching{false};
std::atomic<std::size_t> largest{0};

void* allocate(std::size_t size) {
  if (watching.load(std::memory_order_relaxed)) {
    std::size_t seen = largest.load(std::memory_order_relaxed);
    while (size > seen && !largest.compare_exchange_weak(seen, size)) {
    }
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's buffer comes from one): an allocation this file does not
// count would be freed here by std::free, which AddressSanitizer refuses as a mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace attnlab::model {
namespace {

struct HostileCase {
  std::string name, file, expect, what;
  std::vector<std::string> mentions;
};

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<HostileCase> load_cases() {
  std::vector<HostileCase> cases;
  const std::string text = read_all(std::string(ATTNLAB_GGUF_HOSTILE) + "/cases.json");
  if (text.empty()) return cases;  // the test below then fails, naming the folder
  for (const auto& c : nlohmann::json::parse(text)) {
    cases.push_back({c.at("name"), c.at("file"), c.at("expect"), c.at("what"), c.at("mentions").get<std::vector<std::string>>()});
  }
  return cases;
}

// gtest names the case by its name (the bytes of the struct otherwise).
void PrintTo(const HostileCase& c, std::ostream* os) { *os << c.name; }

class GgufHostile : public ::testing::TestWithParam<HostileCase> {};

TEST_P(GgufHostile, RefusedInOneSentenceWithinTheFilesBytes) {
  const HostileCase& c = GetParam();
  const std::string bytes = read_all(std::string(ATTNLAB_GGUF_HOSTILE) + "/" + c.file);
  const std::string source = c.file;
  std::string error;
  bool parsed = false;
  largest = 0;
  watching = true;
  try {
    parse_gguf(bytes, source);
    parsed = true;
  } catch (const InputError& e) {
    watching = false;
    error = e.what();
  }
  watching = false;
  // A map node or a short string's worth over the file is not a count taken from it.
  EXPECT_LE(largest.load(), bytes.size() + 256) << c.what << ": an allocation of " << largest.load() << " bytes for a file of " << bytes.size();
  if (c.expect == "open") {
    EXPECT_TRUE(parsed) << c.what << ": " << error;
    return;
  }
  ASSERT_FALSE(parsed) << c.what << ": parsed";
  EXPECT_EQ(error.find('\n'), std::string::npos) << c.what << ": more than one line: " << error;
  // The house's sentences: "FILE: what is wrong (and why)", no trailing period.
  EXPECT_EQ(error.rfind(source + ": ", 0), 0u) << c.what << ": does not start with the file's name: " << error;
  EXPECT_GT(error.size(), source.size() + 12) << c.what << ": says nothing: " << error;
  for (const std::string& m : c.mentions) EXPECT_NE(error.find(m), std::string::npos) << c.what << ": does not mention " << m << ": " << error;
}

INSTANTIATE_TEST_SUITE_P(Cases, GgufHostile, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<HostileCase>& info) { return info.param.name; });

TEST(GgufHostileCases, AreThere) {
  // Every failure mode the issue lists has its case (a renamed or lost case would drop its test).
  const std::vector<HostileCase> cases = load_cases();
  ASSERT_FALSE(cases.empty()) << "no cases.json in " << ATTNLAB_GGUF_HOSTILE;
  for (const char* name : {"bad_magic", "version_1", "version_4", "n_tensors_minus_1", "n_kv_minus_1", "key_size_minus_1", "value_type_13",
                           "duplicate_key", "alignment_13", "tensor_name_too_long", "tensor_n_dims_5", "tensor_dim_negative",
                           "tensor_shape_overflow", "tensor_type_bad", "tensor_type_unsupported", "tensor_offset_out_of_range",
                           "tensor_offset_unaligned", "duplicate_tensor_name", "data_one_byte_short"}) {
    bool found = false;
    for (const HostileCase& c : cases) found = found || c.name == name;
    EXPECT_TRUE(found) << name;
  }
}

}  // namespace
}  // namespace attnlab::model
