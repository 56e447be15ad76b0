#!/usr/bin/python3
"""RoPE as a stage of the lab and the `rope` and `gqa` lessons, through the real executable.

- `compute --rope THETA` on seeded random Q and K of several sizes, widths and bases against an
  independent numpy rotation in float64 (Hugging Face's rotate-half convention: pair i is (i, i + d/2),
  frequency theta^(-2i/d)): rotated_q, rotated_k and the scores.
- Shifting every position (--rope-offset) leaves every score within float32 rounding; --no-rope on
  a scenario with a "rope" object gives plain Q K^T; an odd d_k with RoPE is refused in one sentence.
- A scenario's llama3 rope_scaling against the formula.
- `lesson rope --format json`: the shifted scores, the same-pair grid (constant along each diagonal),
  the frequencies and the aligned vectors' decay, each against numpy.
- `lesson gqa --format json`: multi-head is the G = H variant exactly, every head's weights are a
  causal softmax, the heads of a group read one K/V head, and the KV cache bytes follow from the
  lesson file's configs; a K/V count that does not divide the heads is refused.

Bounds come from the magnitudes: float32's unit roundoff u = 2^-24 times the sizes of the sums.

Usage: rope_gqa_cli_test.py ATTNLAB PRESETS_DIR WORK_DIR
"""
import copy
import json
import math
import os
import sys

import numpy as np

from cli_checks import Checks, error_lines

ATTNLAB, PRESETS, WORK = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
U = 2.0 ** -24
checks = Checks(ATTNLAB, WORK)
run, report, lesson_json = checks.run, checks.report, checks.lesson_json


def frequencies(theta, d, scaling=None):
    f = theta ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    if scaling and scaling.get("rope_type") == "llama3":
        factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        wavelength = 2 * math.pi / f
        smooth = (old / wavelength - low) / (high - low)
        scaled = np.where(wavelength > old / low, f / factor, f)
        mid = (wavelength <= old / low) & (wavelength >= old / high)
        return np.where(mid, (1 - smooth) * f / factor + smooth * f, scaled)
    return f


def rotate(X, positions, f):
    h = X.shape[1] // 2
    a = np.outer(positions, f)
    c, s = np.cos(a), np.sin(a)
    x1, x2 = X[:, :h], X[:, h:]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=1)


def bound(Qr, Kr):
    """A float32 score of rotated rows: the rotation's rounding and the product's, per cell."""
    d = Qr.shape[1]
    return 8 * (d + 4) * U * (np.abs(Qr) @ np.abs(Kr).T) + 1e-30


def compute_json(*args):
    code, out, err = run("compute", *args, "--format", "json")
    if code != 0:
        report(False, "compute " + " ".join(args), err)
        return None
    return json.loads(out)


def arr(v):
    return np.array([[np.nan if x is None else x for x in row] for row in v], dtype=np.float64)


rng = np.random.default_rng(20261126)

# Random problems: sizes, widths and bases the lesson was not written for.
for n, m, d, theta in [(1, 1, 2, 10000.0), (5, 7, 8, 10.0), (17, 17, 64, 10000.0), (9, 33, 16, 1e6), (40, 3, 128, 500000.0)]:
    Q = rng.normal(size=(n, d)).astype(np.float32)
    K = rng.normal(size=(m, d)).astype(np.float32)
    V = rng.normal(size=(m, 3)).astype(np.float32)
    for name, M in (("q", Q), ("k", K), ("v", V)):
        np.save(os.path.join(WORK, f"{name}.npy"), M)
    r = compute_json("--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--rope", repr(theta))
    if r is None:
        continue
    f = frequencies(theta, d)
    Qr, Kr = rotate(Q.astype(np.float64), np.arange(n), f), rotate(K.astype(np.float64), np.arange(m), f)
    label = f"n={n} m={m} d_k={d} theta={theta:g}"
    rot_err = max(np.max(np.abs(arr(r["rotated_q"]) - Qr) / (4 * U * (np.abs(Q).max() + 1e-30) * 2)),
                  np.max(np.abs(arr(r["rotated_k"]) - Kr) / (4 * U * (np.abs(K).max() + 1e-30) * 2)))
    report(rot_err <= 1, f"{label}: rotated Q and K match numpy's rotate-half", f"worst error {rot_err:.3g} of its bound")
    S = arr(r["scores"])
    report(np.all(np.abs(S - Qr @ Kr.T) <= bound(Qr, Kr)), f"{label}: the scores are the rotated rows' products",
           f"worst {np.max(np.abs(S - Qr @ Kr.T)):.3g}")
    shifted = compute_json("--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--rope", repr(theta), "--rope-offset", "1000")
    if shifted is not None:
        change = np.abs(arr(shifted["scores"]) - S)
        report(np.all(change <= 2 * bound(Qr, Kr)), f"{label}: every position + 1000 leaves every score",
               f"largest change {change.max():.3g}")

