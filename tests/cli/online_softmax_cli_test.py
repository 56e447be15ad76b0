#!/usr/bin/python3
"""`attnlab lesson online-softmax --format json` through the real executable (issue 22): every step's
running max m, running sum l, partial output o and rescale recomputed by an independent numpy loop
in float64 from the lesson's own scenario file; the final o / l against the dense output of
`compute`; an edited scenario that moves a row's max into the last tile shows the rescale there; a
scenario the online softmax cannot run is refused with exit 2 and one sentence.

Tolerances come from the scenario's magnitudes (float32's unit roundoff u = 2^-24 times the sizes
of the sums), as tests/support/attention_bounds.hpp derives them for the C++ tests.

Usage: online_softmax_cli_test.py ATTNLAB PRESET_JSON WORK_DIR   (run with /usr/bin/python3, which has numpy)
"""
import copy
import json
import math
import os
import sys

import numpy as np

from cli_checks import Checks, error_lines

ATTNLAB, PRESET, WORK = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
U = 2.0 ** -24


checks = Checks(ATTNLAB, WORK)
run, report, lesson_json = checks.run, checks.report, checks.lesson_json


def gamma(n):
    return n * U / (1 - n * U)


def blocked(mask, n, m):
    i, j = np.arange(n)[:, None], np.arange(m)[None, :]
    kind = mask["kind"]
    if kind == "none":
        return np.zeros((n, m), bool)
    if kind == "causal":
        return j > i
    raise ValueError("this test builds only none and causal masks")


def online_loop(sc, tile):
    """The lesson's steps, from the scenario alone: plain Python loops over tiles and rows, float64."""
    Q, K, V = (np.array(sc[k], dtype=np.float64) for k in ("Q", "K", "V"))
    n, m = Q.shape[0], K.shape[0]
    s = math.sqrt(Q.shape[1]) if sc.get("scale", True) else 1.0
    L = Q @ K.T / (s * sc.get("temperature", 1.0))
    L[blocked(sc["mask"], n, m)] = -np.inf
    mx = [-math.inf] * n
    ell = [0.0] * n
    o = [np.zeros(V.shape[1]) for _ in range(n)]
    steps = []
    for c0 in range(0, m, tile):
        rows = []
        for i in range(n):
            new = max(mx[i], max(L[i, c0:c0 + tile]))
            rescale = None
            if ell[i] > 0:
                rescale = math.exp(mx[i] - new)
                ell[i] *= rescale
                o[i] = o[i] * rescale
            if new > -math.inf:
                for j in range(c0, min(m, c0 + tile)):
                    e = math.exp(L[i, j] - new)
                    ell[i] += e
                    o[i] = o[i] + e * V[j]
            mx[i] = new
            rows.append({"running_max": mx[i], "running_sum": ell[i], "output": o[i].copy(), "rescale": rescale})
        steps.append({"keys": [c0, min(m, c0 + tile) - 1], "rows": rows})
    return steps, L, V


def error_scale(sc):
    """Per row: the largest error of a float32 logit, 2 * (gamma_dk * sum|q k| / (s T) + 2u|L|)."""
    Q, K = (np.array(sc[k], dtype=np.float64) for k in ("Q", "K"))
    s = math.sqrt(Q.shape[1]) if sc.get("scale", True) else 1.0
    mag = np.abs(Q) @ np.abs(K).T
    L = Q @ K.T / (s * sc.get("temperature", 1.0))
    return (2 * gamma(Q.shape[1] + 1) * mag / (s * sc.get("temperature", 1.0)) + 2 * U * np.abs(L)).max(axis=1)


def check_steps(label, sc, report_json):
    tile = sc["lesson"]["tile"]
    steps, L, V = online_loop(sc, tile)
    got = report_json["steps"]
    if len(got) != len(steps):
        report(False, label, f"{len(got)} steps, expected {len(steps)}")
        return
    dl = error_scale(sc)
    g = gamma(L.shape[1] + 2)
    vmax = np.abs(V).max()
    bad = []
    for t, (want, have) in enumerate(zip(steps, got)):
        if have["keys"] != want["keys"]:
            bad.append(f"tile {t + 1}: keys {have['keys']} != {want['keys']}")
        for i, (w, h) in enumerate(zip(want["rows"], have["rows"])):
            where = f"tile {t + 1} row {i + 1}"
            if w["running_max"] == -math.inf:
                if h["running_max"] is not None or h["running_sum"] != 0 or h["rescale"] is not None:
                    bad.append(f"{where}: a row with no key seen yet shows {h}")
                continue
            rel = math.expm1(4 * dl[i] + 2 * U * 20) + g + 2 * U * (t + 1)
            if abs(h["running_max"] - w["running_max"]) > dl[i] + 4 * U * abs(w["running_max"]):
                bad.append(f"{where}: m {h['running_max']} vs {w['running_max']}")
            if abs(h["running_sum"] - w["running_sum"]) > rel * w["running_sum"]:
                bad.append(f"{where}: l {h['running_sum']} vs {w['running_sum']}")
            if np.abs(np.array(h["output"]) - w["output"]).max() > rel * w["running_sum"] * vmax + 1e-12:
                bad.append(f"{where}: o {h['output']} vs {list(w['output'])}")
            if (h["rescale"] is None) != (w["rescale"] is None):
                bad.append(f"{where}: rescale {h['rescale']} vs {w['rescale']}")
            elif w["rescale"] is not None and abs(h["rescale"] - w["rescale"]) > math.expm1(4 * dl[i] + 4 * U) * w["rescale"] + U:
                bad.append(f"{where}: rescale {h['rescale']} vs {w['rescale']}")
    report(not bad, label, "; ".join(bad[:5]))


