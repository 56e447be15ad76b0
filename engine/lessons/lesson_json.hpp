// The pieces every lesson page's JSON is made of (`attnlab lesson NAME --format json`): matrices,
// floats as their shortest decimals, a matrix's row sums, Section 2.3's table rows.
#pragma once

#include "engine/attention/matrix.hpp"

#include <nlohmann/json.hpp>

namespace attnlab {

// A float as the double with its shortest decimal (0.48f -> 0.48, not 0.47999998927116394).
double short_double(float v);

// A matrix as a JSON list of rows; floats as their shortest decimals, non-finite cells as null.
nlohmann::ordered_json matrix_to_json(const Matrix& M);

// The sum of each row of W (weights: 1 where a row sees a key), summed in double.
nlohmann::ordered_json row_sums_json(const Matrix& W);

// One row of Section 2.3's table, from `attnlab scaling` (ScalingRow) or the scaling lesson's sweep
// (ScalingSweepRow): d_k, and the scores' std and the largest weight, unscaled and scaled.
template <class Row>
nlohmann::ordered_json scaling_row_json(const Row& r) {
  return {{"d_k", r.d_k},
          {"unscaled_std", r.unscaled_std},
          {"scaled_std", r.scaled_std},
          {"unscaled_max_prob", r.unscaled_max_prob},
          {"scaled_max_prob", r.scaled_max_prob}};
}

}  // namespace attnlab