# An odd d_k is refused with one sentence.
np.save(os.path.join(WORK, "q3.npy"), rng.normal(size=(4, 3)).astype(np.float32))
code, out, err = run("compute", "--q", "q3.npy", "--k", "q3.npy", "--v", "q3.npy", "--rope", "10000")
report(code == 2 and not out and len(error_lines(err)) == 1 and "odd" in err, "an odd d_k with --rope is refused in one sentence",
       f"exit {code}: {err!r}")

# The rope lesson's scenario: --no-rope gives plain Q K^T.
rope_preset = json.load(open(os.path.join(PRESETS, "rope.json"), encoding="utf-8"))
Q, K = np.array(rope_preset["Q"]), np.array(rope_preset["K"])
plain = compute_json(os.path.join(PRESETS, "rope.json"), "--no-rope")
if plain is not None:
    P = Q.astype(np.float32).astype(np.float64) @ K.astype(np.float32).astype(np.float64).T
    report("rotated_q" not in plain and np.all(np.abs(arr(plain["scores"]) - P) <= bound(Q, K)),
           "--no-rope on a scenario with a rope object gives plain Q K^T")

# llama3 scaling from the scenario's rope object.
scaled = copy.deepcopy(rope_preset)
scaling = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
           "original_max_position_embeddings": 8}
scaled["rope"] = {"theta": 500000, "scaling": scaling, "query_positions": [0, 3, 9, 20, 50, 100],
                  "key_positions": [1, 2, 3, 4, 5, 6]}
r = compute_json(checks.write_json("llama3.json", scaled))
if r is not None:
    f = frequencies(500000.0, Q.shape[1], scaling)
    Qr = rotate(Q.astype(np.float32).astype(np.float64), np.array([0, 3, 9, 20, 50, 100]), f)
    Kr = rotate(K.astype(np.float32).astype(np.float64), np.arange(1, 7), f)
    S = arr(r["scores"])
    report(np.all(np.abs(S - Qr @ Kr.T) <= bound(Qr, Kr)), "llama3 rope_scaling and explicit positions follow the formula",
           f"worst {np.max(np.abs(S - Qr @ Kr.T)):.3g}")


