// Right-to-left text as it reads on screen (bidi.hpp): Arabic shaping, then UAX #9's implicit
// reordering, line by line. Character properties from utf8proc (libutf8proc-dev).
#include "engine/text/bidi.hpp"

#include "engine/text/utf8.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

// One character of a line: its code point (U+FFFD for a byte that starts no valid character), the
// bytes it was read from, and whether shaping replaced it.
struct Unit {
  char32_t cp = 0;
  std::string_view bytes;
  bool changed = false;
  int original = 0;  // Bidi_Class (utf8proc's numbering)
  int type = 0;      // the class as the rules resolve it
  int level = 0;     // even: drawn left to right; odd: right to left
};

constexpr int L = UTF8PROC_BIDI_CLASS_L, R = UTF8PROC_BIDI_CLASS_R, AL = UTF8PROC_BIDI_CLASS_AL,
              EN = UTF8PROC_BIDI_CLASS_EN, ES = UTF8PROC_BIDI_CLASS_ES, ET = UTF8PROC_BIDI_CLASS_ET,
              AN = UTF8PROC_BIDI_CLASS_AN, CS = UTF8PROC_BIDI_CLASS_CS, NSM = UTF8PROC_BIDI_CLASS_NSM,
              BN = UTF8PROC_BIDI_CLASS_BN, B = UTF8PROC_BIDI_CLASS_B, S = UTF8PROC_BIDI_CLASS_S,
              WS = UTF8PROC_BIDI_CLASS_WS, ON = UTF8PROC_BIDI_CLASS_ON;

// The valid UTF-8 character at s[i]: its length and code point; length 0 where none starts there.
std::pair<std::size_t, char32_t> next_char(std::string_view s, std::size_t i) {
  const std::size_t len = utf8_char_length(s, i);
  return {len, len ? utf8_code_point(s, i, len) : char32_t{0}};
}

const utf8proc_property_t& property(char32_t cp) { return *utf8proc_get_property(static_cast<utf8proc_int32_t>(cp)); }

int bidi_class(char32_t cp) {
  const int c = property(cp).bidi_class;
  switch (c) {
    // Explicit embeddings, overrides and isolates are not applied (bidi.hpp).
    case UTF8PROC_BIDI_CLASS_LRE: case UTF8PROC_BIDI_CLASS_LRO: case UTF8PROC_BIDI_CLASS_RLE:
    case UTF8PROC_BIDI_CLASS_RLO: case UTF8PROC_BIDI_CLASS_PDF: case UTF8PROC_BIDI_CLASS_LRI:
    case UTF8PROC_BIDI_CLASS_RLI: case UTF8PROC_BIDI_CLASS_FSI: case UTF8PROC_BIDI_CLASS_PDI:
      return BN;
    case 0: return L;  // unassigned
    default: return c;
  }
}

// ---- Arabic shaping (logical order) ----------------------------------------------------------

enum Form { kIsolated, kFinal, kInitial, kMedial };

// A letter's presentation forms (0: none) and, for an alef, its ligature with a lam before it.
struct Forms {
  std::array<char32_t, 4> form{};
  std::array<char32_t, 2> lam_ligature{};  // isolated, final
};

// The full compatibility decomposition of one code point.
std::u32string nfkd(char32_t cp) {
  utf8proc_int32_t buf[8];
  int boundclass = 0;
  const auto options = static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
  const utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), buf, 8, options, &boundclass);
  std::u32string out;
  for (utf8proc_ssize_t i = 0; i < std::min<utf8proc_ssize_t>(n, 8); ++i) out.push_back(static_cast<char32_t>(buf[i]));
  return out;
}