with open(PRESET, encoding="utf-8") as f:
    preset = json.load(f)

rep = lesson_json("online-softmax")
if rep is not None:
    check_steps("every step's m, l, o and rescale match an independent numpy loop", preset, rep)
    report(rep["tile"] == 4 and len(rep["steps"]) == 3, "6 queries x 12 keys in tiles of 4 keys: three steps",
           f"tile {rep['tile']}, {len(rep['steps'])} steps")
    # The final o / l is the dense pipeline's output, to within float rounding of both.
    code, out, err = run("compute", "--preset", "online-softmax", "--format", "json")
    dense = np.array(json.loads(out)["output"]) if code == 0 else None
    online = np.array(rep["online_output"])
    steps, L, V = online_loop(preset, 4)
    exact = np.array([r["output"] / r["running_sum"] for r in steps[-1]["rows"]])
    bound = (np.exp(4 * error_scale(preset)) - 1 + 2 * gamma(L.shape[1] + 2))[:, None] * np.abs(V).max()
    report(dense is not None and np.all(np.abs(online - dense) <= 2 * bound) and np.all(np.abs(online - exact) <= bound),
           "o / l after the last tile equals the dense output and the exact one",
           f"{err} online {online.tolist()} dense {None if dense is None else dense.tolist()}")
    # Both outputs are printed as their floats' shortest decimals: each within half a float ulp.
    decimals = np.abs(online - np.array(rep["dense_output"])).max()
    report(abs(rep["max_difference"] - decimals) <= 2 * U * np.abs(online).max(),
           "max_difference is the largest |o / l - dense|", f"{rep['max_difference']} vs {decimals}")
    report(rep["scores_held"] == 6 * 4 and rep["dense_scores"] == 6 * 12, "the memory count: 6 x 4 scores against 6 x 12",
           f"{rep['scores_held']} / {rep['dense_scores']}")
    # A tile that raises the max produces the rescale, and only such a tile.
    raised = [(t, i) for t, st in enumerate(steps) for i, r in enumerate(st["rows"])
              if r["rescale"] is not None and t > 0 and r["running_max"] > steps[t - 1]["rows"][i]["running_max"]]
    shown = [(t, i) for t, st in enumerate(rep["steps"]) for i, r in enumerate(st["rows"])
             if r["rescale"] is not None and r["rescale"] < 1]
    report(raised and raised == shown, "a rescale below 1 exactly where a tile raises the row's max", f"{shown} vs {raised}")

# The lesson's "Try": key 10's first number to -3 moves row 4's max into the last tile.
edited = copy.deepcopy(preset)
edited["K"][9][0] = -3
rep2 = lesson_json(checks.write_json("edited.json", edited))
if rep2 is not None:
    check_steps("an edited scenario's steps match the numpy loop too", edited, rep2)
    r = rep2["steps"][2]["rows"][3]
    before = rep["steps"][2]["rows"][3]["rescale"] if rep else None
    report(before == 1 and r["rescale"] is not None and r["rescale"] < 1,
           "the edit that moves row 4's max into tile 3 shows a rescale there", f"before {before}, after {r}")

# Under a causal mask a row's later tiles are blocked: they change nothing.
causal = copy.deepcopy(preset)
causal["mask"] = {"kind": "causal"}
rep3 = lesson_json(checks.write_json("causal.json", causal))
if rep3 is not None:
    check_steps("a causal mask's steps match the numpy loop", causal, rep3)

# Another normalizer: the online softmax is softmax's, so the lesson is refused in one sentence.
sparse = copy.deepcopy(preset)
sparse["normalizer"] = "sparsemax"
code, out, err = run("lesson", checks.write_json("sparse.json", sparse), "--format", "json")
report(code == 2 and not out and err.startswith("attnlab: ") and "sparsemax" in err and len(error_lines(err)) == 1,
       "a sparsemax scenario is refused with exit 2 and one sentence", f"exit {code}: {err!r}")

code, out, err = run("lesson", "online-softmax")
report(code == 0 and "Source: \"13.2 Scaled dot-product attention\", section \"Computational cost\"" in out,
       "the text report cites the course text by its title and section", out[:400] + err)

sys.exit(checks.exit_code())
