// Fuzzes the option parsers (--mask, --normalizer, --temperature, --range, --link, --ablate, --ablation) with the same text: each either
// accepts it, giving a value that prints back to a form it accepts again, or throws InputError.
#include "engine/attention/attention.hpp"
#include "engine/figures/figure.hpp"
#include "engine/attention/mask.hpp"
#include "engine/model/head_links.hpp"
#include "engine/model/interventions.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const std::string_view text = fuzz::input_text(data, size);
  fuzz::unless_refused([&] {
    const Mask mask = parse_mask_spec(text, "--mask");
    FUZZ_CHECK(mask.param >= 0);
    FUZZ_CHECK(parse_mask_spec(mask_spec(mask), "--mask") == mask);
    // Validation against small sizes must only ever throw InputError.
    for (Eigen::Index n : {1, 3}) {
      fuzz::unless_refused([&] {
        validate_mask(mask, n, n + 1, "--mask");
        const BlockGrid g = mask_grid(mask, n, n + 1);
        for (Eigen::Index i = 0; i < n; ++i) {
          Eigen::Index first = 0, last = 0;
          mask.visible_range(i, n + 1, first, last);
          FUZZ_CHECK(0 <= first && first <= last && last <= n + 1);
          for (Eigen::Index j = 0; j < n + 1; ++j) FUZZ_CHECK((g(i, j) == 0) == (first <= j && j < last));
        }
      });
    }
  });
  fuzz::unless_refused([&] { FUZZ_CHECK(normalizer_name(parse_normalizer(text, "--normalizer")) == text); });
  fuzz::unless_refused([&] {
    const double t = parse_positive_number(text, "--temperature");
    FUZZ_CHECK(t > 0 && std::isfinite(t));
  });
  fuzz::unless_refused([&] {
    const auto [lo, hi] = parse_range(text, "--range");
    FUZZ_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi);
  });
  fuzz::unless_refused([&] {
    const std::pair<int, int> link = model::parse_link(text, "--link");
    const int query = link.first, key = link.second;  // clang 14 cannot capture a structured binding
    FUZZ_CHECK(query >= 0 && key >= 0);
    // Against a short text: in range and causal, or InputError.
    fuzz::unless_refused([&] {
      model::check_link(query, key, 4, "--link");
      FUZZ_CHECK(key <= query && query < 4);
    });
  });
  fuzz::unless_refused([&] {
    model::ModelConfig c;
    c.n_layer = 3, c.n_head = 4;
    const std::vector<model::HeadIndex> heads = model::parse_heads(text, c, "--ablate");
    FUZZ_CHECK(!heads.empty());
    for (std::size_t i = 0; i < heads.size(); ++i) {
      FUZZ_CHECK(heads[i].layer >= 0 && heads[i].layer < 3 && heads[i].head >= 0 && heads[i].head < 4);
      for (std::size_t j = 0; j < i; ++j) FUZZ_CHECK(!(heads[i] == heads[j]));
    }
  });
  fuzz::unless_refused([&] { FUZZ_CHECK(model::ablation_name(model::parse_ablation(text, "--ablation")) == text); });
  return 0;
}
