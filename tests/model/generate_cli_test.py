"""attnlab model --generate on random GPT-2s and Llama-family models written here (docs/MODELS.md,
"Generation"): greedy generation over the KV cache against a float64 PyTorch reference that runs the
whole forward again at every step (gpt2_fixture.py, family_fixture.py), token for token, with every
draw's probabilities and every head's weights over prompt and written tokens within bounds derived
from the magnitudes; a seed that writes the same text again; top-k and top-p that never draw outside
their sets; --timing's lines; and the bad inputs answered by exit 2 and one sentence.
Usage: generate_cli_test.py ATTNLAB WORKDIR"""
import json
import os
import re
import shutil
import sys

import numpy as np

import family_fixture as ff
import gpt2_fixture as fx
from model_checks import bad_input_check, bound, check, finish, runner, within

ATTNLAB, WORK = sys.argv[1], sys.argv[2]
run = runner(ATTNLAB)
bad = bad_input_check(run)


class Gpt2:
    def __init__(self, name, seed, **sizes):
        self.folder = os.path.join(WORK, name)
        self.config, self.stored = fx.write_model(self.folder, seed=seed, **sizes)
        self.width = self.config["n_embd"] * 4  # the MLP's inner product is the widest
        self.layers = self.config["n_layer"]
        self.ctx = self.config["n_positions"]

    def reference(self, ids):
        att, probs, mags, _, logit_mag = fx.reference_forward(self.config, self.stored, ids)
        return att, probs, mags, logit_mag


class Family:
    def __init__(self, name, seed, dtype="F32", **kw):
        self.folder = os.path.join(WORK, name)
        self.config, tensors = ff.random_family(seed, **kw)
        self.stored = ff.write_family_model(self.folder, self.config, tensors, dtype=dtype)
        c = self.config
        dh = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
        self.width = max(c["hidden_size"], c["intermediate_size"], c["num_attention_heads"] * dh)
        self.layers = c["num_hidden_layers"]
        self.ctx = c["max_position_embeddings"]

    def reference(self, ids):
        att, probs, mags, _, logit_mag = ff.reference_forward(self.config, self.stored, ids)
        return att, probs, mags, logit_mag


def generate(m, ids, count, *flags):
    p = run("model", m.folder, "--ids", ",".join(map(str, ids)), "--generate", str(count), *flags, "--format", "json")
    return json.loads(p.stdout) if p.returncode == 0 else None


def greedy_against_recompute(m, label, prompt, count):
    """Greedy over the cache, step by step against the reference's whole forward: the same token
    (or, where the reference's two best are closer than the bound, either of them), the draw's
    probabilities, and at the end every head's weights over the whole text."""
    out = generate(m, prompt, count, "--temperature", "0")
    if not out:
        return
    written = out["generated"]
    check(len(written) == count, f"{label}: {len(written)} tokens written, wanted {count}")
    ids = list(prompt)
    worst = 0.0
    for step, t in enumerate(written):
        _, probs, _, logit_mag = m.reference(ids)
        b = bound(m.width, m.layers + 1, logit_mag)
        order = np.argsort(-probs, kind="stable")
        if t["id"] != order[0]:
            check(probs[order[0]] - probs[t["id"]] <= 2 * b,
                  f"{label}: step {step} wrote {t['id']} (p {probs[t['id']]:.6g}), the whole forward's best is {order[0]} (p {probs[order[0]]:.6g})")
        check(t["prob"] == 1, f"{label}: greedy's token drawn with probability {t['prob']}")
        for c in [t] + t["distribution"]:
            err = abs(c["model_prob"] - probs[c["id"]])
            worst = max(worst, err / b)
            check(err <= b, f"{label}: step {step} token {c['id']}: model_prob {c['model_prob']} against {probs[c['id']]:.9g} (bound {b:.3g})")
        listed = [c["id"] for c in t["distribution"]]
        check(len(listed) == 10 and sorted(probs[listed], reverse=True) == list(probs[listed]),
              f"{label}: step {step}'s distribution is not the 10 most probable, most probable first")
        check(min(probs[listed]) >= np.sort(probs)[-10] - 2 * b, f"{label}: step {step}'s distribution misses a top-10 token")
        ids.append(t["id"])
    check([x["id"] for x in out["tokens"]] == ids, f"{label}: tokens are not the prompt and the written tokens")
    att, probs, mags, logit_mag = m.reference(ids)
    n = len(ids)
    for l in range(m.layers):
        for h, a in enumerate(out["attention"][l]):
            a = np.array(a, np.float64)
            check(a.shape == (n, n), f"{label}: L{l}H{h} attention is {a.shape}, not prompt and written tokens {n} × {n}")
            worst = max(worst, within(a, att[l][h], bound(m.width, l + 1, mags[l][h]), f"{label}: L{l}H{h} weights over the written text"))
    mine = {t["id"]: t["prob"] for t in out["next_token"]}
    b = bound(m.width, m.layers + 1, logit_mag)
    check(all(abs(p - probs[i]) <= b for i, p in mine.items()), f"{label}: next_token after the written text differs from the reference")
    print(f"{label}: {count} greedy tokens as the whole forward writes them; worst error / bound = {worst:.3f}")