// Every Arabic letter's forms, read from the presentation-form blocks' decompositions (U+FB50–
// U+FDFF, then U+FE70–U+FEFF, whose forms are preferred where both have one): the form is the
// decomposition's type (<isolated>, <final>, <initial>, <medial>), the letter the base character
// with the same decomposition. A lam–alef ligature decomposes to U+0644 and an alef's decomposition.
const std::unordered_map<char32_t, Forms>& arabic_forms() {
  static const std::unordered_map<char32_t, Forms> table = [] {
    std::map<std::u32string, char32_t> base_of;
    for (auto [first, last] : {std::pair<char32_t, char32_t>{0x0600, 0x06FF}, {0x0750, 0x077F}, {0x08A0, 0x08FF}})
      for (char32_t cp = first; cp <= last; ++cp)
        if (property(cp).category == UTF8PROC_CATEGORY_LO) base_of.emplace(nfkd(cp), cp);
    std::unordered_map<char32_t, Forms> forms;
    for (auto [first, last] : {std::pair<char32_t, char32_t>{0xFB50, 0xFDFF}, {0xFE70, 0xFEFF}}) {
      for (char32_t cp = first; cp <= last; ++cp) {
        int form;
        switch (property(cp).decomp_type) {
          case UTF8PROC_DECOMP_TYPE_ISOLATED: form = kIsolated; break;
          case UTF8PROC_DECOMP_TYPE_FINAL: form = kFinal; break;
          case UTF8PROC_DECOMP_TYPE_INITIAL: form = kInitial; break;
          case UTF8PROC_DECOMP_TYPE_MEDIAL: form = kMedial; break;
          default: continue;
        }
        const std::u32string d = nfkd(cp);
        if (const auto letter = base_of.find(d); letter != base_of.end()) {
          forms[letter->second].form[static_cast<std::size_t>(form)] = cp;
        } else if (d.size() >= 2 && d[0] == 0x0644 && d[1] == 0x0627 && form <= kFinal) {
          if (const auto alef = base_of.find(d.substr(1)); alef != base_of.end())
            forms[alef->second].lam_ligature[static_cast<std::size_t>(form)] = cp;
        }
      }
    }
    return forms;
  }();
  return table;
}

// Joining types (Unicode's ArabicShaping.txt), as far as drawing needs them: a letter with an
// initial or medial form joins on both sides, one with a final form only on the side before it.
enum class Joining { None, Transparent, Causing, Dual, Right };

Joining joining(char32_t cp) {
  if (cp == 0x0640 || cp == 0x200D) return Joining::Causing;  // tatweel, zero-width joiner
  const int category = property(cp).category;
  if (cp != 0x200C && (category == UTF8PROC_CATEGORY_MN || category == UTF8PROC_CATEGORY_ME || category == UTF8PROC_CATEGORY_CF))
    return Joining::Transparent;
  const auto& table = arabic_forms();
  const auto it = table.find(cp);
  if (it == table.end()) return Joining::None;
  const auto& f = it->second.form;
  if (f[kInitial] || f[kMedial]) return Joining::Dual;
  return f[kFinal] ? Joining::Right : Joining::None;
}

void shape_arabic(std::vector<Unit>& units) {
  const std::size_t n = units.size();
  std::vector<Joining> join(n);
  for (std::size_t i = 0; i < n; ++i) join[i] = joining(units[i].cp);
  const auto& table = arabic_forms();
  std::vector<bool> dropped(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    if (join[i] != Joining::Dual && join[i] != Joining::Right) continue;
    std::size_t prev = i, next = i + 1;
    while (prev > 0 && join[prev - 1] == Joining::Transparent) --prev;
    while (next < n && join[next] == Joining::Transparent) ++next;
    const bool joins_before = prev > 0 && (join[prev - 1] == Joining::Dual || join[prev - 1] == Joining::Causing);
    const bool joins_after = join[i] == Joining::Dual && next < n &&
                             (join[next] == Joining::Dual || join[next] == Joining::Right || join[next] == Joining::Causing);
    const Forms& f = table.at(units[i].cp);
    char32_t shaped = 0;
    // Lam and the alef right after it: one ligature, joined only on the side before the lam.
    if (units[i].cp == 0x0644 && i + 1 < n) {
      const auto alef = table.find(units[i + 1].cp);
      if (alef != table.end()) shaped = alef->second.lam_ligature[joins_before ? kFinal : kIsolated];
      if (shaped) dropped[i + 1] = true;
    }
    if (!shaped) shaped = f.form[joins_before ? (joins_after ? kMedial : kFinal) : (joins_after ? kInitial : kIsolated)];
    if (shaped) {
      units[i].cp = shaped;
      units[i].changed = true;
    }
    if (i + 1 < n && dropped[i + 1]) ++i;  // the alef is in the ligature
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!dropped[i]) units[kept++] = units[i];
  units.resize(kept);
}

// ---- UAX #9 for one left-to-right paragraph (paragraph level 0, sos = eos = L) ---------------

// The direction a resolved type counts as for neutrals (N1): numbers count as R.
int strong_direction(int type) { return type == L ? L : R; }

// The opening and closing brackets of Unicode's BidiBrackets.txt that text is likely to hold.
constexpr std::pair<char32_t, char32_t> kBrackets[] = {
    {'(', ')'}, {'[', ']'}, {'{', '}'}, {0x3008, 0x3009}, {0x300A, 0x300B}, {0x300C, 0x300D}, {0x300E, 0x300F}, {0x3010, 0x3011}};

