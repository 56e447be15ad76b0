// The tensor types a model's weights may be stored in (docs/MODELS.md, "Tensor types"): float32,
// float16 and bfloat16 (safetensors and GGUF), and the ten block-quantized types of GGUF files that
// llama.cpp's common files mix (Q8_0 … Q6_K). One table of their names, ggml ids and block layouts,
// and their conversion to float32, written from ggml's block layouts (its ggml-common.h) and the
// formulas of its reference dequantizers: every value is a float16 scale times small integers (less
// or more another such product), so the one rounding is the final float32 one and these values
// equal ggml's bit for bit (tests/unit/model/tensor_types_test.cpp against tests/model/gguf_quants.py).
#pragma once

#include "engine/attention/float_format.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnlab::model {

enum class TensorType : std::uint8_t { F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K };

struct TensorTypeInfo {
  TensorType type;
  const char* name;      // ggml's name: "F32", "Q4_K"
  std::uint32_t ggml_id; // its id in GGUF tensor infos
  int block;             // elements per block (1 for the float types)
  int block_bytes;       // bytes per block
};

const TensorTypeInfo& type_info(TensorType t);
inline const char* type_name(TensorType t) { return type_info(t).name; }
inline bool is_quantized(TensorType t) { return type_info(t).block > 1; }
// The type with ggml id `id`, or nullopt (a type outside the thirteen, or no type at all).
std::optional<TensorType> type_of_ggml(std::uint32_t id);
// ggml's name for a type id the thirteen leave out ("IQ2_XXS", "Q8_1"), or "" for an unknown id.
std::string_view other_ggml_type_name(std::uint32_t id);
// Every name the sentences list: "F32, F16, BF16, Q4_0, …, Q6_K".
std::string type_list();
// safetensors' three.
TensorType type_of(Precision p);

// Bytes of `count` elements of `t`, count a whole number of blocks.
inline std::uint64_t type_bytes(TensorType t, std::uint64_t count) {
  const TensorTypeInfo& i = type_info(t);
  return count / static_cast<std::uint64_t>(i.block) * static_cast<std::uint64_t>(i.block_bytes);
}

// `count` elements of type `t` at `src` (any alignment; count a whole number of blocks) as float32
// in `dst`. The quantized types and float16 run a loop compiled per instruction set (AVX-512, AVX2,
// the baseline; engine/platform/target_clones.hpp).
void to_floats(TensorType t, const std::byte* src, std::int64_t count, float* dst);

}  // namespace attnlab::model
