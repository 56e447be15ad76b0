// The tensor types' conversion to float32 (engine/model/tensor_types.hpp) against the values
// tests/model/gguf_quants.py reads from the same blocks (itself bit-exact with ggml's dequantizers:
// model_gguf_reference), for all 13 types: random blocks and any bytes, every value bit for bit.
// tensor_types_cases.py writes the cases at build time into ATTNLAB_TENSOR_CASES.
#include "engine/model/tensor_types.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace attnlab::model {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::optional<TensorType> named(const std::string& name) {
  for (std::uint32_t id = 0; id < 64; ++id) {
    if (const auto t = type_of_ggml(id); t && name == type_name(*t)) return t;
  }
  return std::nullopt;
}

TEST(TensorTypes, EveryTypeReadsAsGgmlDoesBitForBit) {
  std::ifstream cases(std::string(ATTNLAB_TENSOR_CASES) + "/cases.txt");
  ASSERT_TRUE(cases) << "no cases in " << ATTNLAB_TENSOR_CASES;
  std::string name, set;
  std::int64_t count = 0;
  int seen = 0;
  std::vector<std::string> types_seen;
  while (cases >> name >> set >> count) {
    const auto type = named(name);
    ASSERT_TRUE(type) << name;
    const std::string base = std::string(ATTNLAB_TENSOR_CASES) + "/" + name + "." + set;
    const std::string raw = read_all(base + ".raw"), want = read_all(base + ".f32");
    ASSERT_EQ(raw.size(), type_bytes(*type, static_cast<std::uint64_t>(count))) << base;
    ASSERT_EQ(want.size(), static_cast<std::size_t>(count) * 4) << base;
    // At an odd address, as a tensor of a GGUF file may be.
    std::string shifted = " " + raw;
    std::vector<float> got(static_cast<std::size_t>(count));
    to_floats(*type, reinterpret_cast<const std::byte*>(shifted.data() + 1), count, got.data());
    int differ = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      std::uint32_t a, b;
      std::memcpy(&a, got.data() + i, 4);
      std::memcpy(&b, want.data() + 4 * i, 4);
      float expected;
      std::memcpy(&expected, &b, 4);
      if (a != b && differ++ < 3) ADD_FAILURE() << base << ": value " << i << " is " << got[static_cast<std::size_t>(i)] << ", ggml reads " << expected;
    }
    EXPECT_EQ(differ, 0) << base << ": " << differ << " of " << count << " values differ";
    ++seen;
    if (types_seen.empty() || types_seen.back() != name) types_seen.push_back(name);
  }
  EXPECT_EQ(types_seen.size(), 13u);
  EXPECT_EQ(seen, 26);
}

TEST(TensorTypes, TableAndNames) {
  EXPECT_EQ(type_info(TensorType::Q4_K).block, 256);
  EXPECT_EQ(type_info(TensorType::Q4_K).block_bytes, 144);
  EXPECT_EQ(type_info(TensorType::Q8_0).ggml_id, 8u);
  EXPECT_EQ(type_of_ggml(30), TensorType::BF16);
  EXPECT_FALSE(type_of_ggml(16));
  EXPECT_EQ(other_ggml_type_name(16), "IQ2_XXS");
  EXPECT_EQ(other_ggml_type_name(9999), "");
  EXPECT_EQ(type_bytes(TensorType::Q6_K, 512), 420u);
  EXPECT_EQ(type_list(), "F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K and Q6_K");
}

// A GGUF file may name a tensor with no elements; its buffers are then empty vectors, whose data()
// may be null (gguf_fuzz found it under UBSan: memcpy may not be given a null pointer, even for 0).
TEST(TensorTypes, AnEmptyTensorReadsAsNothingWhateverItsType) {
  for (const TensorType t : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q6_K})
    to_floats(t, nullptr, 0, nullptr);
}

}  // namespace
}  // namespace attnlab::model
