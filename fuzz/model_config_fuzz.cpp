// Fuzzes config.json's reader for every family: any text either gives a config whose sizes fit
// together (heads in equal K/V groups, an even head width with rotary positions, finite rotary
// frequencies, every query head's group a K/V head) or an InputError. Any other exception, crash
// or sanitizer report is a bug.
#include "engine/attention/matrix.hpp"
#include "engine/model/model_config.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  using namespace attnlab::model;
  fuzz::unless_refused([&] {
    const ModelConfig c = parse_model_config(fuzz::input_text(data, size), "config.json");
    FUZZ_CHECK(c.n_layer > 0 && c.n_head > 0 && c.n_kv_head > 0 && c.d_model > 0 && c.d_head > 0 && c.d_ff > 0 && c.n_ctx > 0 &&
               c.vocab_size > 0);
    FUZZ_CHECK(c.n_head % c.n_kv_head == 0);
    for (int h = 0; h < c.n_head; ++h) FUZZ_CHECK(c.kv_group(h) >= 0 && c.kv_group(h) < c.n_kv_head);
    FUZZ_CHECK(c.sliding_window >= 0 && c.first_window_layer >= 0);
    if (c.positions == PositionKind::Rope) {
      FUZZ_CHECK(c.d_head % 2 == 0);
      for (double f : rope_frequencies(c.rope_theta, c.rope_scaling, c.d_head)) FUZZ_CHECK(std::isfinite(f) && f >= 0);
    } else {
      FUZZ_CHECK(c.d_head * c.n_head == c.d_model);
    }
  });
  return 0;
}