// N0 over the characters the rules see (`u`, boundary neutrals left out): the bracket pairs found as
// BD16 finds them (a stack of 63 openers), each pair in the order of its opening bracket set to L
// when it encloses left-to-right text, else to R when it encloses right-to-left text and R is the
// strong direction before it; marks right after a changed bracket follow it.
void resolve_brackets(std::vector<Unit*>& u) {
  const std::size_t n = u.size();
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::vector<std::pair<char32_t, std::size_t>> openers;  // the closing bracket wanted, where it opened
  const auto find_pairs = [&] {
    for (std::size_t i = 0; i < n; ++i) {
      if (u[i]->type != ON) continue;
      for (auto [open, close] : kBrackets) {
        if (u[i]->cp == open) {
          if (openers.size() == 63) return;  // the stack is full: no more pairs in this line
          openers.emplace_back(close, i);
        } else if (u[i]->cp == close) {
          for (std::size_t k = openers.size(); k-- > 0;) {
            if (openers[k].first != close) continue;
            pairs.emplace_back(openers[k].second, i);
            openers.resize(k);
            break;
          }
        }
      }
    }
  };
  find_pairs();
  std::sort(pairs.begin(), pairs.end());
  for (auto [open, close] : pairs) {
    bool left = false, right = false;
    for (std::size_t k = open + 1; k < close; ++k) {
      const int t = u[k]->type;
      left |= t == L;
      right |= t == R || t == EN || t == AN;
    }
    int direction;
    if (left) {
      direction = L;
    } else if (right) {
      direction = L;
      for (std::size_t k = open; k-- > 0;) {
        const int t = u[k]->type;
        if (t == L || t == R || t == EN || t == AN) {
          direction = t == L ? L : R;
          break;
        }
      }
    } else {
      continue;
    }
    for (std::size_t at : {open, close}) {
      u[at]->type = direction;
      for (std::size_t k = at + 1; k < n && u[k]->original == NSM; ++k) u[k]->type = direction;
    }
  }
}

