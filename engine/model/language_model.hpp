// The one interface every model family gives the rest of Attention Lab (the model report, the
// command line, the Model window, the lessons): its config, its tokenizer, a forward pass that
// keeps every head's q, k, v and attention weights, its FLOPs, and saving its files.
#pragma once

#include "engine/attention/matrix.hpp"
#include "engine/attention/rope.hpp"
#include "engine/model/causal_weights.hpp"
#include "engine/model/model_config.hpp"
#include "engine/model/tokenizer.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

// A change to one head's output as a forward runs (docs/MODELS.md, "Interventions"). A head's
// output is its weights times its K/V group's values, n × d_head per query position, before the
// layer's output projection; the change is made there, so every later layer reads the changed
// stream.
struct HeadEdit {
  enum class Kind {
    Zero,     // 0 at every position
    Mean,     // its mean over this forward's positions at every position
    Uniform,  // uniform weights over the keys the mask (and a sliding window) leaves visible
    Replace,  // `output` in its place: the head's output on a second text, or a lab's edit of it
  };
  int layer = 0, head = 0;
  Kind kind = Kind::Zero;
  Matrix output;  // Replace: n × d_head, one row per position of the forward
  // Replace: the weights that made `output` (n × at least start + n), kept in the head's place when
  // the forward keeps weights (a lab's edit, whose weights differ from the model's); empty: the
  // head's own stay.
  Matrix weights;
};

// What a forward pass keeps.
struct ForwardOptions {
  bool keep_weights = true;           // every head's attention weights
  bool keep_all_qkv = false;          // every head's q, k, v
  int qkv_layer = -1, qkv_head = -1;  // or just this one head's (−1: none)
  int top_k = 10;                     // next tokens kept, most probable first
  bool keep_logits = false;           // the last position's output logits, every token's (generation samples from them)
  std::vector<HeadEdit> edits;        // heads' outputs changed as the forward runs, each head at most once
  bool keep_outputs = false;          // every head's output (HeadTrace::output), after any edit
  // The logit lens at this position of the forward (0 … n − 1; −1: none): after each layer, the
  // residual stream there through the final norm and the unembedding, its top_k tokens.
  std::int64_t lens_position = -1;
  bool keep_predictions = false;      // every position's most probable next token (a task's accuracy)
  // Called after each layer with (layers done, layers in all); returning false cancels, and the
  // forward returns what it has with `cancelled` set.
  std::function<bool(int, int)> progress;
};

// One query head in one forward over n new positions, after `start` positions already cached.
struct HeadTrace {
  // n × d_head each, for the positions of this forward: q and k after the bias (and qwen3's q/k
  // norm) but before any rotation, k and v those of the head's K/V group. Empty unless kept.
  Matrix q, k, v;
  // n × (start + n): row i over keys 0 … start + i, summing to 1 over the keys the causal mask
  // (and a sliding window) leaves visible, 0 elsewhere (past the row's end not stored). Empty
  // unless kept.
  CausalWeights weights;
  // n × d_head: weights · values for the positions of this forward, before the output projection
  // and after any edit. Empty unless kept.
  Matrix output;
};

struct NextToken {
  int id = 0;
  float prob = 0;
};

struct ForwardTrace {
  std::vector<int> ids;  // the tokens of this forward
  std::int64_t start = 0;  // the position of ids[0] (the cache's length before the forward)
  std::vector<std::vector<HeadTrace>> heads;  // [layer][head]
  std::vector<NextToken> next_tokens;         // after the last position, top_k of them
  std::vector<float> logits;                  // after the last position, vocab_size of them; empty unless kept
  std::vector<std::vector<NextToken>> lens;   // [layer]: the logit lens's top_k at lens_position; empty unless asked
  std::vector<NextToken> predictions;         // [position]: the most probable next token there; empty unless kept
  bool cancelled = false;
};

// The keys and values of every position run so far, per layer, for a forward that continues
// from position `length` (token-by-token generation): it holds K/V heads (k after its rotation),
// never a copy per query head. A forward given a cache appends its positions to it.
struct KvCache {
  std::int64_t length = 0;
  std::vector<std::vector<float>> k, v;  // [layer]: length × (n_kv_head · d_head), row-major

