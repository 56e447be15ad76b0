// Fuzzes the .csv reader: any text either gives a matrix that survives a write/read round trip,
// or an InputError. Any other exception, crash, leak or sanitizer report is a bug.
#include "engine/io/matrix_io.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  attnlab::Matrix M;
  try {
    M = attnlab::parse_csv(text, "fuzz.csv");
  } catch (const attnlab::InputError&) {
    return 0;
  }
  FUZZ_CHECK(M.rows() > 0 && M.cols() > 0 && M.allFinite());
  const attnlab::Matrix again = attnlab::parse_csv(attnlab::csv_text(M), "again.csv");
  FUZZ_CHECK(again == M);
  return 0;
}
