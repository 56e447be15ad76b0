// Rotary positions (docs/MODELS.md, "Rotary positions"): the frequencies, Hugging Face's rope_scaling
// rules and the rotate-half rotation of rows at given positions. Pure math on float rows, no
// backend: the model families' forward uses it, and so can the lab's RoPE stage.
#pragma once

#include "engine/attention/matrix.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

enum class RopeScalingType { None, Linear, Llama3 };

// Hugging Face's `rope_scaling` object: how the frequencies change for longer contexts.
struct RopeScaling {
  RopeScalingType type = RopeScalingType::None;
  double factor = 1;                                 // linear and llama3
  double low_freq_factor = 1, high_freq_factor = 4;  // llama3
  double original_max_position_embeddings = 8192;    // llama3: the context it was trained on
  std::string json = "null";                         // the object as given (compact JSON), or null
};

// The scenario's "rope" object: {"theta", "scaling", "query_positions", "key_positions"}.
struct RopeSettings {
  double theta = 10000;
  RopeScaling scaling;
  // Empty: 0 … n−1 for the queries, 0 … m−1 for the keys.
  std::vector<std::int64_t> query_positions, key_positions;
};

// Parses a `rope_scaling` value (JSON text): null, or {"rope_type" (or "type"): "linear",
// "factor"} or {"rope_type": "llama3", "factor", "low_freq_factor", "high_freq_factor",
// "original_max_position_embeddings"}; "default" is no scaling. `source` starts each error
// sentence ("config.json: \"rope_scaling\""). Throws InputError: an unknown rope_type, a factor
// that is not a positive number, a missing llama3 field, high_freq_factor ≤ low_freq_factor.
RopeScaling parse_rope_scaling(std::string_view json_text, std::string_view source);

// Parses the scenario's "rope" object (JSON text): theta > 0 (default 10000), scaling as above
// (default null), positions as lists of whole numbers from 0 (default: absent). Throws InputError.
RopeSettings parse_rope_settings(std::string_view json_text, std::string_view source);
// The "rope" object as JSON text (positions left out when empty), for files and printed results.
std::string rope_settings_json(const RopeSettings& rope);

// The d/2 frequencies f_i = θ^(−2i/d), i = 0 … d/2 − 1, changed as `scaling` says: linear divides
// each by the factor; llama3 divides the low frequencies (wavelength 2π/f above
// original_max_position_embeddings / low_freq_factor) by the factor, keeps the high ones
// (wavelength below original / high_freq_factor) and blends in between. Throws InputError when d
// is odd or not positive, θ is not a positive finite number, or a frequency would overflow.
std::vector<double> rope_frequencies(double theta, const RopeScaling& scaling, std::int64_t d);

// cos a and sin a, a = p·f_i, for each of `count` positions: count × d/2 each, row-major. The
// angles are computed in double and rounded once to float.
struct RopeAngles {
  std::int64_t rows = 0, half = 0;
  std::vector<float> cos, sin;
};
RopeAngles rope_angles(const std::vector<double>& frequencies, const std::int64_t* positions, std::int64_t count);

// Rotates `rows` rows of length 2·angles.half in place (row stride `stride` floats), row r by the
// angles of row `first_angle + r`: x̃[i] = x[i]·cos a_i − x[i+d/2]·sin a_i,
// x̃[i+d/2] = x[i+d/2]·cos a_i + x[i]·sin a_i (the halves of the row are the pairs).
void rope_rotate(const RopeAngles& angles, std::int64_t first_angle, float* x, std::int64_t rows, std::int64_t stride);

// X (rows × d) rotated, row r at positions[r] (rows of them).
Matrix rope_rotated(const Matrix& X, const std::vector<std::int64_t>& positions, const std::vector<double>& frequencies);

}  // namespace attnlab
