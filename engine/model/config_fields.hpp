// The fields of a config.json, read the one way every family's reader reads them (family_*.cpp):
// each refusal is one sentence naming the file and the field ("config.json: \"hidden_size\" must
// be a whole number from 1 to 65536, not -3"). A field given as null is absent.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace attnlab::model::fields {

// True when `key` is missing or null.
bool absent(const nlohmann::json& j, const char* key);
// A whole number in [lo, hi] that must be there.
int whole(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi, const std::string& source);
// A whole number in [lo, hi], or `fallback` when absent.
int whole_or(const nlohmann::json& j, const char* key, int fallback, std::int64_t lo, std::int64_t hi, const std::string& source);
// true or false; false when absent.
bool flag(const nlohmann::json& j, const char* key, const std::string& source);
// A number in (0, hi], or `fallback` when absent.
double number_or(const nlohmann::json& j, const char* key, double fallback, double hi, const std::string& source);
// The first of `key` and `alias` that is there (GPT-2's n_layer or num_hidden_layers), else `key`,
// so that a missing field's sentence names the usual one.
const char* either(const nlohmann::json& j, const char* key, const char* alias);

}  // namespace attnlab::model::fields
