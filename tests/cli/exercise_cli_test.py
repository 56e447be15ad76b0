"""Exercises (issue 70) through the real attnlab, against numpy written here from the contract.

For every built-in lesson and seeds 1 to 20 (`attnlab exercise LESSON --seed S --format json`):
  - the row parts (scores_row, logits_row, weights_row, output_row), argmax_key, blocked and matrix
    parts are recomputed from `given` alone (Q, K, V, scale, temperature, mask, normalizer, rope) and
    the grader accepts them, rounded to the part's decimals as a student writes them; the grade's
    `expected` equals numpy's; every other part's expected answer, sent back, is accepted too;
  - for each mistake that applies to a row or argmax part, the mistaken answer is built here from
    `given` and sent rounded: the grader names that mistake, or the first of the documented order
    that gives the same numbers, or calls it right where rounding makes it so; none is ever named
    for a part it cannot explain;
  - the promises of an exercise: on a logits, weights or output row, no_scaling (and divided_by_dk
    with scaling on, no_temperature with T != 1, no_mask and mask_after_softmax on a row with a
    blocked key and two seen ones, wrong_axis with two queries or more, transposed on a square
    problem) is more than one unit of the last decimal away from the right answer and from each
    other promised mistake's, so that the grader can name every one of them;
  - the same seed gives the same exercise; malformed answers exit 2 with one line naming the part.

Usage: exercise_cli_test.py ATTNLAB WORKDIR
"""

import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import Checks  # noqa: E402

ORDER = ["no_scaling", "divided_by_dk", "no_temperature", "no_mask", "mask_after_softmax", "wrong_axis", "transposed"]
ROW_KINDS = {"scores_row", "logits_row", "weights_row", "output_row"}
SEEDS = range(1, 21)


# ---- The numbers, from the contract ---------------------------------------------------------------

def blocked_grid(mask, n, m):
    kind = mask["kind"]
    grid = np.zeros((n, m), dtype=bool)
    for i in range(n):
        for j in range(m):
            if kind == "causal":
                grid[i, j] = j > i
            elif kind == "padding":
                grid[i, j] = j >= mask["valid"]
            elif kind == "prefix":
                grid[i, j] = j >= mask["prefix"] and j > i
            elif kind == "window":
                grid[i, j] = j > i or i - j >= mask["size"]
            elif kind == "custom":
                grid[i, j] = bool(mask["blocked"][i][j])
    return grid


def rotate(X, positions, theta):
    """Rotary positions: pair (t, t + d/2) of row r turned by positions[r] * theta^(-2t/d)."""
    d = X.shape[1]
    half = d // 2
    f = theta ** (-2.0 * np.arange(half) / d)
    out = X.copy()
    for r, p in enumerate(positions):
        a = p * f
        out[r, :half] = X[r, :half] * np.cos(a) - X[r, half:] * np.sin(a)
        out[r, half:] = X[r, half:] * np.cos(a) + X[r, :half] * np.sin(a)
    return out


def givens(g):
    Q, K, V = (np.array(g[k], dtype=np.float64) for k in ("Q", "K", "V"))
    if g.get("rope"):
        rope = g["rope"]
        Q = rotate(Q, rope.get("query_positions", list(range(len(Q)))), rope.get("theta", 10000.0))
        K = rotate(K, rope.get("key_positions", list(range(len(K)))), rope.get("theta", 10000.0))
    return Q, K, V, blocked_grid(g["mask"], len(Q), len(K))


def normalize(x, normalizer):
    """One row (or column) of logits, -inf for blocked keys."""
    seen = np.isfinite(x)
    w = np.zeros_like(x)
    if not seen.any():
        return w
    if normalizer == "softmax":
        e = np.exp(x[seen] - x[seen].max())
        w[seen] = e / e.sum()
    elif normalizer == "sparsemax":
        z = np.sort(x[seen])[::-1]
        k = np.arange(1, len(z) + 1)
        support = k[1 + k * z > np.cumsum(z)].max()
        tau = (z[:support].sum() - 1) / support
        w[seen] = np.maximum(x[seen] - tau, 0)
    else:
        raise ValueError(normalizer)
    return w


