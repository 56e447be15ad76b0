// A link's URL fragment (the part after '#', docs/WEB.md "Links"): what the browser page opens from
// it, and what File > Share link writes. Plain C++ with no platform in it, so the desktop build
// tests what the page reads (tests/gui/state/share_link_test.cpp); web/web_platform.cpp only moves
// the text between the page's address and these functions.
//
// The fragment is fields joined by '&': one of `preset=NAME` (a built-in lesson) or
// `scenario=<base64url of the scenario JSON>`, then optionally `exercise=SEED` (that lesson's
// exercise drawn from SEED, as `attnlab exercise LESSON --seed SEED`). Other fields are ignored, as
// a fragment the app does not know always was.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnlab::gui {

struct LinkFragment {
  std::string preset;                          // preset=NAME
  std::string scenario_json;                   // scenario=…, decoded
  std::optional<std::uint64_t> exercise_seed;  // exercise=SEED
  // One sentence saying what of the link could not be read, empty when all of it could. What could
  // be read is kept: a bad seed still opens the lesson; a bad scenario opens nothing of the link.
  std::string refused;
};

// Reads a fragment (without its '#'). Never throws: a bad part is said in `refused`.
LinkFragment read_link_fragment(std::string_view fragment);

// The fragment File > Share link writes: `scenario=<base64url>`, with `&exercise=SEED` when an
// exercise is shown. With no exercise it is exactly what the app always wrote.
std::string share_fragment(std::string_view scenario_json, std::optional<std::uint64_t> exercise_seed);

// base64url (RFC 4648 §5) without padding, and back. The decoder also takes '+', '/' and trailing
// '=' (what a plain base64 encoder writes) and throws InputError naming `where` for anything else.
std::string base64url_encode(std::string_view bytes);
std::string base64url_decode(std::string_view text, std::string_view where);

}  // namespace attnlab::gui
