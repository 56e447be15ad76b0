// A value inside tokenizer.json with the path that leads to it, so every component's reader can
// refuse a field with one sentence that names the file and the field ("tokenizer.json:
// pre_tokenizer.pretokenizers[0].pattern is not an object").
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

// How deep one Sequence of components may hold others: real files nest none, and a limit keeps a
// damaged file from exhausting the stack.
inline constexpr int kMaxNesting = 8;

class JsonField {
public:
  JsonField(const nlohmann::json& value, std::string source, std::string path)
      : value_(&value), source_(std::move(source)), path_(std::move(path)) {}

  const nlohmann::json& json() const { return *value_; }
  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }

  // Throws InputError "<source>: <path> <what>".
  [[noreturn]] void fail(std::string_view what) const;
  // Throws InputError "<source>: unsupported <kind> "<type>" (at <path>); Attention Lab reads <known>".
  [[noreturn]] void unsupported(std::string_view kind, std::string_view type, std::string_view known) const;

  // A member that must be there (and not null); this must be an object.
  JsonField at(std::string_view key) const;
  // A member that may be missing or null.
  std::optional<JsonField> find(std::string_view key) const;
  // An element of an array.
  JsonField operator[](std::size_t i) const;
  std::size_t size() const { return value_->size(); }
  // The components a Sequence lists under `key`, for a reader at nesting `depth` (it reads them at
  // depth + 1); refuses Sequences nested more than kMaxNesting deep.
  std::vector<JsonField> sequence(std::string_view key, int depth) const;
  // A Sequence's components, each read by `read(component, depth + 1)`.
  template <class Step, class Read>
  std::vector<std::unique_ptr<Step>> sequence_of(std::string_view key, int depth, Read read) const {
    std::vector<std::unique_ptr<Step>> steps;
    for (const JsonField& item : sequence(key, depth)) steps.push_back(read(item, depth + 1));
    return steps;
  }

  // The value as a type; anything else is refused with a sentence.
  const nlohmann::json::object_t& object() const;
  const nlohmann::json::array_t& array() const;
  std::string string() const;
  bool boolean() const;
  std::int64_t integer(std::int64_t min, std::int64_t max) const;
  // A member's value, or `fallback` when it is missing or null.
  bool boolean_or(std::string_view key, bool fallback) const;
  std::string string_or(std::string_view key, std::string_view fallback) const;

private:
  const nlohmann::json* value_;
  std::string source_;
  std::string path_;
};

// `text` parsed as JSON; throws InputError "<source>: not JSON (…)".
nlohmann::json parse_json(std::string_view text, const std::string& source);

}  // namespace attnlab::model
