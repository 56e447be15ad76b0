"""attnlab model's interventions (docs/CLI.md, "Interventions") against float64 references from
PyTorch primitives with a forward hook on each layer's heads' outputs (gpt2_fixture.py,
family_fixture.py): heads ablated (zero, mean, uniform) or patched from a second text, on random
GPT-2, grouped-K/V Llama and windowed Mistral models, several texts, lengths and heads; every head's
weights downstream and every next-token probability within the float32 bound and 1e-4; the
unchanged model's list; two texts compared head by head; the logit lens at two positions, its last
layer equal to next_token; every bad input answered by exit 2 and one sentence.
Usage: intervention_test.py ATTNLAB WORKDIR"""
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
ABSOLUTE = 1e-4  # the tolerance, on top of the derived bound


class Model:
    """A random model written to a folder with what its reference needs."""

    def __init__(self, name, folder, config, stored, reference, layers, heads, width, window_of):
        self.name, self.folder, self.config, self.stored = name, folder, config, stored
        self.reference, self.L, self.H, self.width, self.window_of = reference, layers, heads, width, window_of
        self.V = config.get("vocab_size")


def gpt2_model(rng):
    folder = os.path.join(WORK, "gpt2")
    config, stored = fx.write_model(folder, seed=int(rng.integers(1 << 30)), n_layer=3, n_head=4, n_embd=32)
    return Model("gpt2", folder, config, stored, lambda ids, **kw: fx.reference_forward(config, stored, ids, **kw), config["n_layer"],
                 config["n_head"], 4 * config["n_embd"], lambda l: 0)


def family_model(rng, name, **kw):
    folder = os.path.join(WORK, name)
    config, tensors = ff.random_family(int(rng.integers(1 << 30)), **kw)
    stored = ff.write_family_model(folder, config, tensors)
    H = config["num_attention_heads"]
    dh = config.get("head_dim") or config["hidden_size"] // H
    width = max(config["hidden_size"], config["intermediate_size"], H * dh)
    return Model(name, folder, config, stored, lambda ids, **kw2: ff.reference_forward(config, stored, ids, **kw2),
                 config["num_hidden_layers"], H, width, lambda l: ff.window_of(config, l))


