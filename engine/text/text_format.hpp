// How numbers and symbols are written, for every writer: one rule per use of a number (format_number:
// a heatmap's cell, an axis, LaTeX, a terminal's table, prose, JSON, a lesson's text and report),
// the digits a writer chooses itself (fixed decimals, significant digits, percents, sizes), JSON
// strings, and the symbols (Glyphs) with their ASCII stand-ins. No other file formats a number its
// own way: scripts/check-number-formats fails on a printf-style float conversion, std::to_chars or a
// stream's float manipulators anywhere else (docs/ARCHITECTURE.md, "Numbers").
//
// [SECTION] Numbers by use (format_number)
// [SECTION] Numbers for data: JSON and shortest decimals
// [SECTION] Strings: JSON, one line, quotes, counts
// [SECTION] Digits the writer chooses: fixed, significant, scientific, percents
// [SECTION] Sizes and large counts
// [SECTION] Formats handed to ImGui's widgets
// [SECTION] Symbols (Glyphs) and the minus-infinity choice
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

struct Glyphs;

// [SECTION] Numbers by use (format_number)

// Where a number is written. Each use has one rule, so the same number reads the same everywhere it
// is used that way; infinity is written as each use writes it.
enum class NumberUse {
  // Inside a heatmap's cell (the GUI, figures' annotations): `decimals` below 10, one fewer to 100,
  // none to 1000, then 3 significant digits; never "-0"; −∞, ∞ and NaN.
  Cell,
  // On axes, colour bars and by-step tables: exactly `decimals`, never "-0", a typographic minus
  // (Glyphs::minus: U+2212, or '-' for an ASCII font); −∞, ∞ and NaN.
  Axis,
  // In a LaTeX bmatrix: exactly `decimals`, never "-0"; -\infty, \infty and nan.
  Latex,
  // In a terminal's aligned matrices: `decimals`, or %.3e from 10^6 on and for values that would
  // round to 0; -inf, inf and nan in ASCII.
  Terminal,
  // A statistic or setting quoted in a report (compute --format text): `decimals`, or %.3e from
  // 10^7 on (scores near float32's limit would print 39-digit integers); -inf and inf in ASCII,
  // NaN as "undefined" (the mean of cells at +inf and at -inf).
  Statistic,
  // In a sentence: the course texts' by-hand digits (hand_number); −∞, ∞ and NaN.
  Prose,
  // In JSON and data files: the shortest decimals that read back as the same number; null for
  // infinities and NaN.
  Json,
  // Quoted by a lesson's text without a format of its own ("{name}", engine/io/lesson_template):
  // 4 decimals, dropped when all four are zero ("0.5000", "2"); %.3g from 10^6 on and below 10^-4
  // ("1.23e+06"); −∞, ∞ and NaN as Prose writes them.
  LessonText,
  // A value in `attnlab lesson NAME`'s text report (engine/lessons/lesson_report): 4 decimals;
  // %.4g from 10^6 on and below 10^-3 ("1.235e+06", "5e-05"); "inf", "-inf" and "nan" as printf
  // writes them.
  LessonReport,
};

// `v` written for `use`. `decimals` applies to Cell, Axis, Latex and Terminal; `glyphs` gives Axis
// and Cell their minus and infinity (the default set is Unicode).
std::string format_number(double v, NumberUse use, int decimals = 3);
std::string format_number(double v, NumberUse use, int decimals, const Glyphs& glyphs);

// [SECTION] Numbers for data: JSON and shortest decimals

// Shortest decimal that reads back as the same float ("0.1", "1e+30"); non-finite -> "null".
std::string float_json(float v);
// float_json(v) appended to `out`, for writers of many numbers (no string per number).
void append_float_json(std::string& out, float v);
// Same for doubles.
std::string double_json(double v);
// The shortest decimals that read back as the same float or double, exactly as std::to_chars writes
// them ("0.1", "1e+30", "-0", "inf"): data files whose readers take any number (the export's
// .json values, whose callers write null for the non-finite ones; the dense plans' cache file).
std::string shortest_decimals(float v);
std::string shortest_decimals(double v);
void append_shortest_decimals(std::string& out, float v);

// [SECTION] Strings: JSON, one line, quotes, counts

// A JSON string literal with escapes.
std::string json_string(std::string_view s);
// An error message made safe to print as one terminal line: control characters (newlines
// included) and bytes that are not valid UTF-8, which messages may quote from a damaged file,
// become \xNN escapes.
std::string one_line(std::string_view message);
// `s` in single quotes for an error sentence: its first `max_bytes` bytes ("…" where it goes on)
// as one_line writes them.
std::string in_quotes(std::string_view s, std::size_t max_bytes = 60);
// A count and its noun, singular for one: "1 head", "12 heads" (`noun` in the singular, English "s").
std::string count_of(long long n, std::string_view noun);

