// Rotary positions: parsing rope_scaling and the "rope" object, the frequencies, the rotation.
#include "engine/attention/rope.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <numbers>

namespace attnlab {

namespace {

using nlohmann::json;

json parse_text(std::string_view text, const std::string& src) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(src + ": not JSON (" + e.what() + ")");
  }
}

// A finite number above zero, as a scaling field must be.
double positive(const json& obj, const char* key, const std::string& src) {
  if (!obj.contains(key)) throw InputError(src + ": \"" + key + "\" is missing");
  const json& v = obj[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) {
    throw InputError(src + ": \"" + key + "\" must be a positive number, not " + v.dump());
  }
  return v.get<double>();
}

RopeScaling scaling_from(const json& j, const std::string& src) {
  RopeScaling s;
  if (j.is_null()) return s;
  if (!j.is_object()) throw InputError(src + ": must be null or an object such as {\"rope_type\": \"linear\", \"factor\": 2}");
  const char* key = j.contains("rope_type") ? "rope_type" : j.contains("type") ? "type" : nullptr;
  if (!key || !j[key].is_string()) throw InputError(src + ": needs \"rope_type\" (linear or llama3) as a string");
  const std::string type = j[key].get<std::string>();
  s.json = j.dump();
  if (type == "default") return s;
  if (type == "linear") {
    s.type = RopeScalingType::Linear;
    s.factor = positive(j, "factor", src);
  } else if (type == "llama3") {
    s.type = RopeScalingType::Llama3;
    s.factor = positive(j, "factor", src);
    s.low_freq_factor = positive(j, "low_freq_factor", src);
    s.high_freq_factor = positive(j, "high_freq_factor", src);
    s.original_max_position_embeddings = positive(j, "original_max_position_embeddings", src);
    if (s.high_freq_factor <= s.low_freq_factor) {
      throw InputError(src + ": \"high_freq_factor\" " + j["high_freq_factor"].dump() + " must be above \"low_freq_factor\" " +
                       j["low_freq_factor"].dump() + " (the blend between them divides by their difference)");
    }
  } else {
    throw InputError(src + ": rope_type \"" + type + "\" is not one Attention Lab applies (linear, llama3)");
  }
  return s;
}

std::vector<std::int64_t> positions_from(const json& j, const std::string& src) {
  if (!j.is_array()) throw InputError(src + ": must be a list of positions, whole numbers from 0");
  std::vector<std::int64_t> out;
  for (const json& p : j) {
    if (!p.is_number_integer() || p.get<std::int64_t>() < 0 || p.get<std::int64_t>() > (std::int64_t{1} << 31)) {
      throw InputError(src + ": " + p.dump() + " is not a position (whole numbers from 0 to 2^31)");
    }
    out.push_back(p.get<std::int64_t>());
  }
  return out;
}

std::string positions_json(const std::vector<std::int64_t>& p) {
  std::string s = "[";
  for (std::size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
  return s + "]";
}

}  // namespace

RopeScaling parse_rope_scaling(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  return scaling_from(parse_text(json_text, src), src);
}

RopeSettings parse_rope_settings(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  const json j = parse_text(json_text, src);
  if (!j.is_object()) throw InputError(src + ": must be an object such as {\"theta\": 10000}");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (k != "theta" && k != "scaling" && k != "query_positions" && k != "key_positions") {
      throw InputError(src + ": unknown field \"" + k + "\" (theta, scaling, query_positions, key_positions)");
    }
  }
  RopeSettings r;
  if (j.contains("theta")) r.theta = positive(j, "theta", src + ": theta");
  if (j.contains("scaling")) r.scaling = scaling_from(j["scaling"], src + ": \"scaling\"");
  if (j.contains("query_positions")) r.query_positions = positions_from(j["query_positions"], src + ": \"query_positions\"");
  if (j.contains("key_positions")) r.key_positions = positions_from(j["key_positions"], src + ": \"key_positions\"");
  return r;
}

std::string rope_settings_json(const RopeSettings& rope) {
  std::string s = "{\"theta\": " + json(rope.theta).dump() + ", \"scaling\": " + rope.scaling.json;
  if (!rope.query_positions.empty()) s += ", \"query_positions\": " + positions_json(rope.query_positions);
  if (!rope.key_positions.empty()) s += ", \"key_positions\": " + positions_json(rope.key_positions);
  return s + "}";
}

