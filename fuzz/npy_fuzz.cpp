// Fuzzes the .npy reader: any bytes either give a matrix that survives a write/read round trip,
// or an InputError. Any other exception, crash, leak or sanitizer report is a bug.
#include "engine/io/matrix_io.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  attnlab::Matrix M;
  try {
    M = attnlab::parse_npy(bytes, "fuzz.npy");
  } catch (const attnlab::InputError&) {
    return 0;
  }
  FUZZ_CHECK(M.rows() > 0 && M.cols() > 0 && M.allFinite());
  const attnlab::Matrix again = attnlab::parse_npy(attnlab::npy_bytes(M), "again.npy");
  FUZZ_CHECK(again == M);
  return 0;
}