// [SECTION] Digits the writer chooses: fixed, significant, scientific, percents
// Where a read-out shows its own digits rather than a use's rule: the GUI's read-outs, the CLI's
// sentences and aligned tables, the benches. "%.2f" is fixed_decimals(v, 2), "%10.3f"
// fixed_decimals(v, 3, 10), "%.3g" significant(v, 3) (three_digits), "%g" significant(v, 6),
// "%.1e" scientific(v, 1), "%5.1f%%" percent(v, 1, 5); a unit after the number is the writer's
// (fixed_decimals(ms, 2) + " ms").

// v with exactly `decimals` digits after the point ("%.*f"): tables and read-outs for people.
std::string fixed_decimals(double v, int decimals);
// The same right-aligned in `width` characters ("%*.*f"): a column of a terminal's table (bench's
// stage lines, compute --format text's rows).
std::string fixed_decimals(double v, int decimals, int width);
// v with at most `decimals` digits after the point, trailing zeros (and a bare point) dropped, never
// "-0": "0.25", "1", "3.5". Infinities as "∞" / "−∞", NaN as "NaN".
std::string trimmed_decimals(double v, int decimals);
// A number the way the course texts work arithmetic by hand: four decimals, trailing zeros dropped
// (0.7071, 1, 2.0281); very large or very small magnitudes in 4 significant digits (1.235e+08).
// Every "explain a cell" and worked example prints with it, so two panels show the same digits.
std::string hand_number(double v);
// A size in binary units at a glance: "512 KiB", "11.8 GiB", "2.3 TiB".
std::string human_bytes(double bytes);
// The same size in decimal units, as the course texts write them: "12.6 GB".
std::string decimal_bytes(double bytes);
// Both: "18.6 GiB (20 GB)", binary units as the machine counts, decimal ones as "13.2 Scaled
// dot-product attention" writes them.
std::string both_units(double bytes);
// A size in one binary unit the writer chooses, with `decimals` fixed digits, so that a column of
// sizes reads in one unit: bytes_in(1536, ByteUnit::KiB, 1) is "1.5 KiB", bytes_in(3 << 29,
// ByteUnit::GiB, 2) is "1.50 GiB" (a KV cache's bytes per token, its bytes at a context length).
enum class ByteUnit { KiB = 1, MiB = 2, GiB = 3 };
std::string bytes_in(double bytes, ByteUnit unit, int decimals);
// A large count in words: "1.07 billion", "16.8 million", "4096".
std::string count_in_words(double v);
// 3 significant digits, "%.3g": a quick read-out ("3.05e-05", "0.125").
std::string three_digits(double v);

// [SECTION] Formats handed to ImGui's widgets
// An ImGui slider, drag or input field formats its value itself from a printf format (and reads
// typed text back by it), so a format string, and only one written here, is what it is given:
// `label` before the number ('%' in it doubled), then `decimals` fixed or `digits` significant
// digits. widget_decimals(3) is "%.3f", widget_significant(3, "T = ") is "T = %.3g".
std::string widget_decimals(int decimals, std::string_view label = {});
std::string widget_significant(int digits, std::string_view label = {});

// [SECTION] Symbols (Glyphs) and the minus-infinity choice
// `digits` significant digits ("%.*g"), and scientific with `digits` after the point ("%.*e"): the
// figures a message quotes ("65504", "3.2e-04").
std::string significant(double v, int digits);
std::string scientific(double v, int digits);
// A percentage `pct` (already times 100) with `decimals` digits, right-aligned in `width` characters
// before the sign: percent(73.14, 1) is "73.1%", percent(5, 0, 3) is "  5%" (a progress line).
std::string percent(double pct, int decimals, int width = 0);
// `s` (a number as written) without the sign of a rounded zero: "-0" and "-0.00" read as a sign
// error, and become "0" and "0.00"; anything else is returned as it is.
std::string unsigned_zero(std::string s);

// [SECTION] Sizes and large counts

// Text for symbols that need a Unicode font (DejaVu Sans); ASCII stand-ins where only a basic font is
// there (the GUI without DejaVu). The default is the Unicode set, as files and the terminal print it.
struct Glyphs {
  const char* sqrt = "√";
  const char* tau = "τ";
  const char* dot = "·";
  const char* times = "×";
  const char* infinity = "∞";
  const char* minus = "−";
  const char* hadamard = "⊙";
  const char* arrow = "→";
  const char* divide = "÷";
  const char* sigma = "σ";
  const char* sum = "Σ";
  const char* transpose = "ᵀ";
  const char* ellipsis = "…";
  const char* ell = "ℓ";
  const char* theta = "θ";
  static Glyphs ascii() {
    return Glyphs{"sqrt", "tau", "*", "x", "inf", "-", "(.)", "->", "/", "sigma", "sum", "^T", "...", "l", "theta"};
  }
};

// A blocked logit's text: "−∞" where the font has the glyphs (`unicode_font`), else "-inf" (ImGui's
// own ASCII font). The heatmaps' blocked cells in the pipeline and the lesson views write it so.
const char* minus_infinity(bool unicode_font);

}  // namespace attnlab