std::vector<double> rope_frequencies(double theta, const RopeScaling& scaling, std::int64_t d) {
  if (d <= 0 || d % 2 != 0) {
    throw InputError("rotary positions pair the two halves of each row, so its width must be even, not " + std::to_string(d));
  }
  if (!std::isfinite(theta) || theta <= 0) throw InputError("rotary positions need a positive finite theta, not " + json(theta).dump());
  std::vector<double> f(static_cast<std::size_t>(d / 2));
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(d));
  if (scaling.type == RopeScalingType::Linear) {
    for (double& x : f) x /= scaling.factor;
  } else if (scaling.type == RopeScalingType::Llama3) {
    // Wavelengths longer than the trained context / low_freq_factor are slowed by the factor,
    // those shorter than context / high_freq_factor kept; between, a blend linear in
    // context / wavelength that meets both ends.
    const double context = scaling.original_max_position_embeddings;
    const double long_wave = context / scaling.low_freq_factor, short_wave = context / scaling.high_freq_factor;
    for (double& x : f) {
      const double wavelength = 2 * std::numbers::pi / x;
      if (wavelength < short_wave) continue;
      if (wavelength > long_wave) {
        x /= scaling.factor;
      } else {
        const double smooth = (context / wavelength - scaling.low_freq_factor) / (scaling.high_freq_factor - scaling.low_freq_factor);
        x = (1 - smooth) * x / scaling.factor + smooth * x;
      }
    }
  }
  // A θ far below 1 or a factor near 0 could push a frequency past double's range (θ = 1e-300
  // and d = 64 already gives 1e290), or leave it finite but so large that a position times it is
  // not (θ = 1 and a linear factor of 1e-308: 3 × 1e308): angles of ∞ would turn every later number
  // into NaN. Below this bound every position an int64 holds (|p| ≤ 2^63) gives a finite angle.
  constexpr double kLargestFrequency = std::numeric_limits<double>::max() / 0x1p63;
  for (double x : f) {
    if (!(x <= kLargestFrequency)) {
      throw InputError("rotary positions with theta " + json(theta).dump() + " and this scaling give frequencies beyond any number");
    }
  }
  return f;
}

RopeAngles rope_angles(const std::vector<double>& frequencies, const std::int64_t* positions, std::int64_t count) {
  RopeAngles a;
  a.rows = count;
  a.half = static_cast<std::int64_t>(frequencies.size());
  a.cos.resize(static_cast<std::size_t>(count * a.half));
  a.sin.resize(a.cos.size());
  for (std::int64_t r = 0; r < count; ++r) {
    for (std::int64_t i = 0; i < a.half; ++i) {
      const double angle = static_cast<double>(positions[r]) * frequencies[static_cast<std::size_t>(i)];
      a.cos[static_cast<std::size_t>(r * a.half + i)] = static_cast<float>(std::cos(angle));
      a.sin[static_cast<std::size_t>(r * a.half + i)] = static_cast<float>(std::sin(angle));
    }
  }
  return a;
}

void rope_rotate(const RopeAngles& angles, std::int64_t first_angle, float* x, std::int64_t rows, std::int64_t stride) {
  const std::int64_t h = angles.half;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* c = angles.cos.data() + (first_angle + r) * h;
    const float* s = angles.sin.data() + (first_angle + r) * h;
    float* lo = x + r * stride;
    float* hi = lo + h;
    for (std::int64_t i = 0; i < h; ++i) {
      const float a = lo[i], b = hi[i];
      lo[i] = a * c[i] - b * s[i];
      hi[i] = b * c[i] + a * s[i];
    }
  }
}

Matrix rope_rotated(const Matrix& X, const std::vector<std::int64_t>& positions, const std::vector<double>& frequencies) {
  if (static_cast<Eigen::Index>(positions.size()) != X.rows() || X.cols() != 2 * static_cast<Eigen::Index>(frequencies.size())) {
    throw std::invalid_argument("rope_rotated: one position per row and d/2 frequencies for rows of width d");
  }
  Matrix out = X;
  const RopeAngles a = rope_angles(frequencies, positions.data(), X.rows());
  rope_rotate(a, 0, out.data(), out.rows(), out.cols());
  return out;
}

}  // namespace attnlab
