// Fuzzes the .npy reader: any bytes either give a matrix that survives a write/read round trip,
// or an InputError. Any other exception, crash, leak or sanitizer report is a bug.
#include "engine/io/matrix_io.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attnlab::fuzz::check_matrix_round_trip(attnlab::fuzz::input_text(data, size), "fuzz.npy", attnlab::parse_npy,
                                         attnlab::npy_bytes);
  return 0;
}
