// The model families' engine side (docs/MODELS.md, "Model families"): config.json of each family
// (defaults, what tells them apart, the sentences), the shard index, repo ids, and the KV cache: a
// forward continued from cached K/V heads gives what one forward over the whole text gives.
#include "engine/model/decoder_blocks.hpp"
#include "engine/model/decoder_model.hpp"
#include "engine/model/hf_cache.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/weight_files.hpp"
#include "support/test_support.hpp"

#include "support/random_decoder.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

namespace attnlab::model {
namespace {

namespace fs = std::filesystem;

using attnlab::test::error_of;

TEST(ModelConfig, LlamaDefaultsAndFields) {
  const ModelConfig c = parse_model_config(llama_json(), "config.json");
  EXPECT_EQ(c.family, Family::Llama);
  EXPECT_EQ(c.n_kv_head, 4);  // defaults to the head count
  EXPECT_EQ(c.d_head, 8);     // hidden_size / heads
  EXPECT_EQ(c.rope_theta, 10000);
  EXPECT_FALSE(c.tied);
  EXPECT_FALSE(c.qkv_bias);
  EXPECT_EQ(c.sliding_window, 0);
  EXPECT_EQ(c.positions, PositionKind::Rope);
  const ModelConfig g = parse_model_config(llama_json(R"(, "num_key_value_heads": 2, "head_dim": 12, "rope_theta": 500000,
      "tie_word_embeddings": true, "attention_bias": true, "rope_scaling": {"rope_type": "linear", "factor": 2})"),
                                           "c");
  EXPECT_EQ(g.n_kv_head, 2);
  EXPECT_EQ(g.d_head, 12);
  EXPECT_EQ(g.q_width(), 48);
  EXPECT_EQ(g.kv_group(1), 0);
  EXPECT_EQ(g.kv_group(2), 1);
  EXPECT_TRUE(g.tied && g.qkv_bias && g.o_bias);
  EXPECT_EQ(g.rope_scaling.type, RopeScalingType::Linear);
}

TEST(ModelConfig, WhatTellsTheFamiliesApart) {
  const auto of = [](const std::string& type, const std::string& extra = "") {
    std::string j = llama_json(extra);
    j.replace(j.find("llama"), 5, type);
    return parse_model_config(j, "c");
  };
  EXPECT_TRUE(of("qwen2").qkv_bias);
  EXPECT_FALSE(of("qwen2").o_bias);
  EXPECT_FALSE(of("qwen2", R"(, "attention_bias": true)").o_bias);  // qwen2 has no such field
  EXPECT_TRUE(of("qwen3").qk_norm);
  EXPECT_EQ(of("mistral", R"(, "sliding_window": 7)").window(0), 7);
  EXPECT_EQ(of("mistral", R"(, "sliding_window": null)").window(0), 0);
  EXPECT_EQ(of("llama", R"(, "sliding_window": 7)").window(0), 0);
  EXPECT_EQ(of("qwen2", R"(, "sliding_window": 7)").window(1), 0);  // only with use_sliding_window
  const ModelConfig q = of("qwen2", R"(, "sliding_window": 7, "use_sliding_window": true, "max_window_layers": 1)");
  EXPECT_EQ(q.window(0), 0);
  EXPECT_EQ(q.window(1), 7);
  EXPECT_EQ(of("qwen2", R"(, "sliding_window": 7, "use_sliding_window": true)").window(1), 0);  // default max_window_layers 28
  const ModelConfig gpt2 = parse_model_config(R"({"n_layer": 1, "n_head": 2, "n_embd": 8, "n_positions": 4, "vocab_size": 9})", "c");
  EXPECT_EQ(gpt2.family, Family::Gpt2);  // no model_type: GPT-2
  EXPECT_TRUE(gpt2.fused_qkv && gpt2.tied && gpt2.positions == PositionKind::Learned);
}

TEST(ModelConfig, EveryBadFieldIsOneSentence) {
  const auto err = [](const std::string& j) { return error_of([&] { parse_model_config(j, "m/config.json"); }); };
  EXPECT_NE(err(llama_json(R"(, "num_key_value_heads": 3)")).find("\"num_attention_heads\" 4 is not a multiple of \"num_key_value_heads\" 3"),
            std::string::npos);
  EXPECT_NE(err(R"({"model_type": "llama", "hidden_size": 30, "num_hidden_layers": 2, "num_attention_heads": 4,
                    "intermediate_size": 48, "max_position_embeddings": 40, "vocab_size": 50})")
                .find("\"hidden_size\" 30 is not \"num_attention_heads\" 4 times a whole head width"),
            std::string::npos);
  EXPECT_NE(err(llama_json(R"(, "head_dim": 9)")).find("head width 9 is odd"), std::string::npos);
  EXPECT_NE(err(R"({"model_type": "phi3"})").find("\"model_type\" is \"phi3\"; Attention Lab opens the families gpt2, llama, mistral, qwen2 and qwen3"),
            std::string::npos);
  EXPECT_NE(err(R"({"model_type": 3})").find("\"model_type\" must be a string"), std::string::npos);
  EXPECT_NE(err(llama_json(R"(, "rope_scaling": {"rope_type": "dynamic", "factor": 2})")).find("rope_type \"dynamic\""), std::string::npos);
  EXPECT_NE(err(llama_json(R"(, "rope_theta": 0)")).find("\"rope_theta\" must be a positive number"), std::string::npos);
  EXPECT_NE(err(llama_json(R"(, "hidden_act": "gelu")")).find("\"hidden_act\" is \"gelu\""), std::string::npos);
  EXPECT_NE(err(R"({"model_type": "llama", "hidden_size": 32})").find("\"num_hidden_layers\" is missing"), std::string::npos);
  EXPECT_NE(err(llama_json(R"(, "vocab_size": 1e9)")).find("\"vocab_size\""), std::string::npos);
  for (const std::string& e : {err(llama_json(R"(, "head_dim": 9)")), err(R"({"model_type": "x"})")}) {
    EXPECT_EQ(e.rfind("m/config.json: ", 0), 0u) << e;
  }
}

TEST(ShardIndex, ParsesTheWeightMapAndRefusesWithASentence) {
  const auto map = parse_shard_index(R"({"metadata": {"total_size": 12}, "weight_map": {"a": "m-1.safetensors", "b": "m-2.safetensors"}})", "i");
  EXPECT_EQ(map.at("b"), "m-2.safetensors");
  const auto err = [](const char* j) { return error_of([&] { parse_shard_index(j, "idx.json"); }); };
  EXPECT_NE(err(R"({"weight_map": {"a": "x.safetensors", "a": "y.safetensors"}})").find("names tensor 'a' twice"), std::string::npos);
  EXPECT_NE(err(R"({"weight_map": {"a": "../x.safetensors"}})").find("not the name of a .safetensors file beside the index"), std::string::npos);
  EXPECT_NE(err(R"({"weight_map": {"a": "sub/x.safetensors"}})").find("beside the index"), std::string::npos);
  EXPECT_NE(err(R"({"weight_map": {"a": "x.bin"}})").find("beside the index"), std::string::npos);
  EXPECT_NE(err(R"({"weight_map": {"a": 3}})").find("beside the index"), std::string::npos);
  EXPECT_NE(err(R"({"weight_map": {}})").find("names no tensors"), std::string::npos);
  EXPECT_NE(err(R"({"metadata": {}})").find("needs a \"weight_map\" object"), std::string::npos);
  EXPECT_NE(err("[").find("not JSON"), std::string::npos);
  // The same key in another object is no duplicate.
  EXPECT_EQ(err(R"({"metadata": {"a": 1}, "weight_map": {"a": "x.safetensors"}})"), "");
}

TEST(HfCache, RepoIds) {
  for (const char* ok : {"gpt2", "HuggingFaceTB/SmolLM2-135M", "Qwen/Qwen2.5-0.5B", "a_b/c.d-e"}) EXPECT_TRUE(is_repo_id(ok)) << ok;
  for (const char* no : {"", "/abs", "./x", "a/b/c", "../x", "x/..", ".hidden", "a b", "org/", "/name", "a..b"}) {
    EXPECT_FALSE(is_repo_id(no)) << no;
  }
  EXPECT_EQ(hf_repo_folder("/c", "org/name"), fs::path("/c/models--org--name"));
}

// Two float32 paths over the same sums in other orders (a product over 12 keys or over 5): each
// weight moves by a few roundings of logits that are below 10 here, far below this.
constexpr float kSameSums = 1e-5f;

void expect_continues(const LanguageModel& m, const std::vector<int>& ids, std::size_t split) {
  ForwardOptions opt;
  opt.top_k = 5;
  const ForwardTrace whole = m.forward(ids, opt);
  KvCache cache;
  const ForwardTrace first = m.forward({ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(split)}, opt, &cache);
  EXPECT_EQ(cache.length, static_cast<std::int64_t>(split));
  // One token at a time from the split on, as generation will run.
  for (std::size_t t = split; t < ids.size(); ++t) {
    const ForwardTrace step = m.forward({ids[t]}, opt, &cache);
    EXPECT_EQ(step.start, static_cast<std::int64_t>(t));
    for (std::size_t l = 0; l < whole.heads.size(); ++l) {
      for (std::size_t h = 0; h < whole.heads[l].size(); ++h) {
        const Matrix w = step.heads[l][h].weights.dense();
        ASSERT_EQ(w.rows(), 1);
        ASSERT_EQ(w.cols(), static_cast<Eigen::Index>(t + 1));
        const Matrix all = whole.heads[l][h].weights.dense();
        const auto row = all.row(static_cast<Eigen::Index>(t)).head(static_cast<Eigen::Index>(t + 1));
        EXPECT_LE((w.row(0) - row).cwiseAbs().maxCoeff(), kSameSums) << "L" << l << "H" << h << " at " << t;
      }
    }
  }
  EXPECT_EQ(cache.length, static_cast<std::int64_t>(ids.size()));
  // The cache holds K/V heads, not a copy per query head.
  for (const auto& k : cache.k) EXPECT_EQ(k.size(), ids.size() * static_cast<std::size_t>(m.config().kv_width()));
  const ForwardTrace last = [&] {
    KvCache c2;
    m.forward({ids.begin(), ids.end() - 1}, opt, &c2);
    return m.forward({ids.back()}, opt, &c2);
  }();
  ASSERT_EQ(last.next_tokens.size(), whole.next_tokens.size());
  for (std::size_t i = 0; i < last.next_tokens.size(); ++i) {
    EXPECT_EQ(last.next_tokens[i].id, whole.next_tokens[i].id);
    EXPECT_NEAR(last.next_tokens[i].prob, whole.next_tokens[i].prob, kSameSums);
  }
}

TEST(KvCache, ContinuingFromTheCacheGivesTheWholeForward) {
  const std::vector<int> ids = {3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 9, 3};
  const RandomModel llama("llama", R"(, "rope_scaling": {"rope_type": "linear", "factor": 2})", 1);
  expect_continues(*DecoderModel::open(llama.dir), ids, 7);
  const RandomModel mistral("mistral", R"(, "sliding_window": 4)", 2);
  expect_continues(*DecoderModel::open(mistral.dir), ids, 3);
  const RandomModel qwen3("qwen3", R"(, "head_dim": 12)", 3);
  expect_continues(*DecoderModel::open(qwen3.dir), ids, 1);
  // GPT-2's learned positions: the built-in toy model, when this build has it.
  if (!builtin_models().empty()) expect_continues(*open_model(builtin_models().front().name), {1, 2, 3, 1, 2, 3, 4}, 4);
}

TEST(KvCache, ACancelledForwardLeavesTheCacheAsItWas) {
  const RandomModel llama("llama", "", 4);
  const auto m = DecoderModel::open(llama.dir);
  KvCache cache;
  m->forward({1, 2, 3}, {}, &cache);
  const std::vector<float> k0 = cache.k[0];
  ForwardOptions stop;
  stop.progress = [](int done, int) { return done < 1; };
  EXPECT_TRUE(m->forward({4, 5}, stop, &cache).cancelled);
  EXPECT_EQ(cache.length, 3);
  EXPECT_EQ(cache.k[0], k0);
  EXPECT_EQ(cache.v[1].size(), 3u * static_cast<std::size_t>(m->config().kv_width()));
  EXPECT_NE(error_of([&] { m->forward(std::vector<int>(38, 1), {}, &cache); }).find("after 3 already run, more than this model's 40 positions"),
            std::string::npos);
}

}  // namespace
}  // namespace attnlab::model

