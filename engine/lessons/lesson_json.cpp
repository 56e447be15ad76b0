// Matrices and floats in the lessons' JSON.
#include "engine/lessons/lesson_json.hpp"

#include "engine/text/text_format.hpp"

#include <cmath>
#include <string>

namespace attnlab {

double short_double(float v) {
  return std::isfinite(v) ? std::stod(float_json(v)) : static_cast<double>(v);
}

nlohmann::ordered_json matrix_to_json(const Matrix& M) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      const float v = M(i, j);
      row.push_back(std::isfinite(v) ? nlohmann::ordered_json(short_double(v)) : nlohmann::ordered_json(nullptr));
    }
    out.push_back(row);
  }
  return out;
}

nlohmann::ordered_json row_sums_json(const Matrix& W) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < W.rows(); ++i) out.push_back(static_cast<double>(W.row(i).cast<double>().sum()));
  return out;
}

}  // namespace attnlab
