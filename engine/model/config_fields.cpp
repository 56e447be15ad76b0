// The config.json field readers every family shares; see config_fields.hpp.
#include "engine/model/config_fields.hpp"

#include "engine/attention/matrix.hpp"

#include <nlohmann/json.hpp>

namespace attnlab::model::fields {

using nlohmann::json;

bool absent(const json& j, const char* key) { return !j.contains(key) || j[key].is_null(); }

int whole(const json& j, const char* key, std::int64_t lo, std::int64_t hi, const std::string& src) {
  if (absent(j, key)) throw InputError(src + ": \"" + key + "\" is missing");
  const json& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
    throw InputError(src + ": \"" + key + "\" must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not " +
                     v.dump());
  }
  return static_cast<int>(v.get<std::int64_t>());
}

int whole_or(const json& j, const char* key, int fallback, std::int64_t lo, std::int64_t hi, const std::string& src) {
  return absent(j, key) ? fallback : whole(j, key, lo, hi, src);
}

bool flag(const json& j, const char* key, const std::string& src) {
  if (absent(j, key)) return false;
  if (!j[key].is_boolean()) throw InputError(src + ": \"" + key + "\" must be true or false, not " + j[key].dump());
  return j[key].get<bool>();
}

double number_or(const json& j, const char* key, double fallback, double hi, const std::string& src) {
  if (absent(j, key)) return fallback;
  const json& v = j[key];
  if (!v.is_number() || !(v.get<double>() > 0) || !(v.get<double>() <= hi)) {
    throw InputError(src + ": \"" + key + "\" must be a positive number up to " + json(hi).dump() + ", not " + v.dump());
  }
  return v.get<double>();
}

const char* either(const json& j, const char* key, const char* alias) { return !absent(j, key) || absent(j, alias) ? key : alias; }

}  // namespace attnlab::model::fields
