// Fuzzes the safetensors header reader: any bytes either give a header whose tensors cover the
// data exactly, in order, each with as many bytes as its dtype and shape need, or an InputError.
// Any other exception, crash, leak or sanitizer report is a bug.
#include "engine/model/safetensors.hpp"
#include "engine/attention/matrix.hpp"
#include "fuzz/fuzz_check.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  attnlab::model::SafetensorsHeader h;
  try {
    h = attnlab::model::parse_safetensors(bytes, "fuzz.safetensors");
  } catch (const attnlab::InputError&) {
    return 0;
  }
  FUZZ_CHECK(h.data_offset >= 8 && h.data_offset <= size);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& [name, t] : h.tensors) {
    FUZZ_CHECK(t.end - t.begin == attnlab::model::type_bytes(t.type, static_cast<std::uint64_t>(t.elements())));
    ranges.emplace_back(t.begin, t.end);
    // Converting every element must stay inside the buffer (ASan watches).
    if (t.elements() <= 4096) {
      std::vector<float> out(static_cast<std::size_t>(t.elements()));
      attnlab::model::to_floats(t.type, reinterpret_cast<const std::byte*>(data) + h.data_offset + t.begin, t.elements(), out.data());
    }
  }
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t at = 0;
  for (const auto& [b, e] : ranges) {
    FUZZ_CHECK(b == at);
    at = e;
  }
  FUZZ_CHECK(at == size - h.data_offset);
  return 0;
}
