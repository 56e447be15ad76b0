// Hebrew and Arabic as they read on screen. ImGui and Cairo's text calls draw a string's characters
// left to right, one glyph each, so text in a right-to-left script drew backwards and Arabic's
// letters unjoined. visual_order gives the string to draw instead: Arabic letters in their joined
// forms, then each line in display order by the Unicode Bidirectional Algorithm (UAX #9). The GUI
// passes every read-only text through it where it draws it (an editable field keeps typed order:
// ImGui's editing has no bidi), and so do the PNG and PDF figures; SVG keeps typed order, since its
// viewer lays text out itself.
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

// Whether `text` has a character of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko,
// ...). A fast test over the bytes: text without one is drawn as it is.
bool has_right_to_left(std::string_view text);

// `text` in the order and forms to draw it left to right, each line a left-to-right paragraph:
// - Arabic shaping: each letter takes its isolated, initial, medial or final presentation form from
//   the letters it joins (its forms, and so which sides it joins, from Unicode's compatibility
//   decompositions in utf8proc; tatweel and the zero-width joiner join, marks are transparent), and
//   lam followed by alef becomes their ligature;
// - reordering: UAX #9's implicit rules (W1–W7, N1–N2, I1–I2, L1–L2) with Bidi_Class from utf8proc,
//   marks kept after their base (L3), and brackets mirrored in right-to-left runs (L4, the paired
//   brackets of BidiMirroring.txt).
// Explicit embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) are not applied: they
// are boundary neutrals here. Text without a right-to-left character, and bytes that are not valid
// UTF-8, come back as they were.
std::string visual_order(std::string_view text);

}  // namespace attnlab
