// Reading tokenizer.json's fields with sentences that name the file and the field.
#include "engine/model/tokenizer/json_field.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/tokenizer/unicode.hpp"
#include "engine/text/text_format.hpp"

namespace attnlab::model {

namespace {

const char* kind_of(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    default: return "a number";
  }
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source + ": not JSON (" + e.what() + ")");
  }
}

void JsonField::fail(std::string_view what) const {
  throw InputError(source_ + ": " + (path_.empty() ? std::string("the file") : path_) + " " + std::string(what));
}

void JsonField::unsupported(std::string_view kind, std::string_view type, std::string_view known) const {
  throw InputError(source_ + ": unsupported " + std::string(kind) + " " + in_quotes(type) + " (at " + path_ +
                   "); Attention Lab reads " + std::string(known));
}

JsonField JsonField::at(std::string_view key) const {
  auto member = find(key);
  if (!member) fail("has no \"" + std::string(key) + "\"");
  return *member;
}

std::optional<JsonField> JsonField::find(std::string_view key) const {
  object();
  const auto it = value_->find(std::string(key));
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return JsonField(*it, source_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

JsonField JsonField::operator[](std::size_t i) const {
  return JsonField((*value_)[i], source_, path_ + "[" + std::to_string(i) + "]");
}

std::vector<JsonField> JsonField::sequence(std::string_view key, int depth) const {
  const JsonField list = at(key);
  if (depth >= kMaxNesting) fail("nests Sequences more than " + std::to_string(kMaxNesting) + " deep");
  std::vector<JsonField> items;
  for (std::size_t i = 0; i < list.array().size(); ++i) items.push_back(list[i]);
  return items;
}

const nlohmann::json::object_t& JsonField::object() const {
  if (!value_->is_object()) fail(std::string("is ") + kind_of(*value_) + ", not an object");
  return value_->get_ref<const nlohmann::json::object_t&>();
}

const nlohmann::json::array_t& JsonField::array() const {
  if (!value_->is_array()) fail(std::string("is ") + kind_of(*value_) + ", not an array");
  return value_->get_ref<const nlohmann::json::array_t&>();
}

std::string JsonField::string() const {
  if (!value_->is_string()) fail(std::string("is ") + kind_of(*value_) + ", not a string");
  return value_->get<std::string>();
}

bool JsonField::boolean() const {
  if (!value_->is_boolean()) fail(std::string("is ") + kind_of(*value_) + ", not true or false");
  return value_->get<bool>();
}

std::int64_t JsonField::integer(std::int64_t min, std::int64_t max) const {
  if (value_->is_number_unsigned() && value_->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
    fail("is " + value_->dump() + ", more than " + std::to_string(max));
  }
  if (!value_->is_number_integer()) fail(std::string("is ") + kind_of(*value_) + ", not a whole number");
  const std::int64_t v = value_->get<std::int64_t>();
  if (v < min || v > max) fail("is " + std::to_string(v) + ", not from " + std::to_string(min) + " to " + std::to_string(max));
  return v;
}

bool JsonField::boolean_or(std::string_view key, bool fallback) const {
  const auto member = find(key);
  return member ? member->boolean() : fallback;
}

std::string JsonField::string_or(std::string_view key, std::string_view fallback) const {
  const auto member = find(key);
  return member ? member->string() : std::string(fallback);
}

}  // namespace attnlab::model