void resolve_levels(std::vector<Unit>& units) {
  std::vector<Unit*> u;  // X9: boundary neutrals take no part
  for (Unit& x : units)
    if (x.original != BN) u.push_back(&x);
  const std::size_t n = u.size();
  const auto t = [&](std::size_t i) -> int& { return u[i]->type; };
  for (std::size_t i = 0; i < n; ++i) t(i) = u[i]->original;
  // W1: a mark takes the type of the character before it.
  for (std::size_t i = 0; i < n; ++i)
    if (t(i) == NSM) t(i) = i == 0 ? L : t(i - 1);
  // W2, W3: European digits after Arabic letters are Arabic numbers; AL is R.
  int last_strong = L;
  for (std::size_t i = 0; i < n; ++i) {
    if (t(i) == L || t(i) == R || t(i) == AL) last_strong = t(i);
    else if (t(i) == EN && last_strong == AL) t(i) = AN;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (t(i) == AL) t(i) = R;
  // W4: one separator between two numbers of a kind joins them.
  for (std::size_t i = 1; i + 1 < n; ++i) {
    if (t(i) == ES && t(i - 1) == EN && t(i + 1) == EN) t(i) = EN;
    else if (t(i) == CS && t(i - 1) == t(i + 1) && (t(i - 1) == EN || t(i - 1) == AN)) t(i) = t(i - 1);
  }
  // W5: terminators next to European digits belong to the number.
  for (std::size_t i = 0; i < n;) {
    if (t(i) != ET) { ++i; continue; }
    std::size_t end = i;
    while (end < n && t(end) == ET) ++end;
    if ((i > 0 && t(i - 1) == EN) || (end < n && t(end) == EN))
      for (std::size_t k = i; k < end; ++k) t(k) = EN;
    i = end;
  }
  // W6, W7: other separators are neutral; European digits after left-to-right text are L.
  last_strong = L;
  for (std::size_t i = 0; i < n; ++i) {
    if (t(i) == ES || t(i) == ET || t(i) == CS) t(i) = ON;
    if (t(i) == L || t(i) == R) last_strong = t(i);
    else if (t(i) == EN && last_strong == L) t(i) = L;
  }
  // N0: a pair of brackets takes the direction of what it encloses.
  resolve_brackets(u);
  // N1, N2: neutrals between two of one direction take it, the rest the paragraph's (L).
  const auto neutral = [](int type) { return type == B || type == S || type == WS || type == ON; };
  for (std::size_t i = 0; i < n;) {
    if (!neutral(t(i))) { ++i; continue; }
    std::size_t end = i;
    while (end < n && neutral(t(end))) ++end;
    const int before = i == 0 ? L : strong_direction(t(i - 1)), after = end == n ? L : strong_direction(t(end));
    for (std::size_t k = i; k < end; ++k) t(k) = before == after ? before : L;
    i = end;
  }
  // I1: levels at paragraph level 0.
  for (std::size_t i = 0; i < n; ++i) u[i]->level = t(i) == L ? 0 : t(i) == R ? 1 : 2;
  // A boundary neutral draws beside the character before it.
  int level = 0;
  for (Unit& x : units) {
    if (x.original == BN) x.level = level;
    level = x.level;
  }
  // L1: segment separators, and whitespace before them or at the end of the line, at level 0.
  bool trailing = true;
  for (std::size_t k = units.size(); k-- > 0;) {
    const int c = units[k].original;
    if (c == S) {
      units[k].level = 0;
      trailing = true;
    } else if (trailing && (c == WS || c == BN)) {
      units[k].level = 0;
    } else {
      trailing = false;
    }
  }
}

// The paired brackets of BidiMirroring.txt that a right-to-left run draws mirrored (L4).
char32_t mirrored(char32_t cp) {
  static constexpr std::pair<char32_t, char32_t> kPairs[] = {
      {'(', ')'}, {'[', ']'}, {'{', '}'}, {'<', '>'}, {0x00AB, 0x00BB}, {0x2039, 0x203A}, {0x2264, 0x2265}};
  for (auto [a, b] : kPairs) {
    if (cp == a) return b;
    if (cp == b) return a;
  }
  return cp;
}

// L2–L4: from the highest level down to 1, each run at that level or above reversed, a mark (and a
// zero-width joiner or non-joiner) kept after the character it follows where both are at one level.
std::vector<Unit> reorder(std::vector<Unit> units) {
  std::vector<std::vector<Unit>> clusters;
  for (Unit& x : units) {
    const bool attached = x.original == NSM || x.original == BN;
    if (attached && !clusters.empty() && clusters.back().back().level == x.level) clusters.back().push_back(x);
    else clusters.push_back({x});
  }
  int highest = 0;
  for (const auto& c : clusters) highest = std::max(highest, c.front().level);
  for (int level = highest; level >= 1; --level) {
    for (std::size_t i = 0; i < clusters.size();) {
      if (clusters[i].front().level < level) { ++i; continue; }
      std::size_t end = i;
      while (end < clusters.size() && clusters[end].front().level >= level) ++end;
      std::reverse(clusters.begin() + static_cast<std::ptrdiff_t>(i), clusters.begin() + static_cast<std::ptrdiff_t>(end));
      i = end;
    }
  }
  std::vector<Unit> out;
  for (auto& c : clusters) {
    for (Unit& x : c) {
      if (x.level % 2 == 1 && mirrored(x.cp) != x.cp) {
        x.cp = mirrored(x.cp);
        x.changed = true;
      }
      out.push_back(x);
    }
  }
  return out;
}

void append_line(std::string& out, std::vector<Unit>& line) {
  shape_arabic(line);
  resolve_levels(line);
  for (const Unit& x : reorder(std::move(line))) {
    if (x.changed) append_utf8(out, x.cp);
    else out.append(x.bytes);
  }
  line.clear();
}

}  // namespace

bool has_right_to_left(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) { ++i; continue; }
    const auto [len, cp] = next_char(text, i);
    if (len == 0) { ++i; continue; }
    const int c = bidi_class(cp);
    if (c == R || c == AL || c == AN) return true;
    i += len;
  }
  return false;
}

std::string visual_order(std::string_view text) {
  if (!has_right_to_left(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  std::vector<Unit> line;
  for (std::size_t i = 0; i < text.size();) {
    const auto [len, cp] = next_char(text, i);
    Unit x;
    x.bytes = text.substr(i, std::max<std::size_t>(len, 1));
    x.cp = len ? cp : char32_t{0xFFFD};
    x.original = len ? bidi_class(x.cp) : ON;
    i += x.bytes.size();
    if (x.original == B) {  // a paragraph ends: it is drawn as it is, and the next starts afresh
      append_line(out, line);
      out.append(x.bytes);
    } else {
      line.push_back(x);
    }
  }
  append_line(out, line);
  return out;
}

}  // namespace attnlab