def tempered(probs, T):
    """The reference's distribution at temperature T: p^(1/T), renormalized (in logs)."""
    lp = np.log(np.maximum(probs, 1e-300)) / T
    lp -= lp.max()
    w = np.exp(lp)
    return w / w.sum()


def sampling_sets(m, label, prompt):
    """--top-k and --top-p over 40 seeds never draw outside their sets, computed from the
    reference's probabilities (a token within the bound of the set's edge may fall either way)."""
    _, probs, _, logit_mag = m.reference(prompt)
    b = bound(m.width, m.layers + 1, logit_mag) * 4  # the tempered logits are the model's ÷ T (T ≥ 0.5 here)
    T, k, p = 1.7, 5, 0.6
    q = tempered(probs, T)
    kth = np.sort(q)[-k]
    order = np.argsort(-q, kind="stable")
    cum = np.cumsum(q[order])
    last = order[int(np.searchsorted(cum, p))]  # the least probable token top-p keeps
    drawn_k, drawn_p = set(), set()
    for seed in range(40):
        a = generate(m, prompt, 1, "--temperature", str(T), "--top-k", str(k), "--seed", str(seed))
        c = generate(m, prompt, 1, "--temperature", str(T), "--top-p", str(p), "--seed", str(seed))
        if not a or not c:
            return
        ta, tc = a["generated"][0], c["generated"][0]
        drawn_k.add(ta["id"])
        drawn_p.add(tc["id"])
        check(q[ta["id"]] >= kth - b, f"{label}: --top-k {k} seed {seed} drew {ta['id']}, outside the {k} most probable")
        check(q[tc["id"]] >= q[last] - b, f"{label}: --top-p {p} seed {seed} drew {tc['id']}, outside the set reaching {p}")
        kept = [x for x in ta["distribution"] if x["prob"] > 0]
        check(len(kept) == k and abs(sum(x["prob"] for x in kept) - 1) < 1e-9,
              f"{label}: --top-k {k}'s distribution keeps {len(kept)} tokens summing to {sum(x['prob'] for x in kept)}")
        for x in ta["distribution"][:k]:
            want = q[x["id"]] / q[order[:k]].sum()
            check(abs(x["prob"] - want) <= 4 * b, f"{label}: --top-k token {x['id']} drawn-from prob {x['prob']} against {want:.9g}")
    check(len(drawn_k) > 1 and len(drawn_p) > 1, f"{label}: 40 seeds drew one token only ({drawn_k}, {drawn_p}): the seed is not used")
    print(f"{label}: 40 seeds: top-k {k} drew {sorted(drawn_k)}, top-p {p} drew {sorted(drawn_p)}")


def seeds(m, label, prompt):
    a = generate(m, prompt, 12, "--temperature", "3", "--seed", "7")
    b = generate(m, prompt, 12, "--temperature", "3", "--seed", "7")
    c = generate(m, prompt, 12, "--temperature", "3", "--seed", "8")
    if a and b and c:
        check(a["generated"] == b["generated"], f"{label}: seed 7 wrote two different texts")
        check([t["id"] for t in a["generated"]] != [t["id"] for t in c["generated"]], f"{label}: seeds 7 and 8 wrote the same 12 tokens at T 3")
        for t in a["generated"]:
            d = [x["prob"] for x in t["distribution"]]
            check(abs(t["prob"] - next((x["prob"] for x in t["distribution"] if x["id"] == t["id"]), t["prob"])) < 1e-15,
                  f"{label}: a token's prob differs from its entry in the distribution")
            check(d == sorted(d, reverse=True), f"{label}: a distribution is not most probable first")


