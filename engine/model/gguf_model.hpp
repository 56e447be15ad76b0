// A GGUF file as another source of the same ModelConfig and DecoderTensors a Hugging Face folder gives
// (docs/MODELS.md, "GGUF files"): general.architecture picks the family's row (families.hpp), whose
// GGUF keys become its config.json fields, read by the family's own reader; the tensors are found by
// llama.cpp's names (token_embd, blk.N.attn_q, …) into the decoder's blocks, quantized ones left as
// they are in the file.
#pragma once

#include "engine/model/families.hpp"
#include "engine/model/gguf_file.hpp"

#include <string>

namespace attnlab::model {

// The model's config from the file's metadata and tensor shapes: the family by general.architecture
// (llama, mistral, qwen2, qwen3, gpt2), the {arch}.* keys as config.json's fields, the vocabulary
// from token_embd's rows, biases, q/k norms and tying from the tensors there, rope scaling from
// {arch}.rope.scaling.* or llama3's rope_freqs.weight. Throws InputError naming the file and the key
// (with the config.json field the family's reader names).
ModelConfig gguf_model_config(const GgufFile& file);

// The decoder's tensors by llama.cpp's names, each with the shape the config needs; for an
// architecture whose converter interleaved q and k (llama, mistral) those products are marked to be
// put back in Hugging Face's order. Throws InputError: a tensor missing, of another shape, or one no
// block reads.
DecoderTensors bind_gguf_tensors(const ModelConfig& c, const WeightFiles& files);

// What a listing and `model --format json` call its tensor type: llama.cpp's file type
// (general.file_type: "Q4_K_M", "Q8_0", "F16") when the file names one of the types read here, else
// the type most of its values are stored in.
std::string gguf_tensor_type(const GgufFile& file);

}  // namespace attnlab::model
