// Fuzzes the GGUF reader (engine/model/gguf_file.hpp, gguf_tokenizer.hpp): any bytes either give a
// header whose data starts inside the file at the alignment, whose tensors each lie inside the file
// at an aligned offset with as many bytes as their type and shape need, and whose metadata reads
// through every typed accessor and into a tokenizer or a sentence, or an InputError. Any other
// exception, crash, leak or sanitizer report is a bug.
#include "engine/attention/matrix.hpp"
#include "engine/model/gguf_file.hpp"
#include "engine/model/gguf_tokenizer.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

using namespace attnlab::model;

void check_tensors(const GgufHeader& h, const std::uint8_t* data, std::size_t size) {
  // A file of no tensors may end before the padding (vocabulary-only files): its data is then empty,
  // at the file's end.
  FUZZ_CHECK(h.data_offset <= size && (h.tensors.empty() || h.data_offset % h.alignment == 0));
  FUZZ_CHECK(h.tensor_order.size() == h.tensors.size());
  for (const auto& [name, t] : h.tensors) {
    FUZZ_CHECK(t.begin <= t.end && t.end <= size - h.data_offset && t.begin % h.alignment == 0);
    FUZZ_CHECK(t.end - t.begin == type_bytes(t.type, static_cast<std::uint64_t>(t.elements())));
    // Converting every element must stay inside the buffer (ASan watches).
    if (t.elements() <= 4096) {
      std::vector<float> out(static_cast<std::size_t>(t.elements()));
      to_floats(t.type, reinterpret_cast<const std::byte*>(data) + h.data_offset + t.begin, t.elements(), out.data());
    }
  }
}

// Every key through the accessor its type calls for, and the tokenizer the metadata describes.
void read_metadata(const GgufHeader& h) {
  const GgufMetadata md(h.metadata, "fuzz.gguf");
  for (const auto& [key, v] : h.metadata) {
    try {
      if (v.type == GgufType::String) md.string(key);
      else if (v.type == GgufType::Bool) md.boolean(key);
      else if (v.type != GgufType::Array) md.number(key), md.integer(key);
      else if (v.element == GgufType::String) md.strings(key);
      else md.numbers(key), md.integers(key);
    } catch (const attnlab::InputError&) {
      // a float read as a whole number, say: a sentence is what is asked for
    }
  }
  try {
    const GgufTokenizer t = gguf_tokenizer(md);
    if (t.tokenizer) t.tokenizer->encode("Hello world, 123 héllo <s>");
  } catch (const attnlab::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  GgufHeader h;
  try {
    h = parse_gguf(bytes, "fuzz.gguf");
  } catch (const attnlab::InputError&) {
    return 0;
  }
  check_tensors(h, data, size);
  read_metadata(h);
  return 0;
}
