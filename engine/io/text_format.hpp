// How numbers and symbols are written, for every writer: shortest round-trip floats for files, JSON
// strings, and the numbers people read (by-hand arithmetic, tables, byte sizes).
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

// Shortest decimal that reads back as the same float ("0.1", "1e+30"); non-finite -> "null".
std::string float_json(float v);
// Same for doubles.
std::string double_json(double v);
// A JSON string literal with escapes.
std::string json_string(std::string_view s);
// An error message made safe to print as one terminal line: control characters (newlines
// included) and bytes that are not valid UTF-8, which messages may quote from a damaged file,
// become \xNN escapes.
std::string one_line(std::string_view message);
// v with exactly `decimals` digits after the point ("%.*f"): tables and read-outs for people.
std::string fixed_decimals(double v, int decimals);
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
  static Glyphs ascii() {
    return Glyphs{"sqrt", "tau", "*", "x", "inf", "-", "(.)", "->", "/", "sigma", "sum", "^T", "...", "l"};
  }
};

}  // namespace attnlab
