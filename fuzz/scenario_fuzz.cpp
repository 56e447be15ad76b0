// Fuzzes the scenario reader: any text either gives a valid scenario that survives a write/read
// round trip and computes without NaN weights, or an InputError. Anything else is a bug. The
// online-softmax lesson runs on every small scenario too (its tile from the lesson object), the
// kv-cache lesson on those that name its view.
#include "engine/attention/attention.hpp"
#include "engine/io/scenario.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/kv_cache.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/online_softmax.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  // Read as a file is opened: io's reader, then every lesson page's fields.
  const auto read = fuzz::read_or_refused([&] {
    Scenario s = parse_scenario(fuzz::input_text(data, size), "fuzz.json");
    check_lesson_fields(s.lesson);
    return s;
  });
  if (!read) return 0;
  const Scenario& s = *read;
  const Scenario again = parse_scenario(scenario_to_json(s), "again.json");
  FUZZ_CHECK(again.Q == s.Q && again.K == s.K && again.V == s.V);
  FUZZ_CHECK(again.title == s.title && again.description == s.description);
  FUZZ_CHECK(again.query_tokens == s.query_tokens && again.key_tokens == s.key_tokens);
  FUZZ_CHECK(again.options.scale == s.options.scale && again.options.temperature == s.options.temperature);
  FUZZ_CHECK(again.options.mask == s.options.mask && again.options.normalizer == s.options.normalizer);
  // Small problems only, so that each run stays fast.
  if (s.Q.size() + s.K.size() + s.V.size() > 4096 || s.Q.rows() * s.K.rows() > 4096) return 0;
  // Scores that overflow float32 to NaN, for one, are reported (refused), not computed.
  const auto computed = fuzz::read_or_refused([&] { return compute_cpu(s.problem()); });
  if (!computed) return 0;
  const Result& r = *computed;
  for (Eigen::Index i = 0; i < r.n; ++i) {
    for (Eigen::Index j = 0; j < r.m; ++j) {
      const float w = r.weights(i, j);
      FUZZ_CHECK(w >= 0.0f && w <= 1.0f);
      FUZZ_CHECK(!std::isnan(r.saturation(i, j)));
      if (s.options.mask.is_blocked(i, j)) FUZZ_CHECK(w == 0.0f);
    }
    const auto& d = r.rows[static_cast<size_t>(i)];
    FUZZ_CHECK(!std::isnan(d.entropy) && !std::isnan(d.effective_keys) && !std::isnan(d.jacobian_norm));
  }
  FUZZ_CHECK(!r.output.array().isNaN().any());
  // Refused for another normalizer, or a score that overflows: the lesson says so instead.
  fuzz::unless_refused([&] {
    const long long tile = online_softmax_params(LessonFields(s.lesson)).tile;
    const OnlineSoftmaxLesson l = online_softmax_lesson(s.problem(), tile, r.output);
    FUZZ_CHECK(static_cast<long long>(l.steps.size()) == (r.m + tile - 1) / tile);
    FUZZ_CHECK(!l.output.array().isNaN().any());
    for (const OnlineSoftmaxStep& st : l.steps) {
      for (const OnlineSoftmaxRow& row : st.rows) FUZZ_CHECK(!row.rescale || (*row.rescale >= 0 && *row.rescale <= 1));
    }
  });
  // The kv-cache lesson's fields (its model, text, prompt, shapes): numbers or one sentence.
  if (s.lesson.view_name == kKvCacheView) {
    fuzz::unless_refused([&] {
      const auto cpu = make_cpu_backend();
      LessonDetail detail;
      detail.measure = false;
      const KvCacheNumbers n = compute_kv_cache(s, r, *cpu, detail);
      FUZZ_CHECK(n.check.largest_difference <= n.check.bound);
      const std::size_t configs = kv_cache_params(LessonFields(s.lesson)).kv_configs.size();
      FUZZ_CHECK(n.exposure.drawn.size() == n.exposure.truth.size() && n.caches.size() == configs + 1);
    });
  }
  return 0;
}
