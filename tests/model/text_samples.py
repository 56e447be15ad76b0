"""Seeded strings for the tokenizer tests (tokenizer_json_test.py, gguf_reference_test.py): pools
of ASCII words, contractions, digits, whitespace, punctuation, code, NFD and accented text, CJK
and emoji, long runs, and short strings drawn from where pre-tokenizers part easily. generate()
mixes them, with the tokenizer's own special tokens and near misses of them."""
import random

# Pools for the generator, kept to what the references agree on (docs/MODELS.md): whitespace that
# JavaScript's \s and PCRE2's Unicode \s both match (not U+0085, U+180E, U+FEFF); characters old
# enough for every Unicode table involved (PCRE2 10.42's Unicode 14, utf8proc's 15, node's ICU);
# no 'ſ' after an apostrophe (PCRE2's caseless (?i:'s) takes it, the references' [sS] does not).
ASCII_WORDS = ["hello", "world", "The", "quick", "brown", "fox", "attention", "is", "all", "you", "need", "x", "I", "a",
               "token", "Tokenizer", "naive", "HTTP", "camelCase", "snake_case", "don", "well-known", "e.g."]
CONTRACTIONS = ["don't", "DON'T", "I'LL", "WE'VE", "THEY'RE", "SHE'S", "I'M", "HE'D", "It'S", "we'Re", "'s", "'T", "''",
                "rock'n'roll", "O'CLOCK", "'LL", "'Ve"]
DIGITS = ["0", "7", "42", "123", "1234", "1234567", "12345678901234567890", "3.14159", "1,000,000", "2026", "000000",
          "9" * 40, "v1.2.3", "0x1F"]
OTHER_NUMBERS = ["٣٤", "½", "⁴", "Ⅻ"]  # \p{N} but not JavaScript's \d
SPACES = [" ", "  ", "   ", "      ", "\t", "\n", "\n\n", "\n\n\n", " \n ", "\r\n", "\t\t", " \t\n", "\u00a0", "\u3000",
          "\u2003"]
PUNCT = [".", ",", "!", "?", "...", "--", "(", ")", "\"", "#", "$%", "@", "::", "—", "«»", "…", "->", "<", ">", "|", "<>"]
CODE = ["def f(x):\n    return x ** 2\n", "if (a != b) { y = a[i]; }", "#include <stdio.h>", "for i in range(10):",
        "x += 1  // comment", "SELECT * FROM t WHERE id = 3;", "fn main() -> i32 {}", "    indented\n\tand tabbed",
        "<div class=\"x\">", "a_b-c.d/e", "==>", "{\"key\": [1, 2]}"]
NFD = ["cafe\u0301", "nai\u0308ve", "A\u030angstro\u0308m", "e\u0300", "n\u0303", "Ze\u0301e\u0301", "o\u0302\u0323"]
ACCENTED = ["café", "naïve", "Ærøskøbing", "São", "Zürich", "œuvre", "Ελληνικά", "русский", "ñandú", "Đà Nẵng"]
CJK = ["漢字", "かな", "カタカナ", "한국어", "中文字符", "日本語の文", "ㄅㄆ", "我爱你。", "東京タワー"]
EMOJI = ["👍", "👍🏽", "👨‍👩‍👧", "🎉", "❤️", "🇫🇷", "😀😀", "🤖 bot", "🙂"]
POOLS = {"ascii": ASCII_WORDS, "contractions": CONTRACTIONS, "digits": DIGITS, "whitespace": SPACES, "punctuation": PUNCT,
         "code": CODE, "nfd": NFD, "accented": ACCENTED, "cjk": CJK, "emoji": EMOJI}
LONG = ["a" * 10000, "ab" * 3000, " " * 2000, "1" * 3000, "\n" * 500, "漢" * 2000, "😀" * 500, "x y " * 1000]
# Short strings drawn character by character from where pre-tokenizers disagree most easily:
# contractions' edges, case-folded letters (K, the Kelvin sign), controls and separators the two
# regex engines both count as space or both do not, combining marks next to letters.
TRICKY = list("aAbZ's tTlLdD09 ") + ["  ", "\n", "\r\n", "\t", "\u2028", "\u2029", "\u00a0", "\u000b", "\u000c", "\u001c", "\u212a",
                                       "\u0301", "é", "😀", "漢", "'", "'S", "'ll", "'RE"]


def generate(count, seed, specials, numbers):
    """count seeded strings, each a mix of the pools with one in focus (specials and near misses
    of them join the mix), and as many short ones drawn from TRICKY and the specials."""
    rng = random.Random(seed)
    pools = dict(POOLS, digits=DIGITS + numbers, specials=specials + [s[:-1] for s in specials] + [" " + s for s in specials])
    names = sorted(pools)
    out = []
    for i in range(count):
        focus = pools[names[i % len(names)]]
        parts = []
        for _ in range(rng.randint(1, 8)):
            parts.append(rng.choice(focus if rng.random() < 0.6 else pools[rng.choice(names)]))
            if rng.random() < 0.6:
                parts.append(rng.choice([" ", " ", "", rng.choice(SPACES)]))
        out.append("".join(parts))
    edges = ["", " ", "   ", "\n", "a", " a", "a ", "a  b", "  leading", "trailing  ", "x\n\ny", "\t\tt", "Hello world",
             " Hello world", "Hello, my dog is cute"]
    tricky = ["".join(rng.choice(TRICKY + specials) for _ in range(rng.randint(1, 12))) for _ in range(count)]
    return out + edges + specials + ["".join(specials)] + LONG + tricky
