// A small random decoder of any llama-like family, written into a fresh folder with the engine's own
// F32 writer, for the unit tests of the forward, the KV cache and generation.
#pragma once

#include "engine/model/model_config.hpp"
#include "engine/model/safetensors.hpp"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::model {

// A llama config of 2 layers × 4 heads, d_model 32, 40 positions and 50 tokens, with `extra` fields.
inline std::string llama_json(const std::string& extra = "") {
  return R"({"model_type": "llama", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
             "intermediate_size": 48, "max_position_embeddings": 40, "vocab_size": 50)" +
         extra + "}";
}

// A random model of `family` written with the engine's own F32 writer into a fresh folder.
struct RandomModel {
  RandomModel(const RandomModel&) = delete;
  RandomModel& operator=(const RandomModel&) = delete;
  std::filesystem::path dir;
  RandomModel(const std::string& family, const std::string& extra, std::uint32_t seed) {
    dir = std::filesystem::temp_directory_path() / ("attnlab_decoder_test_" + family + "_" + std::to_string(::getpid()) + "_" + std::to_string(seed));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::string config = llama_json(R"(, "num_key_value_heads": 2, "tie_word_embeddings": true)" + extra);
    config.replace(config.find("llama"), 5, family);
    std::ofstream(dir / "config.json") << config;
    const ModelConfig c = parse_model_config(config, "config.json");
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes = {{"model.embed_tokens.weight", {c.vocab_size, c.d_model}},
                                                                             {"model.norm.weight", {c.d_model}}};
    for (int l = 0; l < c.n_layer; ++l) {
      const std::string p = "model.layers." + std::to_string(l) + ".";
      for (const char* n : {"input_layernorm.weight", "post_attention_layernorm.weight"}) shapes.push_back({p + n, {c.d_model}});
      shapes.push_back({p + "self_attn.q_proj.weight", {c.q_width(), c.d_model}});
      shapes.push_back({p + "self_attn.k_proj.weight", {c.kv_width(), c.d_model}});
      shapes.push_back({p + "self_attn.v_proj.weight", {c.kv_width(), c.d_model}});
      shapes.push_back({p + "self_attn.o_proj.weight", {c.d_model, c.q_width()}});
      if (c.qk_norm) {
        shapes.push_back({p + "self_attn.q_norm.weight", {c.d_head}});
        shapes.push_back({p + "self_attn.k_norm.weight", {c.d_head}});
      }
      shapes.push_back({p + "mlp.gate_proj.weight", {c.d_ff, c.d_model}});
      shapes.push_back({p + "mlp.up_proj.weight", {c.d_ff, c.d_model}});
      shapes.push_back({p + "mlp.down_proj.weight", {c.d_model, c.d_ff}});
    }
    std::vector<std::vector<float>> data;
    std::vector<F32Tensor> tensors;
    for (const auto& [name, shape] : shapes) {
      std::int64_t count = 1;
      for (auto s : shape) count *= s;
      auto& v = data.emplace_back(static_cast<std::size_t>(count));
      const bool norm = shape.size() == 1;
      for (float& x : v) x = norm ? 1.0f + 0.1f * normal(gen) : 0.3f * normal(gen);
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) tensors.push_back({shapes[i].first, shapes[i].second, data[i].data()});
    std::ofstream(dir / "model.safetensors", std::ios::binary) << safetensors_f32_bytes(tensors);
  }
  ~RandomModel() { std::filesystem::remove_all(dir); }
};

}  // namespace attnlab::model
