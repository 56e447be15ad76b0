// tokenizer.json's pipeline, put together from its stages, and what tokenizer_config.json adds.
#include "engine/model/tokenizer/tokenizer_json.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/model/tokenizer/added_tokens.hpp"
#include "engine/model/tokenizer/decoders.hpp"
#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/normalizers.hpp"
#include "engine/model/tokenizer/pipeline.hpp"
#include "engine/model/tokenizer/post_processors.hpp"
#include "engine/model/tokenizer/pre_tokenizers.hpp"
#include "engine/model/tokenizer/unicode.hpp"
#include "engine/model/tokenizer/word_model.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace attnlab::model {

std::vector<int> PipelineTokenizer::encode(std::string_view text) const {
  check_utf8(text);
  std::vector<int> ids(post.before);
  for (const Segment& segment : added.split(text, normalizer.get())) {
    if (segment.id >= 0) {
      ids.push_back(segment.id);
      continue;
    }
    std::vector<Piece> pieces{{segment.text, segment.at_start}};
    if (pre_tokenizer) pre_tokenizer->pre_tokenize(pieces);
    for (const Piece& piece : pieces) model.encode_word(piece.text, ids);
  }
  ids.insert(ids.end(), post.after.begin(), post.after.end());
  return ids;
}

std::string PipelineTokenizer::token_bytes(int id) const {
  if (const AddedToken* t = added.find(id)) return t->content;
  if (const std::string* token = model.bpe().token(id)) return decoder.decode(*token);
  return "<" + std::to_string(id) + ">";
}