namespace attnlab::model {
namespace {

// The blocked attention (decoder_blocks.hpp) against a plain loop in double: blocks of query rows
// crossing block edges, after cached positions, grouped K/V heads and a window; every row's kept
// weights sum to 1 over exactly its visible keys, and the pairs counted are each block's keys.
TEST(Attention, BlocksOfRowsGiveWhatAPlainLoopGives) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  struct Case {
    std::int64_t n, start;
    int heads, kv_heads, d, window;
  };
  // d = 16, 32 and 64 with 16 rows or more take the CPU's own tile products where it has them
  // (AVX-512), the rest OpenBLAS; a window that starts off a strip of 32 keys included.
  for (const Case& c : {Case{150, 0, 4, 2, 8, 0}, Case{70, 30, 2, 1, 16, 0}, Case{130, 5, 2, 2, 8, 40}, Case{1, 200, 3, 1, 8, 0},
                        Case{100, 20, 4, 2, 64, 50}, Case{16, 0, 2, 2, 32, 0}, Case{15, 40, 2, 1, 64, 0}}) {
    SCOPED_TRACE("n " + std::to_string(c.n) + " start " + std::to_string(c.start) + " window " + std::to_string(c.window));
    const std::int64_t m = c.start + c.n, qw = c.heads * c.d, kvw = c.kv_heads * c.d;
    std::vector<float> q(static_cast<std::size_t>(c.n * qw)), k(static_cast<std::size_t>(m * kvw)), v(k.size());
    for (auto* x : {&q, &k, &v}) {
      for (float& f : *x) f = normal(rng);
    }
    std::vector<CausalWeights> weights(static_cast<std::size_t>(c.heads), CausalWeights(c.n, c.start));
    std::vector<CausalWeights*> kept;
    for (auto& w : weights) {
      for (std::int64_t i = 0; i < c.n; ++i) std::fill_n(w.row(i), w.row_length(i), -7.0f);  // every stored cell written over
      kept.push_back(&w);
    }
    std::vector<float> out(static_cast<std::size_t>(c.n * qw)), bare(out.size());
    const blocks::AttentionShape shape{c.n, c.start, c.heads, c.kv_heads, c.d, c.window};
    blocks::attention(shape, q.data(), qw, k.data(), kvw, v.data(), kvw, kept.data(), out.data(), qw);
    blocks::attention(shape, q.data(), qw, k.data(), kvw, v.data(), kvw, nullptr, bare.data(), qw);
    double largest = 0;
    for (int h = 0; h < c.heads; ++h) {
      const int g = h / (c.heads / c.kv_heads);
      for (std::int64_t i = 0; i < c.n; ++i) {
        const std::int64_t hi = c.start + i, lo = c.window > 0 ? std::max<std::int64_t>(0, hi - c.window + 1) : 0;
        std::vector<double> a(static_cast<std::size_t>(m), 0.0);
        double mx = -INFINITY, z = 0;
        for (std::int64_t j = lo; j <= hi; ++j) {
          double s = 0;
          for (int t = 0; t < c.d; ++t) s += static_cast<double>(q[i * qw + h * c.d + t]) * k[j * kvw + g * c.d + t];
          a[j] = s / std::sqrt(static_cast<double>(c.d));
          mx = std::max(mx, a[j]);
        }
        for (std::int64_t j = lo; j <= hi; ++j) z += a[j] = std::exp(a[j] - mx);
        for (std::int64_t j = 0; j < m; ++j) {
          const double want = j >= lo && j <= hi ? a[j] / z : 0.0;
          largest = std::max(largest, std::abs(weights[static_cast<std::size_t>(h)](i, j) - want));
        }
        for (int t = 0; t < c.d; ++t) {
          double o = 0;
          for (std::int64_t j = lo; j <= hi; ++j) o += a[j] / z * v[j * kvw + g * c.d + t];
          EXPECT_NEAR(out[i * qw + h * c.d + t], o, 1e-4) << "head " << h << " row " << i;
          EXPECT_EQ(out[i * qw + h * c.d + t], bare[i * qw + h * c.d + t]) << "kept or not, the same output";
        }
      }
    }
    EXPECT_LT(largest, 1e-5) << "weights, 0 outside the visible keys";
    // Each block of rows runs over the keys from its first row's window start to its last row.
    double pairs = 0;
    for (std::int64_t r0 = 0; r0 < c.n; r0 += blocks::kQueryBlock) {
      const std::int64_t r1 = std::min(c.n, r0 + blocks::kQueryBlock);
      const std::int64_t lo = c.window > 0 ? std::max<std::int64_t>(0, c.start + r0 - c.window + 1) : 0;
      pairs += static_cast<double>(r1 - r0) * static_cast<double>(c.start + r1 - lo);
    }
    EXPECT_EQ(blocks::attention_pairs(shape), pairs);
    EXPECT_LE(blocks::attention_pairs(shape), static_cast<double>(c.n * m));
  }
}

}  // namespace
}  // namespace attnlab::model
