"""The head detector's scores and `attnlab model --link` against the attention JSON they come from
(docs/MODELS.md, "Head kinds" and "Which heads link two tokens"):
- every head's kind and score recomputed from `attention` with TransformerLens's detection patterns
  built as its head_detector.py builds them (the previous-token pattern as a shifted identity, the
  induction pattern as the duplicate-token pattern rolled one key right with its first column
  cleared, both lower-triangular), each score the pattern's weight over the rows it covers;
- `--link I,J`: `links` holds every head once, ordered by attention[l][h][I][J] (largest first, the
  same numbers), and the text prints the top K;
- bad --link values answered by exit 2 and one sentence.
On a random GPT-2 with a tokenizer (gpt2_fixture.py) and on the built-in induction model.
Usage: head_links_test.py ATTNLAB WORKDIR"""
import json
import math
import os
import random
import shutil
import sys

import numpy as np

import gpt2_fixture as fx
from model_checks import bad_input_check, check, finish, runner

ATTNLAB, WORK = sys.argv[1], sys.argv[2]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
run = runner(ATTNLAB)
bad = bad_input_check(run)


def tl_patterns(ids):
    """TransformerLens's previous-token, first-token (column 0) and induction detection patterns,
    and our self pattern, as n × n 0/1 matrices."""
    n = len(ids)
    previous = np.zeros((n, n))
    previous[1:, :-1] = np.eye(n - 1)
    tokens = np.tile(np.array(ids), (n, 1))
    duplicate = np.equal(tokens, tokens.T).astype(float)
    np.fill_diagonal(duplicate, 0)
    duplicate = np.tril(duplicate)
    induction = np.roll(duplicate, 1, axis=1)
    induction[:, 0] = 0
    induction = np.tril(induction)
    first = np.zeros((n, n))
    first[:, 0] = 1
    self_ = np.eye(n)
    self_[0, 0] = 0
    return {"induction": induction, "previous-token": previous, "first-token": first, "self": self_}


def expected_verdict(A, ids):
    """(kind, score) by docs/MODELS.md's rule from the patterns above: each pattern's score measured
    from what even causal weights (1 / (i + 1) on each visible key) score on the same text."""
    n = len(ids)
    even = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    scores, lift = {}, {}
    for kind, P in tl_patterns(ids).items():
        covered = P.sum(1) > 0
        scores[kind] = float((A * P).sum() / covered.sum()) if covered.any() else 0.0
        chance = float((even * P).sum() / covered.sum()) if covered.any() else 0.0
        lift[kind] = max(0.0, (scores[kind] - chance) / (1 - chance)) if chance < 1 else 0.0
    best = max(lift, key=lambda k: lift[k])  # dict order breaks ties: induction first
    if lift[best] >= 0.4:
        return best, scores[best]
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.nansum(np.where(A > 0, A * np.log(A), 0.0), axis=1)
    broad = float(np.mean([h[i] / math.log(i + 1) for i in range(1, n)]))
    return ("broad", broad) if broad >= 0.75 else ("mixed", scores[best])


kinds_seen = set()


def check_kinds(out, what):
    ids = [t["id"] for t in out["tokens"]]
    for l, layer in enumerate(out["attention"]):
        for h, A in enumerate(layer):
            kind, score = expected_verdict(np.array(A, dtype=np.float64), ids)
            got = out["heads"][l][h]
            kinds_seen.add(got["kind"])
            # The same float32 weights summed in another order: agreement to 1e-5 of a weight.
            close = abs(got["score"] - score) <= 1e-5
            check(got["kind"] == kind or not close, f"{what} L{l}H{h}: kind {got['kind']}, the patterns say {kind} ({score:.6f})")
            check(close, f"{what} L{l}H{h}: score {got['score']:.6f}, the patterns give {score:.6f} ({kind})")


def check_links(model, text_args, query, key, top, what):
    out = json.loads(run("model", model, *text_args, "--link", f"{query},{key}", "--format", "json").stdout or "{}")
    if not out:
        return None
    links = out.get("links", [])
    heads = [(l, h) for l in range(len(out["attention"])) for h in range(len(out["attention"][l]))]
    check(sorted((k["layer"], k["head"]) for k in links) == sorted(heads), f"{what}: links name {len(links)} heads, not each of {len(heads)} once")
    weights = [k["weight"] for k in links]
    check(weights == sorted(weights, reverse=True), f"{what}: links not largest first: {weights}")
    for k in links:
        want = out["attention"][k["layer"]][k["head"]][query][key]
        check(k["weight"] == want, f"{what}: L{k['layer']}H{k['head']} link {k['weight']}, attention[{query}][{key}] {want}")
    text = run("model", model, *text_args, "--link", f"{query},{key}", "--top", str(top)).stdout
    lines = [l.split() for l in text.split("Heads linking", 1)[-1].splitlines()[1:] if l.startswith("  L")]
    check([l[0] for l in lines] == [f"L{k['layer']}H{k['head']}" for k in links[:top]], f"{what}: text lists {lines}, not the top {top}")
    return out


# A random GPT-2 with a tokenizer: --text, several pairs, the scores.
gpt2 = os.path.join(WORK, "gpt2")
fx.write_model(gpt2, seed=35, n_layer=3, n_head=4, n_embd=32)
text = "the cat sat on the mat because the cat was tired"
out = check_links(gpt2, ["--text", text], 9, 1, 5, "random GPT-2")
if out:
    check_kinds(out, "random GPT-2")
    n = len(out["tokens"])
    for q, k in [(n - 1, 0), (n - 1, n - 1), (n // 2, n // 3), (1, 0)]:
        check_links(gpt2, ["--text", text], q, k, 3, f"random GPT-2 ({q},{k})")

# The built-in induction model on a span and its copy, and on a text with repeats inside it.
rng = random.Random(35)
span = [rng.randrange(64) for _ in range(10)]
for ids in (span + span, [3, 1, 3, 3, 7, 1, 9, 3, 1], [3, 1, 4]):
    ids_arg = ["--ids", ",".join(map(str, ids))]
    out = check_links("induction", ids_arg, len(ids) - 1, len(ids) // 2, 2, f"induction on {ids}")
    if out:
        check_kinds(out, f"induction on {ids}")
# On the span and its copy the induction head links the last token of the copy to the copy's first.
out = json.loads(run("model", "induction", "--ids", ",".join(map(str, span + span)), "--link", "19,10", "--format", "json").stdout)
check(out["links"][0]["layer"] == 1 and out["links"][0]["weight"] > 0.5, f"induction: the top link 19 → 10 is {out['links'][0]}")


# Either order names the same pair, as a click on either cell does in the Model window: the later
# token is the query.
swapped, ordered = (json.loads(run("model", "induction", "--ids", "1,2,3,4,5", "--link", v, "--format", "json").stdout)["links"]
                    for v in ("1,4", "4,1"))
check(swapped == ordered, f"--link 1,4 ranks the heads as --link 4,1 does: {swapped[:2]} against {ordered[:2]}")

for value, needle in [("9,0", "tokens 0 to 4"), ("1", "a query and a key"), ("a,b", "--link"),
                      ("1,2,3", "--link"), ("-1,0", "--link"), ("", "--link"), ("99999999999,0", "--link")]:
    bad(["model", "induction", "--ids", "1,2,3,4,5", "--link", value], needle)

# The checks above met patterns of every scored kind, not only one.
check(kinds_seen >= {"induction", "previous-token", "first-token"}, f"the texts showed only the kinds {sorted(kinds_seen)}")
print("kinds checked against the patterns:", sorted(kinds_seen))
finish("ok")