def bad_inputs(m):
    ids = "1,2,3,4"
    base = ["model", m.folder, "--ids", ids]
    bad(base + ["--generate", str(m.ctx - 3)], f"--generate {m.ctx - 3}: the text's 4 tokens and {m.ctx - 3} more make {m.ctx + 1}",
        f"write at most {m.ctx - 4}")
    bad(base + ["--generate", "0"], "--generate 0: give how many tokens to write, 1 or more")
    bad(base + ["--generate", "-2"], "--generate -2")
    bad(base + ["--generate", "3", "--temperature", "-0.1"], "--temperature -0.1: give T ≥ 0")
    bad(base + ["--generate", "3", "--top-p", "0"], "--top-p 0: give P in (0, 1]")
    bad(base + ["--generate", "3", "--top-p", "1.01"], "--top-p 1.01: give P in (0, 1]")
    bad(base + ["--generate", "3", "--top-k", "-1"], "--top-k -1: give K ≥ 0")
    bad(base + ["--temperature", "2"], "--temperature goes with --generate N")
    bad(base + ["--seed", "2"], "--seed goes with --generate N")
    # Exactly filling the context is allowed.
    out = generate(m, [1, 2, 3, 4], m.ctx - 4, "--temperature", "0")
    check(out is not None and len(out["tokens"]) == m.ctx, "writing up to the last position was refused")


def text_and_timing(m):
    p = run("model", m.folder, "--text", "the cat sat on the", "--generate", "5", "--seed", "3", "--timing", "--format", "text")
    check("Generated 5 tokens: " in p.stdout, f"text report without the written tokens: {p.stdout[-600:]!r}")
    # Each written token is numbered by its position in the whole text, as the token list numbers it.
    j = json.loads(run("model", m.folder, "--text", "the cat sat on the", "--generate", "5", "--seed", "3", "--format", "json").stdout)
    positions = [int(g[1]) for g in re.finditer(r"^  (\d+)  \d+  model [0-9.]+  drawn at ", p.stdout, re.M)]
    total = len(j["tokens"])
    check(positions == list(range(total - 5, total)), f"written tokens numbered {positions}, not positions {total - 5} to {total - 1}")
    lines = [x for x in p.stderr.splitlines() if x.startswith("timing: ")]
    check(len(lines) == 2 and re.search(r"forward [0-9.]+ ms \(", lines[0]) and
          re.search(r"generated 5 tokens, [0-9.]+ ms a token \(median [0-9.]+ ms\), [0-9.]+ of the prompt's forward; without the cache "
                    r"each would run the whole sequence: [0-9]+ tokens in [0-9.]+ ms, [0-9.]+x a cached token", lines[1]),
          f"--timing lines: {p.stderr!r}")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rng = np.random.default_rng(40)
    gpt2 = Gpt2("gpt2", 401, n_layer=2, n_head=4, n_embd=32, n_positions=48)
    llama = Family("llama-gqa", 402, family="llama", n_kv_head=2, n_ctx=48)
    mistral = Family("mistral-window", 403, dtype="F16", family="mistral", sliding_window=5, n_ctx=48)
    qwen3 = Family("qwen3-one-kv-head", 404, dtype="BF16", family="qwen3", head_dim=12, n_kv_head=1, n_ctx=48)
    for m, label in ((gpt2, "gpt2"), (llama, "llama 6 heads on 2 K/V heads"), (mistral, "mistral window 5"), (qwen3, "qwen3")):
        V = m.config["vocab_size"]
        prompt = [int(x) for x in rng.integers(0, V, size=9)]
        greedy_against_recompute(m, label, prompt, 14)
    sampling_sets(gpt2, "gpt2", [5, 17, 40, 2])
    sampling_sets(llama, "llama", [3, 1, 4, 1, 5])
    seeds(gpt2, "gpt2", [5, 17, 40, 2])
    seeds(qwen3, "qwen3", [9, 2, 6])
    bad_inputs(gpt2)
    bad_inputs(llama)
    text_and_timing(gpt2)
    finish("ok")


if __name__ == "__main__":
    main()
