// The tensor types' table and their conversion to float32 (tensor_types.hpp). The block layouts
// are ggml's (ggml-common.h), read here byte by byte (little-endian, any alignment). Each loop runs
// over whole blocks with the block's scales hoisted, so that its inner loops over 16 or 32 values
// vectorize in the AVX-512 and AVX2 variants; the blocks' bytes and the floats are __restrict, since
// bytes may alias anything and GCC would otherwise keep every value scalar.
#include "engine/model/tensor_types.hpp"

#include "engine/platform/target_clones.hpp"

#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace attnlab::model {

namespace {

using u8 = std::uint8_t;

constexpr TensorTypeInfo kTypes[] = {
    {TensorType::F32, "F32", 0, 1, 4},       {TensorType::F16, "F16", 1, 1, 2},       {TensorType::BF16, "BF16", 30, 1, 2},
    {TensorType::Q4_0, "Q4_0", 2, 32, 18},   {TensorType::Q4_1, "Q4_1", 3, 32, 20},   {TensorType::Q5_0, "Q5_0", 6, 32, 22},
    {TensorType::Q5_1, "Q5_1", 7, 32, 24},   {TensorType::Q8_0, "Q8_0", 8, 32, 34},   {TensorType::Q2_K, "Q2_K", 10, 256, 84},
    {TensorType::Q3_K, "Q3_K", 11, 256, 110}, {TensorType::Q4_K, "Q4_K", 12, 256, 144}, {TensorType::Q5_K, "Q5_K", 13, 256, 176},
    {TensorType::Q6_K, "Q6_K", 14, 256, 210},
};

// ggml's other type ids, named so that a refusal can say which type a tensor has.
constexpr std::pair<std::uint32_t, const char*> kOtherTypes[] = {
    {4, "Q4_2 (removed from ggml)"}, {5, "Q4_3 (removed from ggml)"}, {9, "Q8_1"}, {15, "Q8_K"}, {16, "IQ2_XXS"}, {17, "IQ2_XS"},
    {18, "IQ3_XXS"}, {19, "IQ1_S"}, {20, "IQ4_NL"}, {21, "IQ3_S"}, {22, "IQ2_S"}, {23, "IQ4_XS"}, {24, "I8"}, {25, "I16"},
    {26, "I32"}, {27, "I64"}, {28, "F64"}, {29, "IQ1_M"}, {31, "Q4_0_4_4 (removed from ggml)"}, {32, "Q4_0_4_8 (removed from ggml)"},
    {33, "Q4_0_8_8 (removed from ggml)"}, {34, "TQ1_0"}, {35, "TQ2_0"}, {36, "IQ4_NL_4_4 (removed from ggml)"},
    {37, "IQ4_NL_4_8 (removed from ggml)"}, {38, "IQ4_NL_8_8 (removed from ggml)"}, {39, "MXFP4"},
};

// A block's float16 scale as float32, by its bits (exact: every half is a float): a few integer
// operations where the conversion through ldexp cost more than the block's 32 values.
inline float half_at(const u8* p) {
  const std::uint32_t h = static_cast<std::uint32_t>(p[0] | (p[1] << 8));
  const std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = static_cast<float>(mant) * 0x1p-24f;  // zero or subnormal: mant · 2^−24
    return sign ? -f : f;
  }
  const std::uint32_t bits = sign | (exp == 31 ? 0x7f800000u | (mant << 13) : ((exp + 112) << 23) | (mant << 13));
  std::memcpy(&f, &bits, 4);
  return f;
}

// Q4_K and Q5_K: 12 bytes hold eight 6-bit scales and eight 6-bit mins (ggml's get_scale_min_k4).
void scale_min_k4(const u8* s, int* sc, int* mn) {
  for (int i = 0; i < 4; ++i) {
    sc[i] = s[i] & 63;
    mn[i] = s[i + 4] & 63;
    sc[i + 4] = (s[i + 8] & 0xF) | ((s[i] >> 6) << 4);
    mn[i + 4] = (s[i + 8] >> 4) | ((s[i + 4] >> 6) << 4);
  }
}

// Q3_K: 12 bytes hold sixteen 6-bit scales; scale g·4 + b takes its low four bits from byte
// (g % 2)·4 + b (low nibble for g < 2, high after) and its top two from bits 2g of byte 8 + b.
void scales_q3_k(const u8* s, int* out) {
  for (int g = 0; g < 4; ++g) {
    for (int b = 0; b < 4; ++b) out[g * 4 + b] = ((s[(g % 2) * 4 + b] >> (4 * (g / 2))) & 0xF) | (((s[8 + b] >> (2 * g)) & 3) << 4);
  }
}

