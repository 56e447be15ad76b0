// tokenizer.json's post-processors (Hugging Face tokenizers' fourth stage): the special tokens
// put around the encoded text, such as Llama's BOS. TemplateProcessing, ByteLevel (which moves
// only offsets, so leaves the ids as they are) and Sequence; any other type is refused.
#pragma once

#include <functional>
#include <memory>
#include <vector>

namespace attnlab::model {

class JsonField;

// The ids before and after the text's own: single = [before…, $A, after…].
struct Template {
  std::vector<int> before, after;
};

// The template a tokenizer.json "post_processor" object puts around one text (empty when it adds
// nothing); `is_token` says whether an id names a token. Throws InputError naming the field.
Template read_post_processor(const JsonField& field, const std::function<bool(int)>& is_token);

}  // namespace attnlab::model
