// Fuzzes the dense plans' cache file (engine/cpu/dense_plan.hpp), read at every `attnlab bench`
// that calibrates: any bytes parse without throwing, every entry read writes back to text that
// reads back to the same entries, and every plan read names itself again.
#include "engine/cpu/dense_plan.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<PlanCacheEntry> entries = parse_plan_cache(text);
  FUZZ_CHECK(parse_plan_cache(format_plan_cache(entries)) == entries);
  for (const PlanCacheEntry& e : entries) {
    const std::optional<DensePlan> again = parse_dense_plan(e.plan.name());
    FUZZ_CHECK(again && *again == e.plan);
    FUZZ_CHECK(e.ms >= 0);
  }
  if (const std::optional<DensePlan> plan = parse_dense_plan(text)) {
    FUZZ_CHECK(parse_dense_plan(plan->name()) == plan);
  }
  return 0;
}
