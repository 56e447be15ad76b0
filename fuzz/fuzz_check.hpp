// Shared by the fuzz targets: the input as a reader takes it, a reader's one allowed refusal
// (InputError: any other exception reaches libFuzzer as a crash), and FUZZ_CHECK, whose failure
// aborts so that libFuzzer records the input.
#pragma once

#include "engine/attention/matrix.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#define FUZZ_CHECK(cond)                                                             \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)

namespace attnlab::fuzz {

// libFuzzer's bytes as the text (or a file's bytes) a reader takes.
inline std::string_view input_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// What `read()` gives, or nothing when it refuses the input.
template <class Read>
std::optional<std::invoke_result_t<Read&>> read_or_refused(Read read) {
  try {
    return read();
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// Runs `checks` on what a reader gives; a refusal on the way ends them, as it may.
template <class Checks>
void unless_refused(Checks checks) {
  try {
    checks();
  } catch (const InputError&) {
  }
}

// What every matrix reader (.npy, .csv) keeps: `input` is refused, or it gives a non-empty finite
// matrix that `write` turns into bytes `parse` reads back to the same matrix.
inline void check_matrix_round_trip(std::string_view input, std::string_view source,
                                    Matrix (*parse)(std::string_view, std::string_view),
                                    std::string (*write)(const Matrix&)) {
  const std::optional<Matrix> M = read_or_refused([&] { return parse(input, source); });
  if (!M) return;
  FUZZ_CHECK(M->rows() > 0 && M->cols() > 0 && M->allFinite());
  FUZZ_CHECK(parse(write(*M), "again") == *M);
}

}  // namespace attnlab::fuzz
