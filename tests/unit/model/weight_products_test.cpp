// The products with weights as their files store them (engine/model/weight_products.hpp) against a
// plain loop in double over the same weights converted whole (tensor_types.hpp, itself checked bit
// for bit): every tensor type's path (float32 in place, converted blocks of rows), a few query rows
// (the dot products) and many (OpenBLAS's), output counts that split unevenly between threads, a
// bias, accumulation, and a float32 tensor that is not 4-byte aligned in its file.
#include "engine/model/weight_products.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace attnlab::model {
namespace {

// One tensor's bytes as a file, at `skew` bytes from the data's start.
class BytesFile final : public WeightFile {
public:
  BytesFile(TensorType type, std::int64_t rows, std::int64_t in, std::uint64_t skew, std::mt19937& rng) : path_("weights.bin") {
    info_.name = "w";
    info_.type = type;
    info_.shape = {rows, in};
    info_.begin = skew;
    info_.end = skew + type_bytes(type, static_cast<std::uint64_t>(rows * in));
    // Bytes below 64: every float16 scale and float32 value is finite and below 2.
    std::uniform_int_distribution<int> byte(0, 63);
    bytes_.resize(info_.end);
    for (char& c : bytes_) c = static_cast<char>(byte(rng));
    infos_.emplace(info_.name, info_);
  }
  const std::filesystem::path& path() const override { return path_; }
  std::uint64_t file_size() const override { return bytes_.size(); }
  std::uint64_t data_offset() const override { return 0; }
  const std::map<std::string, TensorInfo>& tensor_infos() const override { return infos_; }
  std::string_view bytes() const override { return bytes_; }
  TensorRef ref() const { return {this, &infos_.at("w")}; }

private:
  std::filesystem::path path_;
  std::string bytes_;
  TensorInfo info_;
  std::map<std::string, TensorInfo> infos_;
};

struct Case {
  TensorType type;
  std::int64_t n, in, out;
  bool bias, accumulate;
  std::uint64_t skew;
};

void check(const Case& c, std::mt19937& rng) {
  const BytesFile file(c.type, c.out, c.in, c.skew, rng);
  std::vector<float> W(static_cast<std::size_t>(c.out * c.in));
  to_floats(c.type, file.data(*file.ref().info), c.out * c.in, W.data());
  std::normal_distribution<float> normal;
  std::vector<float> X(static_cast<std::size_t>(c.n * c.in)), b(static_cast<std::size_t>(c.out));
  for (float& v : X) v = normal(rng);
  for (float& v : b) v = normal(rng);
  const std::int64_t ldy = c.out + 3;
  std::vector<float> Y(static_cast<std::size_t>(c.n * ldy));
  for (float& v : Y) v = normal(rng);
  const std::vector<float> before = Y;
  blocks::linear_rows(X.data(), c.n, c.in, file.ref(), c.bias ? b.data() : nullptr, c.out, Y.data(), ldy, c.accumulate);
  const std::string what = std::string(type_name(c.type)) + " n " + std::to_string(c.n) + " in " + std::to_string(c.in) + " out " +
                           std::to_string(c.out) + (c.bias ? " bias" : "") + (c.accumulate ? " accumulate" : "");
  for (std::int64_t i = 0; i < c.n; ++i) {
    for (std::int64_t r = 0; r < ldy; ++r) {
      const std::size_t at = static_cast<std::size_t>(i * ldy + r);
      if (r >= c.out) {
        ASSERT_EQ(Y[at], before[at]) << what << ": column " << r << " past the output was written";
        continue;
      }
      double want = (c.accumulate ? before[at] : 0.0) + (c.bias ? b[static_cast<std::size_t>(r)] : 0.0), scale = 1.0;
      for (std::int64_t k = 0; k < c.in; ++k) {
        const double p = static_cast<double>(X[static_cast<std::size_t>(i * c.in + k)]) * W[static_cast<std::size_t>(r * c.in + k)];
        want += p;
        scale += std::fabs(p);
      }
      // float32 sums of `in` products in any order: within in · 2^−24 of their absolute sum (× 4).
      ASSERT_NEAR(Y[at], want, 4.0 * static_cast<double>(c.in) * 0x1p-24 * scale) << what << ": row " << i << ", output " << r;
    }
  }
}

TEST(WeightProducts, EveryTypeAndShapeEqualsTheConvertedProduct) {
  std::mt19937 rng(72);
  const TensorType types[] = {TensorType::F32, TensorType::F16,  TensorType::BF16, TensorType::Q8_0, TensorType::Q4_0,
                              TensorType::Q5_1, TensorType::Q4_K, TensorType::Q6_K, TensorType::Q2_K};
  for (const TensorType t : types) {
    for (const std::int64_t n : {1, 3, 4, 5, 37}) {
      check({t, n, 256, 70, false, false, 0}, rng);
      check({t, n, 512, 33, true, false, 0}, rng);
      check({t, n, 256, 129, true, true, 0}, rng);
      check({t, n, 256, 17, false, true, 0}, rng);
    }
  }
}

TEST(WeightProducts, AFloat32TensorOffItsAlignmentIsConverted) {
  std::mt19937 rng(7);
  for (const std::int64_t n : {1, 9}) check({TensorType::F32, n, 96, 40, true, false, 2}, rng);
}

}  // namespace
}  // namespace attnlab::model