ATTNLAB_TARGET_CLONES
void q8_0(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  for (std::int64_t i = 0; i < blocks; ++i, x += 34, y += 32) {
    const float d = half_at(x);
    const auto* q = reinterpret_cast<const std::int8_t*>(x + 2);
    for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(q[j]);
  }
}

// Q4_0 and Q4_1: value j is the low nibble of byte j, value j + 16 its high nibble; Q4_0's codes
// are centred by −8, Q4_1's carry an added minimum.
ATTNLAB_TARGET_CLONES
void q4_0(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  for (std::int64_t i = 0; i < blocks; ++i, x += 18, y += 32) {
    const float d = half_at(x);
    const u8* q = x + 2;
    for (int j = 0; j < 16; ++j) y[j] = d * static_cast<float>((q[j] & 0xF) - 8);
    for (int j = 0; j < 16; ++j) y[j + 16] = d * static_cast<float>((q[j] >> 4) - 8);
  }
}

ATTNLAB_TARGET_CLONES
void q4_1(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  for (std::int64_t i = 0; i < blocks; ++i, x += 20, y += 32) {
    const float d = half_at(x), m = half_at(x + 2);
    const u8* q = x + 4;
    for (int j = 0; j < 16; ++j) y[j] = d * static_cast<float>(q[j] & 0xF) + m;
    for (int j = 0; j < 16; ++j) y[j + 16] = d * static_cast<float>(q[j] >> 4) + m;
  }
}

// The 32 fifth bits of a Q5_0 or Q5_1 block, one byte each (16 or 0): value j's is bit j of the
// 32-bit qh, spread a byte of qh at a time through a table, so that the values' loops vectorize.
struct FifthBits {
  std::array<std::array<u8, 8>, 256> of_byte;
  FifthBits() {
    for (int b = 0; b < 256; ++b) {
      for (int k = 0; k < 8; ++k) of_byte[static_cast<std::size_t>(b)][static_cast<std::size_t>(k)] = static_cast<u8>(((b >> k) & 1) << 4);
    }
  }
  void spread(const u8* qh, u8* out) const {
    for (int k = 0; k < 4; ++k) std::memcpy(out + 8 * k, of_byte[qh[k]].data(), 8);
  }
};
const FifthBits kFifthBits;

// Q5_0 and Q5_1: the nibbles as Q4's, and value j's fifth bit is bit j of the 32-bit qh.
ATTNLAB_TARGET_CLONES
void q5_0(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  alignas(32) u8 high[32];
  for (std::int64_t i = 0; i < blocks; ++i, x += 22, y += 32) {
    const float d = half_at(x);
    kFifthBits.spread(x + 2, high);
    const u8* q = x + 6;
    for (int j = 0; j < 16; ++j) y[j] = d * static_cast<float>(((q[j] & 0xF) | high[j]) - 16);
    for (int j = 0; j < 16; ++j) y[j + 16] = d * static_cast<float>(((q[j] >> 4) | high[j + 16]) - 16);
  }
}

ATTNLAB_TARGET_CLONES
void q5_1(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  alignas(32) u8 high[32];
  for (std::int64_t i = 0; i < blocks; ++i, x += 24, y += 32) {
    const float d = half_at(x), m = half_at(x + 2);
    kFifthBits.spread(x + 4, high);
    const u8* q = x + 8;
    for (int j = 0; j < 16; ++j) y[j] = d * static_cast<float>((q[j] & 0xF) | high[j]) + m;
    for (int j = 0; j < 16; ++j) y[j + 16] = d * static_cast<float>((q[j] >> 4) | high[j + 16]) + m;
  }
}

// Q2_K: value 128n + 32j + 16h + l is bits 2j of qs byte 32n + 16h + l, with scale byte 8n + 2j + h
// (its low nibble scales by d, its high nibble is the minimum, scaled by dmin).
ATTNLAB_TARGET_CLONES
void q2_k(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  for (std::int64_t i = 0; i < blocks; ++i, x += 84, y += 256) {
    const u8 *sc = x, *qs = x + 16;
    const float d = half_at(x + 80), dmin = half_at(x + 82);
    for (int n = 0; n < 2; ++n) {
      for (int j = 0; j < 4; ++j) {
        for (int h = 0; h < 2; ++h) {
          const int s = sc[8 * n + 2 * j + h];
          const float dl = d * static_cast<float>(s & 0xF), ml = dmin * static_cast<float>(s >> 4);
          const u8* q = qs + 32 * n + 16 * h;
          float* out = y + 128 * n + 32 * j + 16 * h;
          for (int l = 0; l < 16; ++l) out[l] = dl * static_cast<float>((q[l] >> (2 * j)) & 3) - ml;
        }
      }
    }
  }
}