lesson = lesson_json("rope")
if lesson is not None:
    d = Q.shape[1]
    theta = rope_preset["rope"]["theta"]
    f = frequencies(theta, d)
    Q32, K32 = Q.astype(np.float32).astype(np.float64), K.astype(np.float32).astype(np.float64)
    shift = lesson["shift"]
    Qs, Ks = rotate(Q32, np.arange(6) + shift, f), rotate(K32, np.arange(6) + shift, f)
    report(np.all(np.abs(arr(lesson["shifted_scores"]) - Qs @ Ks.T) <= bound(Qs, Ks)),
           "rope lesson: the shifted scores match numpy")
    report(0 <= lesson["max_shift_change"] <= lesson["rounding_bound"],
           "rope lesson: the shift changes no score past float32 rounding",
           f"{lesson['max_shift_change']} > {lesson['rounding_bound']}")
    G = arr(lesson["same_pair_scores"])
    grid = lesson["grid"]
    ref = np.array([[rotate(Q32[:1], [i], f) @ rotate(K32[:1], [j], f).T for j in range(grid)] for i in range(grid)])[:, :, 0, 0]
    report(G.shape == (grid, grid) and np.all(np.abs(G - ref) <= 8 * (d + 4) * U * np.abs(Q32[0]).sum() * np.abs(K32[0]).sum() * 2),
           "rope lesson: the same-pair grid matches numpy")
    spread = max(np.ptp(np.diagonal(G, k)) for k in range(-grid + 1, grid))
    report(abs(spread - lesson["max_diagonal_spread"]) <= 1e-6 * (1 + spread) and spread < 1e-4 * np.abs(G).max(),
           "rope lesson: each diagonal of the grid holds one score", f"spread {spread}")
    got_f = np.array([x["frequency"] for x in lesson["frequencies"]])
    report(np.allclose(got_f, f, rtol=1e-12), "rope lesson: the frequencies are theta^(-2i/d)")
    fe = frequencies(theta, lesson["envelope_d_k"])
    worst = max(abs(x["aligned"] - 2 * np.cos(x["distance"] * fe).sum() / lesson["envelope_d_k"]) for x in lesson["distances"])
    report(worst < 1e-9 and lesson["distances"][0]["aligned"] == 1.0 and lesson["distances"][-1]["aligned"] < 0.5,
           "rope lesson: aligned vectors' score starts at 1 and decays with distance", f"worst {worst}")
    text = " ".join(lesson["text"]["look_at"]) if "text" in lesson else ""
    report("d_h-dimensional Q/K subspace" in text and "—" not in text,
           "rope lesson: the text quotes the course text and fills every number", text[:300])

gqa = lesson_json("gqa")
gqa_preset = json.load(open(os.path.join(PRESETS, "gqa.json"), encoding="utf-8"))
if gqa is not None:
    H = gqa["heads"]
    kinds = [v["kind"] for v in gqa["variants"]]
    report(kinds == ["multi-head", "grouped-query", "multi-query"], "gqa lesson: multi-head, grouped and multi-query", str(kinds))
    report(gqa["variants"][0]["max_weight_change"] == 0 and gqa["variants"][0]["max_output_change"] == 0,
           "gqa lesson: G = H is multi-head attention exactly")
    ok = True
    for v in gqa["variants"]:
        per = H // v["kv_heads"]
        for h, head in enumerate(v["heads"]):
            A = arr(head["weights"])
            n = A.shape[0]
            upper = np.triu(np.ones((n, n), bool), 1)
            ok &= head["kv_head"] == h // per and np.all(A[upper] == 0) and np.all(np.abs(A.sum(1) - 1) <= 8 * n * U)
    report(ok, "gqa lesson: head h reads K/V head h / (H/G), and every map is a causal softmax")
    report(gqa["variants"][2]["max_weight_change"] > 0, "gqa lesson: sharing K/V changes the weights")
    ok = len(gqa["kv_cache"]) == len(gqa_preset["lesson"]["kv_configs"])
    for row, cfg in zip(gqa["kv_cache"], gqa_preset["lesson"]["kv_configs"]):
        ok &= row["bytes_per_token"] == 2 * cfg["layers"] * cfg["kv_heads"] * cfg["head_dim"] * 2
        ok &= row["mha_bytes_per_token"] == 2 * cfg["layers"] * cfg["heads"] * cfg["head_dim"] * 2
        ok &= row["context_bytes"] == row["bytes_per_token"] * gqa["context_tokens"]
    report(ok, "gqa lesson: the KV cache's bytes follow from each config (K and V, every layer, bfloat16)")
    text = " ".join(gqa["text"]["look_at"])
    report("Llama 3.2 1B" in text and "32 KiB" in text and "128 KiB" in text and "—" not in text,
           "gqa lesson: the text quotes Llama 3.2 1B's 32 KiB against 128 KiB per token", text[-300:])

bad = copy.deepcopy(gqa_preset)
bad["lesson"]["kv_heads"] = [3]
code, out, err = run("lesson", checks.write_json("bad_gqa.json", bad), "--format", "json")
report(code == 2 and not out and len(error_lines(err)) == 1 and "divide" in err,
       "gqa lesson: a K/V count that does not divide the heads is refused in one sentence", f"exit {code}: {err!r}")

sys.exit(checks.exit_code())
