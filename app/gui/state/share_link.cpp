// A link's URL fragment read and written (share_link.hpp).
#include "gui/state/share_link.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/text/text_format.hpp"

#include <charconv>
#include <limits>
#include <vector>

namespace attnlab::gui {

namespace {

constexpr std::string_view kBase64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// The fragment's fields: the text between the '&'s, empty ones left out.
std::vector<std::string_view> link_fields(std::string_view fragment) {
  std::vector<std::string_view> out;
  while (!fragment.empty()) {
    const size_t amp = fragment.find('&');
    const std::string_view field = fragment.substr(0, amp);
    if (!field.empty()) out.push_back(field);
    if (amp == std::string_view::npos) break;
    fragment.remove_prefix(amp + 1);
  }
  return out;
}

// A seed as the command line's --seed takes it: a whole number that fits 64 bits, digits only (no
// sign, no spaces, no exponent: a link is typed or pasted, and "1e3" or "-1" is a mistake).
// Throws InputError with the sentence the page shows.
std::uint64_t link_seed(std::string_view text) {
  const std::string range = "a seed is a whole number from 0 to " + std::to_string(std::numeric_limits<std::uint64_t>::max());
  if (text.empty()) throw InputError("the link's exercise= has no seed: " + range + ", e.g. exercise=7");
  for (const char c : text) {
    if (c < '0' || c > '9') throw InputError("the link's exercise=" + in_quotes(text, 24) + " is not a seed: " + range);
  }
  std::uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw InputError("the link's exercise=" + in_quotes(text, 24) + " is too large: " + range);
  }
  return seed;
}

}  // namespace

LinkFragment read_link_fragment(std::string_view fragment) {
  LinkFragment out;
  std::optional<std::string_view> document;  // the preset= or scenario= field
  std::optional<std::string_view> exercise;   // the exercise= field's value
  for (const std::string_view field : link_fields(fragment)) {
    if (field.starts_with("preset=") || field.starts_with("scenario=")) {
      if (document) {
        out.refused = "the link names two lessons or scenarios (" + in_quotes(document->substr(0, document->find('=') + 1)) + " and " +
                      in_quotes(field.substr(0, field.find('=') + 1)) + "): a link opens one";
        return out;
      }
      document = field;
    } else if (field.starts_with("exercise=")) {
      if (exercise) {
        out.refused = "the link names two exercises (exercise=" + in_quotes(*exercise, 24) + " and " + in_quotes(field, 30) +
                      "): a link opens one";
        exercise.reset();
        break;
      }
      exercise = field.substr(9);
    }
  }
  if (document) {
    try {
      if (document->starts_with("preset=")) {
        out.preset = std::string(document->substr(7));
        if (out.preset.empty()) throw InputError("the link's #preset= names no lesson");
      } else {
        out.scenario_json = base64url_decode(document->substr(9), "the link's #scenario=");
      }
    } catch (const InputError& e) {
      // Nothing of a link whose lesson or scenario cannot be read is opened: its exercise would be
      // another document's.
      out = LinkFragment{};
      out.refused = e.what();
      return out;
    }
  }
  if (!exercise || !out.refused.empty()) return out;
  try {
    const std::uint64_t seed = link_seed(*exercise);
    if (!document) {
      throw InputError("the link's exercise=" + std::to_string(seed) + " names no lesson to draw it from: write #preset=LESSON&exercise=" +
                       std::to_string(seed));
    }
    out.exercise_seed = seed;
  } catch (const InputError& e) {
    out.refused = e.what();
  }
  return out;
}

std::string share_fragment(std::string_view scenario_json, std::optional<std::uint64_t> exercise_seed) {
  std::string out = "scenario=" + base64url_encode(scenario_json);
  if (exercise_seed) out += "&exercise=" + std::to_string(*exercise_seed);
  return out;
}

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16 |
                       static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8 | static_cast<unsigned char>(bytes[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kBase64url[(v >> k) & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    unsigned v = static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kBase64url[(v >> 18) & 63];
    out += kBase64url[(v >> 12) & 63];
    if (rest == 2) out += kBase64url[(v >> 6) & 63];
  }
  return out;
}

std::string base64url_decode(std::string_view text, std::string_view where) {
  std::string out;
  unsigned v = 0;
  int bits = 0;
  size_t k = 0;
  for (; k < text.size() && text[k] != '='; ++k) {
    const char c = text[k];
    const size_t d = kBase64url.find(c == '+' ? '-' : c == '/' ? '_' : c);
    if (d == std::string_view::npos) {
      throw InputError(std::string(where) + ": " + in_quotes(std::string_view(&text[k], 1)) +
                       " is not a base64url character (A-Z, a-z, 0-9, - and _)");
    }
    v = (v << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  // Padding ends the text: nothing but more of it may follow.
  for (; k < text.size(); ++k) {
    if (text[k] != '=') throw InputError(std::string(where) + ": the base64url text goes on after its '=' padding");
  }
  if (bits >= 6) throw InputError(std::string(where) + ": the base64url text is cut short (one character too many or too few)");
  return out;
}

}  // namespace attnlab::gui
