"""attnlab model --generate N --cache-window W [--cache-sinks S] (docs/CLI.md, docs/MODELS.md "A
cache that forgets") against a float64 reference that applies the same policy its own way: the
reference keeps each position's key before its rotation and turns it at its place in the cache
whenever it is read, where Attention Lab turns its kept keys back as positions are forgotten. On
random GPT-2, grouped-K/V Llama and windowed Mistral models, with and without sinks, past the
models' positions: every written token's probability and its ten candidates' at every step. A bound
that forgets nothing writes what the whole cache writes; bad bounds exit 2 with one sentence.
Usage: bounded_cache_test.py ATTNLAB WORKDIR"""
import json
import os
import sys

import numpy as np

import family_fixture as ff
import gpt2_fixture as fx
from model_checks import bad_input_check, bound, check, finish, runner, within

ATTNLAB, WORK = sys.argv[1], sys.argv[2]
run = runner(ATTNLAB)
bad = bad_input_check(run)


def models(rng):
    folder = os.path.join(WORK, "gpt2")
    config, stored = fx.write_model(folder, seed=int(rng.integers(1 << 30)), n_layer=2, n_head=4, n_embd=32, n_positions=48)
    yield ("gpt2", folder, lambda ids, cache: fx.reference_forward(config, stored, ids, cache=cache), config["n_layer"], 4 * config["n_embd"],
           config["vocab_size"], 48)
    for name, kw in (("llama-gqa", dict(family="llama", n_layer=2, n_head=6, n_kv_head=2, n_ctx=48)),
                     ("mistral-window", dict(family="mistral", n_layer=2, n_head=4, n_kv_head=2, d_model=32, sliding_window=7, n_ctx=48))):
        folder = os.path.join(WORK, name)
        config, tensors = ff.random_family(int(rng.integers(1 << 30)), **kw)
        stored = ff.write_family_model(folder, config, tensors)
        width = max(config["hidden_size"], config["intermediate_size"])
        yield (name, folder, lambda ids, cache, c=config, s=stored: ff.reference_forward(c, s, ids, cache=cache), config["num_hidden_layers"],
               width, config["vocab_size"], 48)


def forget(cache, sinks, window):
    """The policy as the reference applies it: keep the first `sinks` positions and the last `window`."""
    import torch
    m = cache["k"][0].shape[1]
    if m <= sinks + window:
        return
    for key in ("k", "v"):
        cache[key] = [torch.cat([x[:, :sinks], x[:, m - window:]], dim=1) for x in cache[key]]


def check_bounded(name, folder, reference, layers, width, V, prompt, count, sinks, window):
    args = ["model", folder, "--ids", ",".join(map(str, prompt)), "--generate", str(count), "--cache-window", str(window), "--cache-sinks",
            str(sinks), "--seed", "3", "--format", "json"]
    p = run(*args)
    if p.returncode != 0:
        return 0.0
    out = json.loads(p.stdout)
    check(out["cache"] == {"window": window, "sinks": sinks}, f"{name}: cache object {out.get('cache')}")
    check([t["id"] for t in out["tokens"]] == prompt, f"{name}: tokens are not the prompt's")
    generated = out["generated"]
    check(len(generated) == count, f"{name}: {len(generated)} tokens written, wanted {count}")
    cache = {"k": [], "v": []}
    _, probs, _, _, mag = reference(prompt, cache)
    worst = 0.0
    for step, token in enumerate(generated):
        forget(cache, sinks, window)
        b = bound(width, layers + 1, mag)
        label = f"{name} S={sinks} W={window} step {step}"
        worst = max(worst, within([token["model_prob"]], [probs[token["id"]]], b, f"{label}: the written token's probability"))
        ids = [c["id"] for c in token["distribution"]]
        worst = max(worst, within([c["model_prob"] for c in token["distribution"]], probs[ids], b, f"{label}: the candidates' probabilities"))
        _, probs, _, _, mag = reference([token["id"]], cache)
    return worst


def main():
    rng = np.random.default_rng(7171)
    os.makedirs(WORK, exist_ok=True)
    for name, folder, reference, layers, width, V, n_ctx in models(rng):
        prompt = [int(x) for x in rng.integers(0, V, size=18)]
        worst = 0.0
        # Past the model's 48 positions: 18 + 50 tokens through a cache of at most 3 + 12 (+ the one running).
        for sinks, window in ((3, 12), (0, 15), (1, 40)):
            worst = max(worst, check_bounded(name, folder, reference, layers, width, V, prompt, 50 if window < 40 else 20, sinks, window))
        print(f"{name}: bounded generation, worst error / bound = {worst:.3f}")
        # A bound that never forgets writes what the whole cache writes, token for token.
        ids = ",".join(map(str, prompt))
        whole = run("model", folder, "--ids", ids, "--generate", "20", "--seed", "9", "--format", "json")
        kept = run("model", folder, "--ids", ids, "--generate", "20", "--seed", "9", "--cache-window", "40", "--cache-sinks", "0", "--format", "json")
        if whole.returncode == 0 and kept.returncode == 0:
            a, b = json.loads(whole.stdout)["generated"], json.loads(kept.stdout)["generated"]
            check([t["id"] for t in a] == [t["id"] for t in b], f"{name}: a bound that forgets nothing wrote another text")
            check(max(abs(x["model_prob"] - y["model_prob"]) for x, y in zip(a, b)) < 1e-5, f"{name}: its probabilities differ")
    base = ["model", os.path.join(WORK, "llama-gqa"), "--ids", "1,2,3"]
    bad(base + ["--generate", "4", "--cache-window", "0"], "--cache-window 0")
    bad(base + ["--generate", "4", "--cache-window", "4", "--cache-sinks", "-1"], "--cache-sinks -1")
    bad(base + ["--generate", "4", "--cache-window", "40", "--cache-sinks", "8"], "48 (")
    bad(base + ["--cache-window", "4"], "--cache-window", "--generate")
    bad(base + ["--generate", "4", "--cache-sinks", "2"], "--cache-sinks", "--cache-window")
    finish("bounded caches write what the reference's same policy writes")


if __name__ == "__main__":
    main()