def stages(g, mistake=None, transposed_output=False):
    """scores, logits, weights, output of the given, with one mistake made (or none)."""
    Q, K, V, grid = givens(g)
    d = Q.shape[1]
    S = Q @ K.T
    if mistake == "transposed":
        S = K @ Q.T
    s = np.sqrt(d) if g["scale"] else 1.0
    if mistake == "no_scaling":
        s = 1.0 if g["scale"] else np.sqrt(d)
    if mistake == "divided_by_dk":
        s = float(d)
    T = 1.0 if mistake == "no_temperature" else g["temperature"]
    L = S / (s * T)
    if mistake not in ("no_mask", "mask_after_softmax"):
        L = np.where(grid, -np.inf, L)
    if mistake == "wrong_axis":
        A = np.stack([normalize(L[:, j], g["normalizer"]) for j in range(L.shape[1])], axis=1)
    else:
        A = np.stack([normalize(L[i], g["normalizer"]) for i in range(L.shape[0])])
    if mistake == "mask_after_softmax":
        A = np.where(grid, 0.0, A)
    O = A.T @ V if transposed_output else A @ V
    return S, L, A, O


def part_answer(st, kind, row):
    S, L, A, O = st
    if kind == "argmax_key":
        return int(np.argmax(A[row]))
    M = {"scores_row": S, "logits_row": L, "weights_row": A, "output_row": O}[kind]
    return [float(v) if np.isfinite(v) else None for v in M[row]]


def possible(g, mistake):
    """Whether a student can make `mistake` on this given at all."""
    Q, K, _, grid = givens(g)
    return {
        "no_scaling": Q.shape[1] > 1,
        "divided_by_dk": g["scale"] and Q.shape[1] > 1,
        "no_temperature": g["temperature"] != 1,
        "no_mask": bool(grid.any()),
        "mask_after_softmax": bool(grid.any()),
        "wrong_axis": True,
        "transposed": len(Q) == len(K),
    }[mistake]


def reaches(kind, mistake):
    if kind == "scores_row":
        return mistake == "transposed"
    if kind == "logits_row":
        return mistake not in ("mask_after_softmax", "wrong_axis")
    return True


def variants(g, kind, row, mistake):
    """Every way of making `mistake` on this part: output rows have two transpositions."""
    out = [part_answer(stages(g, mistake), kind, row)]
    if kind == "output_row" and mistake == "transposed":
        out.append(part_answer(stages(g, None, transposed_output=True), kind, row))
    return out


def rounded(v, decimals):
    if isinstance(v, list):
        return [None if x is None else round(x, decimals) for x in v]
    return v if isinstance(v, int) else round(v, decimals)


def sendable(p, v):
    """A value as a student sends it for part p: rounded to its decimals (keys and cells as they are)."""
    if p["kind"] in ("argmax_key", "blocked"):
        return v
    if p["kind"] == "matrix":
        return [rounded(r, p["decimals"]) for r in v]
    return rounded(v, p["decimals"])


def matches(a, e, kind, decimals):
    """The contract's rule: within half a unit of the last decimal (a hair over, for float error)."""
    if kind == "argmax_key":
        return a == e
    if kind == "blocked":
        return {tuple(c) for c in a} == {tuple(c) for c in e}
    flat_a = np.array(a, dtype=object).ravel().tolist() if isinstance(a, list) else [a]
    flat_e = np.array(e, dtype=object).ravel().tolist() if isinstance(e, list) else [e]
    if len(flat_a) != len(flat_e):
        return False
    for x, y in zip(flat_a, flat_e):
        if (x is None) != (y is None):
            return False
        if x is not None and abs(x - y) > 0.5 * 10.0 ** -decimals + 1e-9 * max(1.0, abs(y)):
            return False
    return True


def clearly_differs(a, e, decimals):
    return any((x is None) != (y is None) or (x is not None and abs(x - y) > 10.0 ** -decimals + 1e-9)
               for x, y in zip(a, e))


def promised(g, kind, row):
    """The mistakes an exercise promises to tell apart from the right answer on a row part."""
    if kind == "scores_row":
        return ["transposed"] if possible(g, "transposed") else []
    if kind not in ("logits_row", "weights_row", "output_row"):
        return []
    _, _, _, grid = givens(g)
    hidden, seen = int(grid[row].sum()), int((~grid[row]).sum())
    out = []
    for m in ORDER:
        ok = possible(g, m) and reaches(kind, m)
        if m in ("no_mask", "mask_after_softmax"):
            ok = ok and hidden > 0 and seen >= 2
        if m == "wrong_axis":
            ok = ok and len(g["Q"]) > 1 and kind != "logits_row"
        if ok:
            out.append(m)
    return out


# ---- The runs -------------------------------------------------------------------------------------

