// Generation (docs/MODELS.md, "Generation"): a token sequence extended one token at a time over a
// KV cache, so that each step runs only the new position (its q, k, v, its attention over the
// cached K/V heads, its MLP) instead of the whole text again; the text edited at its end runs again
// only from the first changed token. Every head's attention rows are kept for the Model window and
// `attnlab model --generate`.
#pragma once

#include "engine/model/language_model.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/sampling.hpp"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

// What a cached sequence keeps of each position besides its K and V.
struct SequenceOptions {
  bool keep_weights = true;           // every head's attention row (the grid, the JSON's "attention")
  bool keep_all_qkv = false;          // every head's q, k, v rows …
  std::int64_t qkv_max_positions = 0; // … while the sequence is no longer than this (0: always); once it
                                      // grows past, they are dropped, and kept again only by a new sequence
  int qkv_layer = -1, qkv_head = -1;  // or one head's (−1: none)
};

// Called after each layer of a run with (layers done, layers in all); false cancels.
using LayerProgress = std::function<bool(int, int)>;

// A token sequence and what its forward passes kept, grown and cut at its end without running its
// prefix again: the KV cache, each head's attention rows (row i over keys 0 … i, stored one after
// the other), the kept q, k, v rows, and the logits after its last position.
class CachedSequence {
public:
  explicit CachedSequence(const LanguageModel& model, SequenceOptions options = {});

  // Makes the sequence `ids`: the positions before the first token that differs from the current
  // ones stay cached and only the rest run, at least the last position (whose logits a draw needs).
  // Checked as forward() checks ids (`what` names them in the sentence). A cancelled run leaves the
  // unchanged prefix, without logits. Returns the positions run (0: nothing changed), −1 when cancelled.
  std::int64_t assign(const std::vector<int>& ids, std::string_view what = "the tokens", const LayerProgress& progress = {});
  // The positions of `ids` that assign(ids) would keep from the cache without running them again
  // (ids.size() when nothing changed).
  std::int64_t reused(const std::vector<int>& ids) const;
  // Appends `id` and runs its position only. Returns false, with nothing changed, when cancelled.
  bool push(int id, const LayerProgress& progress = {});

  const std::vector<int>& ids() const { return ids_; }
  std::int64_t size() const { return static_cast<std::int64_t>(ids_.size()); }
  // The logits after the last position (vocab_size); empty after a cancelled assign().
  const std::vector<float>& logits() const { return logits_; }
  const KvCache& cache() const { return cache_; }
  const LanguageModel& model() const { return *model_; }
  const SequenceOptions& options() const { return options_; }

  // The sequence as one forward over it would give it: every kept head's n × n weights (rows
  // 0 … n − 1 from position 0), the kept q, k, v (n × d_head), the logits and the top_k next tokens.
  ForwardTrace trace(int top_k = 10) const;

private:
  // Runs `ids` after the cached positions and keeps what the run kept. False when cancelled.
  bool run(const std::vector<int>& ids, const LayerProgress& progress);
  void cut(std::int64_t keep);  // forgets the positions from `keep` on

  const LanguageModel* model_;
  SequenceOptions options_;
  KvCache cache_;
  std::vector<int> ids_;
  std::vector<float> logits_;
  std::vector<std::vector<CausalWeights>> rows_;  // [layer][head]: rows 0 … n − 1, row i's i + 1 weights
  struct QkvRows {
    std::vector<float> q, k, v;  // n × d_head each
  };
  std::vector<std::vector<QkvRows>> qkv_;  // [layer][head], filled for the heads whose q, k, v are kept
  bool all_qkv_dropped_ = false;           // the sequence grew past qkv_max_positions
};

struct GenerateOptions {
  int count = 0;                   // tokens to write
  SamplingOptions sampling;
  int candidates = 10;             // the most probable tokens listed with each draw
  LayerProgress progress;          // within each token's run: Stop at any moment
};

// The sentence for `count` more tokens that do not fit after `prompt` positions, or for a count
// below 1 (`attnlab model --generate N`, the Model window's Generate).
void check_generate(const LanguageModel& model, std::int64_t prompt, int count);

// Writes opt.count tokens after `seq`, whose logits must be there: each drawn (with `sampler`)
// from the logits after the last position, then its position run over the cache. `written` is
// called after each token has run; false stops there. A cancelled run (opt.progress) stops before
// the token it was running. Returns the tokens written.
std::vector<DrawnToken> generate(CachedSequence& seq, Sampler& sampler, const GenerateOptions& opt,
                                 const std::function<bool(const DrawnToken&)>& written = {});

// `text` with tokens `ids` written after it, as a text box holds it: a toy model's symbols separated
// by spaces; every other model's token bytes joined (GPT-2's " world" brings its own space), so a
// character split between tokens (an emoji's four bytes) reads whole once its last piece is
// written, and a byte that starts no character (yet) is written \xNN. A model without a tokenizer
// reads its text as token ids: they are added to it separated by commas ("5, 17, 42").
std::string append_tokens_text(const LanguageModel& model, std::string text, const std::vector<int>& ids);

// The bytes a KV cache of `c` holds per position: K and V, each n_kv_head · d_head floats, in every
// layer (grouped-query models keep n_head / n_kv_head times fewer than their query heads would).
std::int64_t kv_cache_bytes_per_token(const ModelConfig& c);

// A sequence's run as `attnlab model` reports it: its trace, every head's kind, and the tokens
// generated after the prompt (the last generated.size() ids).
ModelRun sequence_run(const CachedSequence& seq, std::vector<DrawnToken> generated, int top_k);

// `attnlab model --generate`'s part of the JSON, `,\n"generated": [{"id", "text", "prob",
// "model_prob", "distribution": [{"id", "text", "prob", "model_prob"}, …]}, …]`, written before
// the object's closing brace; and of the text report, the text written and each token's draw.
void write_generated_json(std::ostream& out, const LanguageModel& model, const std::vector<DrawnToken>& generated);
void write_generated_text(std::ostream& out, const LanguageModel& model, const std::vector<DrawnToken>& generated);

}  // namespace attnlab::model
