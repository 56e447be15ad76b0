// Fuzzes the shard index reader (model.safetensors.index.json): any text either gives a non-empty
// map whose every file is a plain .safetensors name beside the index (no folder part, nothing that
// climbs out of the model folder), or an InputError. Any other exception, crash or sanitizer
// report is a bug.
#include "engine/attention/matrix.hpp"
#include "engine/model/weight_files.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attnlab::fuzz::unless_refused([&] {
    const auto map = attnlab::model::parse_shard_index(attnlab::fuzz::input_text(data, size), "model.safetensors.index.json");
    FUZZ_CHECK(!map.empty());
    for (const auto& [tensor, file] : map) {
      FUZZ_CHECK(file.size() > 12 && file.compare(file.size() - 12, 12, ".safetensors") == 0);
      FUZZ_CHECK(file.find('/') == std::string::npos && file.find('\\') == std::string::npos && file.front() != '.');
    }
  });
  return 0;
}
