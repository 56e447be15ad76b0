// Matrix files: NumPy .npy (float32/float64, C or Fortran order, 2-D) and .csv.
#pragma once

#include "engine/attention/matrix.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab {

// Parses .npy bytes; `source` names the file in errors. Throws InputError.
Matrix parse_npy(std::string_view bytes, std::string_view source);
// Parses CSV text: one row per line, numbers separated by commas. Throws InputError.
Matrix parse_csv(std::string_view text, std::string_view source);
// Loads by extension (.npy or .csv); every entry must be finite. Throws InputError.
Matrix load_matrix(const std::filesystem::path& path);

// .npy version 1.0, '<f4', C order.
std::string npy_bytes(const Matrix& M);
// CSV with shortest round-trip floats; non-finite cells are written as "-inf", "inf" or "nan".
std::string csv_text(const Matrix& M);

}  // namespace attnlab