// Q3_K: the two low bits as Q2_K's, the third from bit 4n + j of hmask byte 16h + l (set: the code
// as it is; clear: 4 less), times d·(scale − 32).
ATTNLAB_TARGET_CLONES
void q3_k(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  int scales[16];
  for (std::int64_t i = 0; i < blocks; ++i, x += 110, y += 256) {
    const u8 *hm = x, *qs = x + 32;
    const float d = half_at(x + 108);
    scales_q3_k(x + 96, scales);
    for (int n = 0; n < 2; ++n) {
      for (int j = 0; j < 4; ++j) {
        for (int h = 0; h < 2; ++h) {
          const float dl = d * static_cast<float>(scales[8 * n + 2 * j + h] - 32);
          const u8 *q = qs + 32 * n + 16 * h, *m = hm + 16 * h;
          float* out = y + 128 * n + 32 * j + 16 * h;
          const int bit = 4 * n + j;
          for (int l = 0; l < 16; ++l) {
            out[l] = dl * static_cast<float>(static_cast<int>((q[l] >> (2 * j)) & 3) - (((m[l] >> bit) & 1) ? 0 : 4));
          }
        }
      }
    }
  }
}

// Q4_K and Q5_K: value 64j + 32h + l is nibble h of qs byte 32j + l (Q5_K: and bit 2j + h of qh byte
// l on top), times d·scale[2j + h], less dmin·min[2j + h].
ATTNLAB_TARGET_CLONES
void q4_k(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  int sc[8], mn[8];
  for (std::int64_t i = 0; i < blocks; ++i, x += 144, y += 256) {
    const float d = half_at(x), dmin = half_at(x + 2);
    scale_min_k4(x + 4, sc, mn);
    const u8* qs = x + 16;
    for (int j = 0; j < 4; ++j) {
      const float d1 = d * static_cast<float>(sc[2 * j]), m1 = dmin * static_cast<float>(mn[2 * j]);
      const float d2 = d * static_cast<float>(sc[2 * j + 1]), m2 = dmin * static_cast<float>(mn[2 * j + 1]);
      const u8* q = qs + 32 * j;
      float* out = y + 64 * j;
      for (int l = 0; l < 32; ++l) out[l] = d1 * static_cast<float>(q[l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) out[l + 32] = d2 * static_cast<float>(q[l] >> 4) - m2;
    }
  }
}

ATTNLAB_TARGET_CLONES
void q5_k(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  int sc[8], mn[8];
  for (std::int64_t i = 0; i < blocks; ++i, x += 176, y += 256) {
    const float d = half_at(x), dmin = half_at(x + 2);
    scale_min_k4(x + 4, sc, mn);
    const u8 *qh = x + 16, *qs = x + 48;
    for (int j = 0; j < 4; ++j) {
      const float d1 = d * static_cast<float>(sc[2 * j]), m1 = dmin * static_cast<float>(mn[2 * j]);
      const float d2 = d * static_cast<float>(sc[2 * j + 1]), m2 = dmin * static_cast<float>(mn[2 * j + 1]);
      const u8* q = qs + 32 * j;
      float* out = y + 64 * j;
      for (int l = 0; l < 32; ++l) out[l] = d1 * static_cast<float>((q[l] & 0xF) | (((qh[l] >> (2 * j)) & 1) << 4)) - m1;
      for (int l = 0; l < 32; ++l) out[l + 32] = d2 * static_cast<float>((q[l] >> 4) | (((qh[l] >> (2 * j + 1)) & 1) << 4)) - m2;
    }
  }
}

// Q6_K: value 128n + 32p + l takes its low four bits from nibble p / 2 of ql byte 64n + 32(p % 2) + l
// and its top two from bits 2p of qh byte 32n + l; the code less 32 times d·scale[8n + 2p + l / 16].
ATTNLAB_TARGET_CLONES
void q6_k(const u8* __restrict x, std::int64_t blocks, float* __restrict y) {
  for (std::int64_t i = 0; i < blocks; ++i, x += 210, y += 256) {
    const u8 *ql = x, *qh = x + 128;
    const auto* sc = reinterpret_cast<const std::int8_t*>(x + 192);
    const float d = half_at(x + 208);
    for (int n = 0; n < 2; ++n) {
      for (int p = 0; p < 4; ++p) {
        const u8 *lo = ql + 64 * n + 32 * (p % 2), *hi = qh + 32 * n;
        const int shift = 4 * (p / 2);
        for (int half = 0; half < 2; ++half) {
          const float dl = d * static_cast<float>(sc[8 * n + 2 * p + half]);
          float* out = y + 128 * n + 32 * p + 16 * half;
          for (int l = 16 * half; l < 16 * half + 16; ++l) {
            out[l - 16 * half] = dl * static_cast<float>(static_cast<int>(((lo[l] >> shift) & 0xF) | (((hi[l] >> (2 * p)) & 3) << 4)) - 32);
          }
        }
      }
    }
  }
}

// Every half's float, computed once (256 KiB): a lookup per element converts float16 weights
// several times faster than the bit manipulation.
const std::array<float, 65536>& half_table() {
  static const auto table = [] {
    auto t = std::make_unique<std::array<float, 65536>>();
    for (std::uint32_t h = 0; h < 65536; ++h) (*t)[h] = half_to_float(static_cast<std::uint16_t>(h));
    return t;
  }();
  return *table;
}

ATTNLAB_TARGET_CLONES
void f16(const u8* __restrict x, std::int64_t count, float* __restrict y, const float* __restrict table) {
  for (std::int64_t i = 0; i < count; ++i) y[i] = table[static_cast<std::uint16_t>(x[2 * i] | (x[2 * i + 1] << 8))];
}

ATTNLAB_TARGET_CLONES
void bf16(const u8* __restrict x, std::int64_t count, float* __restrict y) {
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint32_t bits = static_cast<std::uint32_t>(x[2 * i] | (x[2 * i + 1] << 8)) << 16;
    std::memcpy(y + i, &bits, 4);
  }
}

}  // namespace