def visible(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    v = j <= i
    return v & (i - j < window) if window else v


def edit_hook(m, edits, kind, source=None):
    """The reference's forward hook: heads' outputs (and weights, for uniform) replaced as docs/CLI.md
    says. edits: {(layer, head)}; source: [layer] heads × n × d_head outputs of the second text."""
    import torch

    def hook(l, a, v):
        o = a @ v
        for (el, h) in edits:
            if el != l:
                continue
            if kind == "zero":
                o[h] = 0
            elif kind == "mean":
                o[h] = o[h].mean(dim=0, keepdim=True).expand_as(o[h])
            elif kind == "uniform":
                mask = torch.from_numpy(visible(a.shape[-1], m.window_of(l)).astype(np.float64))
                a = a.clone()
                a[h] = mask / mask.sum(dim=1, keepdim=True)
                o[h] = a[h] @ v[h]
            elif kind == "patch":
                o[h] = source[l][h]
        return a, o

    return hook


def recording_hook(store):
    def hook(l, a, v):
        o = a @ v
        store.append(o.clone())
        return a, o

    return hook


def probs_of(tokens, V):
    p = np.zeros(V)
    for t in tokens:
        p[t["id"]] = t["prob"]
    return p


def check_probs(m, mine, ref, magnitude, what):
    b = bound(m.width, m.L + 1, magnitude)
    err = np.abs(mine - ref).max()
    check(err <= ABSOLUTE, f"{what}: next-token probabilities differ from the reference by {err:.3g} > 1e-4")
    return within(mine, ref, b, what)


def check_run(m, ids, args, ref_kwargs, label):
    """attnlab model with `args` against the reference with `ref_kwargs`; the unchanged model's list
    against the plain reference. Returns the worst error over its bound."""
    p = run("model", m.folder, "--ids", ",".join(map(str, ids)), "--top", str(m.V), "--format", "json", *args)
    if p.returncode != 0:
        return 0.0
    out = json.loads(p.stdout)
    att, probs, mags, _, logit_mag = m.reference(ids, **ref_kwargs)
    worst = check_probs(m, probs_of(out["next_token"], m.V), probs, logit_mag, f"{label}: changed")
    for l in range(m.L):
        for h in range(m.H):
            worst = max(worst, within(np.array(out["attention"][l][h]), att[l][h], bound(m.width, l + 1, mags[l][h]), f"{label}: L{l}H{h}"))
    _, clean, _, _, clean_mag = m.reference(ids)
    worst = max(worst, check_probs(m, probs_of(out["clean_next_token"], m.V), clean, clean_mag, f"{label}: clean_next_token"))
    changed = np.abs(probs - clean).max()
    check(changed > 10 * ABSOLUTE, f"{label}: the reference's prediction moved by only {changed:.2g}; the test would not see a no-op")
    return worst


def interventions(m, rng):
    worst = 0.0
    for n in (12, 31):
        ids = [int(x) for x in rng.integers(0, m.V, size=n)]
        other = [int(x) for x in rng.integers(0, m.V, size=n)]
        flat = [(int(rng.integers(m.L)), int(rng.integers(m.H)))]
        several = sorted({(0, int(rng.integers(m.H))), (m.L - 2, int(rng.integers(m.H))), (m.L - 2, int(rng.integers(m.H)))})
        for heads in (flat, several):
            names = ",".join(f"{l}.{h}" for l, h in heads)
            for kind in ("zero", "mean", "uniform"):
                label = f"{m.name} n={n} --ablate {names} --ablation {kind}"
                w = check_run(m, ids, ["--ablate", names, "--ablation", kind], {"hook": edit_hook(m, heads, kind)}, label)
                worst = max(worst, w)
            outputs = []
            m.reference(other, hook=recording_hook(outputs))
            label = f"{m.name} n={n} --patch {names}"
            args = ["--patch", names, "--from-ids", ",".join(map(str, other))]
            worst = max(worst, check_run(m, ids, args, {"hook": edit_hook(m, heads, "patch", outputs)}, label))
        p = run("model", m.folder, "--ids", ",".join(map(str, ids)), "--ablate", "{}.{}".format(*flat[0]), "--format", "json")
        if p.returncode == 0:
            out = json.loads(p.stdout)
            check(out["intervention"] == {"kind": "ablate", "heads": [list(flat[0])], "ablation": "zero"},
                  f"{m.name}: intervention object {out['intervention']}")
    print(f"{m.name}: interventions, worst error / bound = {worst:.3f}")


def comparison(m, rng):
    n = 17
    ids = [int(x) for x in rng.integers(0, m.V, size=n)]
    other = list(ids)
    other[9] = (other[9] + 1) % m.V  # one token changed: the heads before it agree, those after differ
    p = run("model", m.folder, "--ids", ",".join(map(str, ids)), "--compare-ids", ",".join(map(str, other)), "--top", str(m.V), "--format",
            "json")
    if p.returncode != 0:
        return
    out = json.loads(p.stdout)["compare"]
    att_a, _, _, _, _ = m.reference(ids)
    att_b, probs_b, _, _, mag_b = m.reference(other)
    check([t["id"] for t in out["tokens"]] == other, f"{m.name}: compare's tokens")
    check_probs(m, probs_of(out["next_token"], m.V), probs_b, mag_b, f"{m.name}: compare's next_token")
    decided = 0
    for l in range(m.L):
        for h in range(m.H):
            got = out["heads"][l][h]
            diff = np.abs(att_a[l][h] - att_b[l][h]).max()
            check(abs(got["max_abs_diff"] - diff) <= bound(m.width, l + 1, 10) + 1e-6, f"{m.name}: compare L{l}H{h} max_abs_diff {got['max_abs_diff']} vs {diff}")
            # The strongest key, where no row of either text has a near tie that float32 may break otherwise.
            margins = [np.sort(a[l][h][i, : i + 1])[-2:] for a in (att_a, att_b) for i in range(1, n)]
            if all(top - second > 1e-4 for second, top in margins):
                decided += 1
                want = bool((att_a[l][h].argmax(axis=1) != att_b[l][h].argmax(axis=1)).any())
                check(got["argmax_changed"] == want, f"{m.name}: compare L{l}H{h} argmax_changed {got['argmax_changed']}, reference {want}")
    check(decided >= m.L * m.H // 2, f"{m.name}: only {decided} heads without near ties; the argmax check saw too little")


def logit_lens(m, rng):
    n = 14
    ids = [int(x) for x in rng.integers(0, m.V, size=n)]
    for position in (None, 5):
        args = ["--logit-lens"] + (["--position", str(position)] if position is not None else [])
        p = run("model", m.folder, "--ids", ",".join(map(str, ids)), "--top", str(m.V), "--format", "json", *args)
        if p.returncode != 0:
            continue
        out = json.loads(p.stdout)
        at = n - 1 if position is None else position
        lens = {"position": at}
        _, _, _, _, mag = m.reference(ids, lens=lens)
        check(out["logit_lens_position"] == at and [e["layer"] for e in out["logit_lens"]] == list(range(m.L)),
              f"{m.name}: logit_lens layers or position")
        for e in out["logit_lens"]:
            check_probs(m, probs_of(e["top"], m.V), lens["probs"][e["layer"]], mag * 2, f"{m.name}: logit lens L{e['layer']} at {at}")
        if position is None:
            check(out["logit_lens"][-1]["top"] == out["next_token"], f"{m.name}: the lens's last layer is not next_token")


def bad_inputs(m):
    ids = ",".join(map(str, range(6)))
    base = ["model", m.folder, "--ids", ids]
    bad(base + ["--ablate", f"{m.L}.0"], "--ablate", f"layers 0 to {m.L - 1}")
    bad(base + ["--ablate", f"0.{m.H}"], "--ablate", f"heads 0 to {m.H - 1}")
    bad(base + ["--ablate", "1"], "--ablate", "L.H")
    bad(base + ["--ablate", "0.-1"], "--ablate", "L.H")
    bad(base + ["--ablate", ""], "--ablate", "names no head")
    bad(base + ["--ablate", "0.0,"], "--ablate", "empty")
    bad(base + ["--ablate", "0.0,0.0"], "named twice")
    bad(base + ["--ablate", "0.0", "--ablation", "half"], "--ablation", "zero, mean or uniform")
    bad(base + ["--ablation", "mean"], "--ablation", "--ablate")
    bad(base + ["--patch", "0.0"], "--patch", "--from-text")
    bad(base + ["--from-ids", "1,2"], "--patch")
    bad(base + ["--patch", "0.0", "--from-ids", "1,2"], "same token count")
    bad(base + ["--ablate", "0.0", "--patch", "0.1", "--from-ids", ids], "one intervention at a time")
    bad(base + ["--compare-ids", "1,2,3"], "same token count")
    bad(base + ["--compare-ids", f"{m.V},1,2,3,4,5"], "--compare-ids")
    bad(base + ["--logit-lens", "--position", "6"], "--position", "0 to 5")
    bad(base + ["--position", "2"], "--position", "--logit-lens")
    bad(base + ["--ablate", "0.0", "--generate", "2"], "--generate")


def main():
    rng = np.random.default_rng(71)
    os.makedirs(WORK, exist_ok=True)
    models = [gpt2_model(rng), family_model(rng, "llama-gqa", family="llama", n_layer=3, n_head=6, n_kv_head=2),
              family_model(rng, "mistral-window", family="mistral", n_layer=3, n_head=4, n_kv_head=2, d_model=32, sliding_window=5)]
    for m in models:
        interventions(m, rng)
        comparison(m, rng)
        logit_lens(m, rng)
    bad_inputs(models[1])
    finish("interventions, comparisons and the logit lens agree with the hooked references")


if __name__ == "__main__":
    main()
