// The post-processors a tokenizer.json may name, as Hugging Face tokenizers defines them.
#include "engine/model/tokenizer/post_processors.hpp"

#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/unicode.hpp"
#include "engine/text/text_format.hpp"

#include <cstdint>
#include <string>

namespace attnlab::model {

namespace {

// "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}], the special tokens'
// ids from "special_tokens": {"<s>": {"ids": [1]}}.
Template read_template(const JsonField& field, const std::function<bool(int)>& is_token) {
  const JsonField single = field.at("single");
  const JsonField specials = field.at("special_tokens");
  Template t;
  bool seen_text = false;
  for (std::size_t i = 0; i < single.array().size(); ++i) {
    const JsonField item = single[i];
    if (const auto sequence = item.find("Sequence")) {
      const JsonField id = sequence->at("id");
      if (id.string() != "A") id.fail("is " + in_quotes(id.string()) + ", but one text has only the sequence \"A\"");
      if (seen_text) item.fail("is a second \"A\"");
      seen_text = true;
      continue;
    }
    const JsonField name = item.at("SpecialToken").at("id");
    const auto special = specials.find(name.string());
    if (!special) name.fail("names " + in_quotes(name.string()) + ", which special_tokens does not define");
    const JsonField ids = special->at("ids");
    for (std::size_t k = 0; k < ids.array().size(); ++k) {
      const int id = static_cast<int>(ids[k].integer(0, INT32_MAX));
      if (!is_token(id)) ids[k].fail("is " + std::to_string(id) + ", which is no token of this tokenizer");
      (seen_text ? t.after : t.before).push_back(id);
    }
  }
  if (!seen_text) single.fail("has no {\"Sequence\": {\"id\": \"A\"}} for the text");
  return t;
}

Template read(const JsonField& field, const std::function<bool(int)>& is_token, int depth) {
  const std::string type = field.at("type").string();
  if (type == "TemplateProcessing") return read_template(field, is_token);
  if (type == "ByteLevel") return {};  // it trims offsets only; the ids stay
  if (type == "Sequence") {
    Template all;
    for (const JsonField& item : field.sequence("processors", depth)) {
      Template t = read(item, is_token, depth + 1);
      all.before.insert(all.before.begin(), t.before.begin(), t.before.end());
      all.after.insert(all.after.end(), t.after.begin(), t.after.end());
    }
    return all;
  }
  field.unsupported("post-processor", type, "TemplateProcessing, ByteLevel and Sequence");
}

}  // namespace

Template read_post_processor(const JsonField& field, const std::function<bool(int)>& is_token) { return read(field, is_token, 0); }

}  // namespace attnlab::model