const TensorTypeInfo& type_info(TensorType t) {
  for (const TensorTypeInfo& i : kTypes) {
    if (i.type == t) return i;
  }
  throw std::logic_error("type_info: a TensorType without a row");
}

std::optional<TensorType> type_of_ggml(std::uint32_t id) {
  for (const TensorTypeInfo& i : kTypes) {
    if (i.ggml_id == id) return i.type;
  }
  return std::nullopt;
}

std::string_view other_ggml_type_name(std::uint32_t id) {
  for (const auto& [other, name] : kOtherTypes) {
    if (other == id) return name;
  }
  return "";
}

std::string type_list() {
  std::string s;
  for (const TensorTypeInfo& i : kTypes) s += (s.empty() ? "" : i.type == TensorType::Q6_K ? " and " : ", ") + std::string(i.name);
  return s;
}

TensorType type_of(Precision p) {
  switch (p) {
    case Precision::Float32: return TensorType::F32;
    case Precision::Float16: return TensorType::F16;
    case Precision::BFloat16: return TensorType::BF16;
  }
  throw std::logic_error("type_of: a Precision without a tensor type");
}

void to_floats(TensorType t, const std::byte* src, std::int64_t count, float* dst) {
  if (count <= 0) return;  // an empty tensor's buffers may be null, which memcpy may not be given
  const auto* x = reinterpret_cast<const u8*>(src);
  const std::int64_t blocks = count / type_info(t).block;
  switch (t) {
    case TensorType::F32: std::memcpy(dst, src, static_cast<std::size_t>(count) * 4); return;
    case TensorType::F16: f16(x, count, dst, half_table().data()); return;
    case TensorType::BF16: bf16(x, count, dst); return;
    case TensorType::Q4_0: q4_0(x, blocks, dst); return;
    case TensorType::Q4_1: q4_1(x, blocks, dst); return;
    case TensorType::Q5_0: q5_0(x, blocks, dst); return;
    case TensorType::Q5_1: q5_1(x, blocks, dst); return;
    case TensorType::Q8_0: q8_0(x, blocks, dst); return;
    case TensorType::Q2_K: q2_k(x, blocks, dst); return;
    case TensorType::Q3_K: q3_k(x, blocks, dst); return;
    case TensorType::Q4_K: q4_k(x, blocks, dst); return;
    case TensorType::Q5_K: q5_k(x, blocks, dst); return;
    case TensorType::Q6_K: q6_k(x, blocks, dst); return;
  }
}

}  // namespace attnlab::model
