// Fuzzes the .csv reader: any text either gives a matrix that survives a write/read round trip,
// or an InputError. Any other exception, crash, leak or sanitizer report is a bug.
#include "engine/io/matrix_io.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attnlab::fuzz::check_matrix_round_trip(attnlab::fuzz::input_text(data, size), "fuzz.csv", attnlab::parse_csv,
                                         attnlab::csv_text);
  return 0;
}