class ExerciseChecks(Checks):
    def exercise(self, lesson, seed):
        code, out, err = self.run("exercise", lesson, "--seed", str(seed), "--format", "json")
        if code != 0:
            self.report(False, f"exercise {lesson} --seed {seed} runs", err)
            return None
        return json.loads(out)

    def grade(self, lesson, seed, parts, label):
        path = self.write_json("answer.json", {"parts": parts})
        code, out, err = self.run("exercise", lesson, "--seed", str(seed), "--answer", path, "--format", "json")
        if code != 0:
            self.report(False, label + ": graded (exit 0)", err)
            return None
        return json.loads(out)


def reference(ex):
    """What numpy says each part it can compute should be: {id: value}."""
    g = ex["given"]
    right = stages(g)
    out = {}
    for p in ex["parts"]:
        if p["kind"] in ROW_KINDS or p["kind"] == "argmax_key":
            out[p["id"]] = part_answer(right, p["kind"], p["row"])
        elif p["kind"] == "blocked":
            _, _, _, grid = givens(g)
            out[p["id"]] = [[int(i), int(j)] for i, j in zip(*np.nonzero(grid))]
        elif p["kind"] == "matrix":
            out[p["id"]] = right[0].tolist()
    return out


def check_expected(c, lesson, seed, ex, tally):
    """numpy's answers, rounded, are right; every part's expected answer sent back is right."""
    ref = reference(ex)
    answers = {}
    for p in ex["parts"]:
        if p["id"] in ref:
            answers[p["id"]] = sendable(p, ref[p["id"]])
        else:
            answers[p["id"]] = 0 if p["shape"] == [] else [0] * p["shape"][0]
    grade = c.grade(lesson, seed, answers, f"{lesson} seed {seed}")
    if grade is None:
        return None
    expected = {p["id"]: p["expected"] for p in grade["parts"]}
    for p, gp in zip(ex["parts"], grade["parts"]):
        if p["id"] not in ref:
            continue
        tally["recomputed"] += 1
        ok = gp["correct"] and matches(ref[p["id"]], gp["expected"], p["kind"], 9)
        if not ok:
            c.report(False, f"{lesson} seed {seed} part {p['id']} ({p['kind']}): numpy's answer is the grader's",
                     f"numpy {ref[p['id']]}, graded {gp}")
    back = {p["id"]: sendable(p, expected[p["id"]]) for p in ex["parts"]}
    again = c.grade(lesson, seed, back, f"{lesson} seed {seed}, expected sent back")
    if again is not None and again["score"] != again["of"]:
        c.report(False, f"{lesson} seed {seed}: every expected answer sent back is right", json.dumps(again)[:600])
    return expected


def expected_diagnosis(g, p, sent, expected):
    """What the grader must say of `sent`: right, the first mistake in the order that explains it, or arithmetic."""
    if matches(sent, expected, p["kind"], p["decimals"]):
        return None
    for m in ORDER:
        if possible(g, m) and reaches(p["kind"], m):
            if any(matches(sent, v, p["kind"], p["decimals"]) for v in variants(g, p["kind"], p["row"], m)):
                return m
    return "arithmetic"


def check_mistakes(c, lesson, seed, ex, expected, tally):
    g = ex["given"]
    graded = [p for p in ex["parts"] if p["kind"] in ROW_KINDS or p["kind"] == "argmax_key"]
    for m in ORDER:
        for variant in (0, 1):
            answers = {p["id"]: sendable(p, expected[p["id"]]) for p in ex["parts"]}
            made = {}
            for p in graded:
                if not (possible(g, m) and reaches(p["kind"], m)):
                    continue
                vs = variants(g, p["kind"], p["row"], m)
                if variant < len(vs):
                    made[p["id"]] = rounded(vs[variant], p["decimals"])
            if not made:
                continue
            answers.update(made)
            grade = c.grade(lesson, seed, answers, f"{lesson} seed {seed} {m}")
            if grade is None:
                continue
            for p, gp in zip(ex["parts"], grade["parts"]):
                if p["id"] not in made:
                    continue
                want = expected_diagnosis(g, p, made[p["id"]], expected[p["id"]])
                got = None if gp["correct"] else gp["diagnosis"]
                tally["mistakes"] += 1
                if want is not None:
                    tally["named"].add((p["kind"], want))
                if got != want:
                    c.report(False, f"{lesson} seed {seed} part {p['id']} ({p['kind']}) with {m}: the grader says {want}",
                             f"sent {made[p['id']]}, expected {expected[p['id']]}, graded {gp['diagnosis']}")


