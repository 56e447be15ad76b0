// What every language model shares on top of its config and tokenizer: rotary settings, checking
// and tokenizing input, token labels, the FLOPs of a forward.
#include "engine/model/language_model.hpp"

#include "engine/model/decoder_blocks.hpp"
#include "engine/model/families.hpp"
#include "engine/text/utf8.hpp"

namespace attnlab::model {

std::optional<RopeSettings> LanguageModel::rope() const {
  const ModelConfig& c = config();
  if (c.positions != PositionKind::Rope) return std::nullopt;
  RopeSettings r;
  r.theta = c.rope_theta;
  r.scaling = c.rope_scaling;
  return r;
}

std::string LanguageModel::family() const { return family_name(config()); }

void LanguageModel::check_ids(const std::vector<int>& ids, std::string_view what, std::int64_t start) const {
  const ModelConfig& c = config();
  const std::string w(what);
  if (ids.empty()) throw InputError(w + ": gives no tokens; the model needs at least one");
  const char* field = family_spec(c.family).context_field;
  if (start + static_cast<std::int64_t>(ids.size()) > c.n_ctx) {
    throw InputError(w + ": " + std::to_string(ids.size()) + " tokens" + (start ? " after " + std::to_string(start) + " already run" : "") +
                     ", more than this model's " + std::to_string(c.n_ctx) + " positions (" + field + ")");
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= c.vocab_size) {
      throw InputError(w + ": token " + std::to_string(i) + " has id " + std::to_string(ids[i]) + ", beyond the vocabulary (ids 0 to " +
                       std::to_string(c.vocab_size - 1) + ")");
    }
  }
}

std::vector<int> LanguageModel::tokenize(std::string_view text, std::string_view what) const {
  const Tokenizer* t = tokenizer();
  if (!t) throw InputError(std::string(what) + ": " + missing_tokenizer());
  std::vector<int> ids;
  try {
    ids = t->encode(text);
  } catch (const InputError& e) {
    throw InputError(std::string(what) + ": " + e.what());
  }
  check_ids(ids, what);
  return ids;
}

std::string LanguageModel::token_text(int id) const { return printable_utf8(token_bytes(id)); }

std::string LanguageModel::token_bytes(int id) const {
  const Tokenizer* t = tokenizer();
  return t ? t->token_bytes(id) : "<" + std::to_string(id) + ">";
}

std::string LanguageModel::token_label(int id) const { return model::token_label(token_text(id)); }

std::string LanguageModel::quoted_token(int id) const { return "'" + token_label(id) + "'"; }

std::string token_label(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 4);
  bool leading = true;  // still in the token's leading spaces
  for (const char c : text) {
    leading = leading && c == ' ';
    if (leading) {
      out += "·";
    } else if (c == '\n') {
      out += "↵";
    } else if (c == '\t') {
      out += "⇥";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      static constexpr char hex[] = "0123456789ABCDEF";
      out += "\\x";
      out += hex[static_cast<unsigned char>(c) >> 4];
      out += hex[c & 15];
    } else {
      out += c;
    }
  }
  return out;
}

double LanguageModel::forward_flops(std::int64_t n_, std::int64_t start) const {
  const ModelConfig& c = config();
  const double n = static_cast<double>(n_), d = c.d_model;
  const double qw = c.q_width(), kvw = c.kv_width(), ff = c.d_ff;
  const double projections = 2 * n * d * (qw + 2 * kvw) + 2 * n * qw * d;
  const double mlp = (c.ffn == FfnKind::SiluGated ? 3 : 2) * 2 * n * d * ff;
  double flops = 2 * d * c.vocab_size;
  for (int l = 0; l < c.n_layer; ++l) {
    // QKᵀ and A·V over the (query, key) pairs their products run over (blocks of query rows
    // against the keys they see; decoder_blocks.hpp), 2·d_head FLOPs a pair each, every head.
    const blocks::AttentionShape shape{n_, start, c.n_head, c.n_kv_head, c.d_head, c.window(l)};
    flops += projections + mlp + 4 * blocks::attention_pairs(shape) * qw;
  }
  return flops;
}

}  // namespace attnlab::model