namespace {


AddedToken read_added_token(const JsonField& item, int id) {
  AddedToken t;
  t.id = id;
  t.content = item.at("content").string();
  if (t.content.empty()) item.at("content").fail("is empty");
  t.special = item.boolean_or("special", false);
  t.single_word = item.boolean_or("single_word", false);
  t.lstrip = item.boolean_or("lstrip", false);
  t.rstrip = item.boolean_or("rstrip", false);
  t.normalized = item.boolean_or("normalized", !t.special);
  return t;
}

std::vector<AddedToken> read_added_tokens(const std::optional<JsonField>& list) {
  std::vector<AddedToken> tokens;
  if (!list) return tokens;
  std::unordered_set<int> ids;
  std::unordered_set<std::string> contents;
  for (std::size_t i = 0; i < list->array().size(); ++i) {
    const JsonField item = (*list)[i];
    AddedToken t = read_added_token(item, static_cast<int>(item.at("id").integer(0, kMaxTokenId)));
    if (!ids.insert(t.id).second) item.fail("repeats the id " + std::to_string(t.id) + " of an earlier added token");
    if (!contents.insert(t.content).second) item.fail("repeats the added token " + in_quotes(t.content));
    tokens.push_back(std::move(t));
  }
  return tokens;
}

// The id a tokenizer_config.json names a token by (a string, or {"content": …}), or -1 when absent.
int token_id(const PipelineTokenizer& t, const std::vector<AddedToken>& added, const JsonField& name) {
  const std::string content = name.json().is_object() ? name.at("content").string() : name.string();
  for (const AddedToken& a : added) {
    if (a.content == content) return a.id;
  }
  const int id = t.model.bpe().id(content);
  if (id < 0) name.fail("is " + in_quotes(content) + ", which is no token of tokenizer.json");
  return id;
}

// transformers' LlamaTokenizerFast rebuilds the template from add_bos_token (true unless it says
// false) and add_eos_token (false unless true), whatever tokenizer.json's post-processor was.
std::optional<Template> llama_template(const JsonField& config, const PipelineTokenizer& t, const std::vector<AddedToken>& added) {
  const std::string cls = config.string_or("tokenizer_class", "");
  if (cls != "LlamaTokenizer" && cls != "LlamaTokenizerFast") return std::nullopt;
  Template tpl;
  const nlohmann::json bos_default = "<s>", eos_default = "</s>";
  if (config.boolean_or("add_bos_token", true)) {
    const auto bos = config.find("bos_token");
    tpl.before.push_back(token_id(t, added, bos ? *bos : JsonField(bos_default, config.source(), "bos_token")));
  }
  if (config.boolean_or("add_eos_token", false)) {
    const auto eos = config.find("eos_token");
    tpl.after.push_back(token_id(t, added, eos ? *eos : JsonField(eos_default, config.source(), "eos_token")));
  }
  return tpl;
}

// Tokens tokenizer_config.json's added_tokens_decoder lists that tokenizer.json lacks are added
// (transformers does so when it loads them); one that contradicts tokenizer.json is refused.
void add_config_tokens(const JsonField& config, const PipelineTokenizer& t, std::vector<AddedToken>& added) {
  const auto decoder = config.find("added_tokens_decoder");
  if (!decoder) return;
  std::unordered_map<int, std::string> known;  // id → content, from tokenizer.json
  for (const AddedToken& a : added) known.emplace(a.id, a.content);
  for (const auto& [key, value] : decoder->object()) {
    char* end = nullptr;
    const long long id = std::strtoll(key.c_str(), &end, 10);
    if (key.empty() || *end != '\0' || id < 0 || id > kMaxTokenId) {
      decoder->fail("has the key " + in_quotes(key) + ", not an id from 0 to " + std::to_string(kMaxTokenId));
    }
    const JsonField item(value, config.source(), decoder->path() + "[" + in_quotes(key) + "]");
    AddedToken token = read_added_token(item, static_cast<int>(id));
    const auto it = known.find(token.id);
    const std::string* before = it != known.end() ? &it->second : t.model.bpe().token(token.id);
    if (before && *before != token.content) {
      item.fail("is " + in_quotes(token.content) + " but tokenizer.json's token " + std::to_string(id) + " is " + in_quotes(*before));
    }
    if (it == known.end()) added.push_back(std::move(token));
  }
}

std::unique_ptr<Tokenizer> build(const JsonField& root, const std::optional<JsonField>& config) {
  auto t = std::make_unique<PipelineTokenizer>();
  t->model = WordModel::read(root.at("model"));
  std::vector<AddedToken> added = read_added_tokens(root.find("added_tokens"));
  if (config) add_config_tokens(*config, *t, added);
  t->size = t->model.bpe().size();
  for (const AddedToken& a : added) t->size = std::max(t->size, a.id + 1);
  if (const auto n = root.find("normalizer")) t->normalizer = make_normalizer(*n);
  if (const auto p = root.find("pre_tokenizer")) t->pre_tokenizer = make_pre_tokenizer(*p);
  std::unordered_set<int> added_ids;
  for (const AddedToken& a : added) added_ids.insert(a.id);
  const auto is_token = [&](int id) { return t->model.bpe().token(id) || added_ids.count(id); };
  if (const auto p = root.find("post_processor")) t->post = read_post_processor(*p, is_token);
  const auto decoder = root.find("decoder");
  t->decoder = TokenDecoder::read(decoder ? &*decoder : nullptr);
  if (config) {
    if (auto tpl = llama_template(*config, *t, added)) t->post = std::move(*tpl);
  }
  const bool split_special = config && config->boolean_or("split_special_tokens", false);
  t->added = AddedTokens(std::move(added), t->normalizer.get(), split_special);
  return t;
}

}  // namespace

std::unique_ptr<Tokenizer> parse_tokenizer_json(std::string_view tokenizer_json, std::string_view tokenizer_config_json,
                                                std::string_view source) {
  const std::string src(source);
  const std::string config_src = (std::filesystem::path(src).parent_path() / "tokenizer_config.json").string();
  const nlohmann::json root = parse_json(tokenizer_json, src);
  const JsonField root_field(root, src, "");
  root_field.object();
  nlohmann::json config;
  std::optional<JsonField> config_field;
  if (!tokenizer_config_json.empty()) {
    config = parse_json(tokenizer_config_json, config_src);
    config_field.emplace(config, config_src, "");
    config_field->object();
  }
  return build(root_field, config_field);
}

std::unique_ptr<Tokenizer> load_tokenizer_json(const std::filesystem::path& folder) {
  const std::filesystem::path json = folder / "tokenizer.json", config = folder / "tokenizer_config.json";
  std::error_code ec;
  const std::string config_text = std::filesystem::exists(config, ec) ? read_file(config) : std::string();
  return parse_tokenizer_json(read_file(json), config_text, json.string());
}

}  // namespace attnlab::model