  // Forgets the positions from `keep` on (a text edited there runs again from it).
  void truncate(std::int64_t keep) {
    if (keep >= length) return;
    if (keep < 0) keep = 0;
    for (auto* layers : {&k, &v}) {
      for (auto& kv : *layers) kv.resize(length ? kv.size() / static_cast<std::size_t>(length) * static_cast<std::size_t>(keep) : 0);
    }
    length = keep;
  }
};

class LanguageModel {
public:
  virtual ~LanguageModel() = default;

  // Its sizes and conventions (model_config.hpp): layers, heads, K/V heads, widths, positions.
  virtual const ModelConfig& config() const = 0;
  // "GPT-2", a toy model's or a folder's name, a Hugging Face repo id.
  virtual std::string display_name() const = 0;
  // Its tokenizer; null when its folder has none (then only --ids runs it).
  virtual const Tokenizer* tokenizer() const = 0;
  // Why tokenizer() is null, one sentence naming the file: "DIR/tokenizer.json: missing; …".
  virtual std::string missing_tokenizer() const = 0;
  // The forward pass over `ids` at positions start … start + n − 1, where start is the cache's
  // length (0 without one); checked first (check_ids). With a cache, every layer attends over the
  // cached K/V and the new positions' own, and appends the new ones. Memory: the weights are read
  // where they are mapped (F32) or converted one layer at a time (F16, BF16); repeated K/V for
  // grouped heads are never made.
  virtual ForwardTrace forward(const std::vector<int>& ids, const ForwardOptions& options = {}, KvCache* cache = nullptr) const = 0;
  // Parameters in its weight files (a tied output matrix counted once).
  virtual std::int64_t parameters() const = 0;
  // How its weights are stored: "F32", "BF16", a GGUF file's type ("Q8_0", "Q4_K_M").
  virtual std::string tensor_type() const = 0;
  // Writes its files into `dir` (created; existing files refused unless `force`). Throws
  // InputError naming the file.
  virtual void save(const std::filesystem::path& dir, bool force) const = 0;

  // What the JSON prints as "family": the model_type, or "attnlab-toy" (families.hpp, family_name).
  std::string family() const;
  // The rotary settings its heads' q and k turn by (θ and scaling; positions left to the caller),
  // or none for learned positions.
  std::optional<RopeSettings> rope() const;
  // The ids of `text`, checked to fit. Throws InputError starting with `what` (also when the model
  // has no tokenizer: the sentence says which file is missing and that --ids needs none).
  std::vector<int> tokenize(std::string_view text, std::string_view what = "--text") const;
  // Checks ids against the vocabulary and the positions left after `start`; `what` names the flag.
  void check_ids(const std::vector<int>& ids, std::string_view what, std::int64_t start = 0) const;
  // The bytes of a token (Tokenizer::token_bytes), or "<id>" when there is no tokenizer.
  std::string token_bytes(int id) const;
  // token_bytes as valid UTF-8 (Tokenizer::token_text).
  std::string token_text(int id) const;
  // token_label of its text: how the app shows the token to a person.
  std::string token_label(int id) const;
  // token_label in single quotes: how a sentence names a token ("after 'Mary'").
  std::string quoted_token(int id) const;
  // The matrix products' FLOPs of a forward over n positions after `start` cached ones: 2·rows·
  // cols·inner for each projection, QKᵀ and AV over the keys each block of query rows runs over
  // (what runs: every key a row of the block sees, none past the block's last row), and the last
  // position's logits.
  double forward_flops(std::int64_t n, std::int64_t start = 0) const;
};

// How a token's text reads on one line wherever the app shows it to a person (the Model window's
// chips, maps and bars, a lifted head's labels, `model`'s text report): each leading space as "·"
// (GPT-2's and Llama's words carry theirs, and a chip shows no quotes), a line break as "↵", a tab
// as "⇥" and any other control character as \xNN, as a byte that starts no character already
// reads. JSON keeps the text itself.
std::string token_label(std::string_view text);

}  // namespace attnlab::model
