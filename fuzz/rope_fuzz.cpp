// Fuzzes the "rope" object's reader (engine/attention/rope.hpp): any text either gives settings
// that print back to the same settings, with finite frequencies and rotations that keep a row's
// length, or an InputError. Any other exception, crash or sanitizer report is a bug.
#include "engine/attention/matrix.hpp"
#include "engine/attention/rope.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto r = fuzz::read_or_refused([&] { return parse_rope_settings(fuzz::input_text(data, size), "rope"); });
  if (!r) return 0;
  FUZZ_CHECK(std::isfinite(r->theta) && r->theta > 0);
  const RopeSettings back = parse_rope_settings(rope_settings_json(*r), "again");
  FUZZ_CHECK(back.theta == r->theta && back.scaling.type == r->scaling.type && back.scaling.factor == r->scaling.factor &&
             back.query_positions == r->query_positions && back.key_positions == r->key_positions);
  fuzz::unless_refused([&] {
    const auto f = rope_frequencies(r->theta, r->scaling, 8);
    Matrix x = Matrix::Ones(1, 8);
    const Matrix y = rope_rotated(x, {r->query_positions.empty() ? 3 : r->query_positions.front()}, f);
    FUZZ_CHECK(std::abs(y.norm() - x.norm()) < 1e-4);
  });
  return 0;
}