def check_promises(c, lesson, seed, ex, tally):
    g = ex["given"]
    right = stages(g)
    for p in ex["parts"]:
        if p["kind"] not in ROW_KINDS:
            continue
        e = part_answer(right, p["kind"], p["row"])
        seen = []
        for m in promised(g, p["kind"], p["row"]):
            for v in variants(g, p["kind"], p["row"], m):
                tally["promises"] += 1
                if not clearly_differs(v, e, p["decimals"]):
                    c.report(False, f"{lesson} seed {seed} part {p['id']}: {m} is told apart from the right answer",
                             f"{m} gives {v}, right is {e}")
                for other, w in seen:
                    if other != m and not clearly_differs(v, w, p["decimals"]):
                        c.report(False, f"{lesson} seed {seed} part {p['id']}: {m} is told apart from {other}",
                                 f"both give {v}")
                seen.append((m, v))


def check_malformed(c, lesson, ex):
    """A missing part, a wrong shape, NaN and text: exit 2, one line naming the part."""
    first = ex["parts"][0]
    good = {p["id"]: (0 if p["shape"] == [] else [] if p["kind"] == "blocked" else
                      [[0] * p["shape"][1] for _ in range(p["shape"][0])] if p["kind"] == "matrix" else [0] * p["shape"][0])
            for p in ex["parts"]}
    bad_shape = [0] * 7 if first["shape"] != [] else [1, 2]
    cases = [("missing", {k: v for k, v in good.items() if k != first["id"]}),
             ("wrong shape", {**good, first["id"]: bad_shape}),
             ("text", {**good, first["id"]: "0.5"})]
    for label, parts in cases:
        path = c.write_json("bad.json", {"parts": parts})
        code, out, err = c.run("exercise", lesson, "--seed", "1", "--answer", path)
        lines = err.strip().splitlines()
        ok = code == 2 and out == "" and len(lines) == 1 and f"part {first['id']}" in lines[0]
        c.report(ok, f"{lesson}: a malformed answer ({label}) exits 2 naming part {first['id']}", f"exit {code}: {err}")
    nan = float("nan")
    if first["kind"] == "blocked":
        nan_value = [[nan, 0]]
    elif first["kind"] == "matrix":
        nan_value = [[nan] * first["shape"][1] for _ in range(first["shape"][0])]
    else:
        nan_value = nan if first["shape"] == [] else [nan] * first["shape"][0]
    nan = json.dumps({"parts": {**good, first["id"]: nan_value}})
    path = os.path.join(c.work, "nan.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(nan)  # Python writes NaN bare, which JSON does not allow
    code, _, err = c.run("exercise", lesson, "--seed", "1", "--answer", path)
    c.report(code == 2 and f"part {first['id']}" in err and "NaN" in err, f"{lesson}: NaN exits 2 naming the part", err)


def main():
    attnlab, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    c = ExerciseChecks(attnlab, work)
    code, out, _ = c.run("presets")
    lessons = [line.split()[0] for line in out.splitlines() if line.strip()]
    c.report(len(lessons) >= 20, f"attnlab presets lists the lessons ({len(lessons)})")
    tally = {"recomputed": 0, "mistakes": 0, "promises": 0, "named": set()}
    for lesson in lessons:
        failed_before = c.failed
        for seed in SEEDS:
            ex = c.exercise(lesson, seed)
            if ex is None:
                continue
            if seed == 1:
                again = c.exercise(lesson, seed)
                c.report(again == ex, f"{lesson}: the same seed gives the same exercise")
                c.report(len(ex["parts"]) >= 2, f"{lesson}: at least two graded parts")
                check_malformed(c, lesson, ex)
            expected = check_expected(c, lesson, seed, ex, tally)
            if expected is None:
                continue
            check_mistakes(c, lesson, seed, ex, expected, tally)
            check_promises(c, lesson, seed, ex, tally)
        c.report(c.failed == failed_before, f"{lesson}: {len(SEEDS)} seeds recomputed, mistakes named, promises kept")
    # Every mistake is named somewhere on a weights row, so none is dead code in the grader.
    for m in ORDER:
        c.report(("weights_row", m) in tally["named"], f"{m} is named on some weights row")
    print(f"{tally['recomputed']} parts recomputed, {tally['mistakes']} mistaken answers graded, "
          f"{tally['promises']} promises checked")
    return c.exit_code()


if __name__ == "__main__":
    sys.exit(main())
