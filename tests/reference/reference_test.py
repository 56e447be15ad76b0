#!/usr/bin/python3
"""Independent reference for `attnlab compute`: random cases generated with numpy, written as
.npy/.csv files or scenario JSON, run through the real executable, and every stage of its JSON
compared with a float64 numpy computation of the engine's numbers (docs/ARCHITECTURE.md).

Usage: reference_test.py ATTNLAB WORK_DIR   (run with /usr/bin/python3, which has Debian's numpy)
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np

ATTNLAB, WORK = sys.argv[1], sys.argv[2]
failures = []


# ---------------------------------------------------------------------------------------------
# The reference, in float64 from the float32 inputs the engine sees.

def blocked_grid(mask, n, m):
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    kind = mask["kind"]
    if kind == "none":
        return np.zeros((n, m), bool)
    if kind == "causal":
        return j > i
    if kind == "padding":
        return np.broadcast_to(j >= mask["valid"], (n, m)).copy()
    if kind == "prefix":
        return (j >= mask["prefix"]) & (j > i)
    if kind == "window":
        return (j > i) | (i - j >= mask["size"])
    if kind == "custom":
        return np.array(mask["blocked"], dtype=bool)
    raise ValueError(kind)


def normalize(norm, x, open_):
    """One row of weights from logits x (float64); open_ marks the unblocked cells."""
    w = np.zeros_like(x)
    if not open_.any():
        return w
    z = x[open_]
    if norm == "softmax":
        e = np.exp(z - z.max())
        w[open_] = e / e.sum()
    elif norm == "sparsemax":
        zs = np.sort(z)[::-1]
        k = np.arange(1, len(zs) + 1)
        cums = np.cumsum(zs - zs[0])
        support = (zs - zs[0]) > (cums - 1) / k
        kz = k[support][-1]
        tau = (cums[kz - 1] - 1) / kz  # relative to the largest logit, which may be 1e30
        w[open_] = np.maximum((z - zs[0]) - tau, 0)
    elif norm == "sigmoid":
        with np.errstate(over="ignore"):
            w[open_] = 1 / (1 + np.exp(-z))
    elif norm == "hardmax":
        top = z == z.max()
        w[open_] = top / top.sum()
    return w


def jacobian_norm(norm, a):
    if norm == "softmax":
        J = np.diag(a) - np.outer(a, a)
    elif norm == "sparsemax":
        s = (a > 0).astype(float)
        k = s.sum()
        J = np.diag(s) - (np.outer(s, s) / k if k else 0)
    elif norm == "sigmoid":
        J = np.diag(a * (1 - a))
    else:
        J = np.zeros((len(a), len(a)))
    return float(np.linalg.norm(J))


def reference(Q, K, V, scale, temperature, mask, norm):
    Q, K, V = (np.asarray(M, np.float32).astype(np.float64) for M in (Q, K, V))
    n, dk = Q.shape
    m = K.shape[0]
    s = math.sqrt(dk) if scale else 1.0
    eff = s * temperature
    scores = Q @ K.T
    blocked = blocked_grid(mask, n, m)
    logits = np.where(blocked, -np.inf, scores / eff)
    weights = np.zeros((n, m))
    rows = []
    for i in range(n):
        weights[i] = normalize(norm, logits[i], ~blocked[i])
        a = weights[i]
        total = a.sum()
        if total > 0:
            p = a / total
            p = p[p > 0]
            h = max(0.0, float(-(p * np.log(p)).sum()))
            eff_keys = math.exp(h)
        else:
            h, eff_keys = 0.0, 0.0
        rows.append({
            "max_weight": float(a.max()), "entropy": h, "effective_keys": eff_keys,
            "jacobian_norm": jacobian_norm(norm, a), "saturated": bool(a.max() >= 0.99),
            "fully_masked": bool(blocked[i].all()),
            "padding": mask["kind"] == "padding" and i >= mask["valid"],
        })
    output = weights @ V
    open_logits = logits[~blocked]
    stats = {"scores": moments(scores.ravel()), "logits": moments(open_logits)}
    return {"n": n, "m": m, "d_k": dk, "d_v": V.shape[1], "effective_temperature": eff, "scores": scores,
            "logits": logits, "blocked": blocked, "weights": weights, "output": output,
            "saturation": weights * (1 - weights), "rows": rows, "stats": stats}


def moments(x):
    if x.size == 0:
        return {"mean": 0.0, "std": 0.0, "min": 0.0, "max": 0.0, "count": 0}
    return {"mean": float(x.mean()), "std": float(x.std()), "min": float(x.min()), "max": float(x.max()),
            "count": int(x.size)}


# ---------------------------------------------------------------------------------------------
# Comparison.

def as_array(name, value, shape):
    if value is None:
        raise AssertionError(f"{name} is missing")
    arr = np.array([[np.nan if v is None else v for v in row] for row in value], dtype=np.float64)
    if arr.shape != shape:
        raise AssertionError(f"{name} has shape {arr.shape}, expected {shape}")
    return arr


def close(name, got, want, atol, rtol=0.0):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    bad = ~(np.abs(got - want) <= atol + rtol * np.abs(want))
    if bad.any():
        idx = tuple(int(k) for k in np.argwhere(bad)[0]) if got.ndim else ()
        g = got[idx] if got.ndim else float(got)
        w = want[idx] if want.ndim else float(want)
        raise AssertionError(f"{name}{list(idx)}: attnlab {g!r}, numpy {w!r} (tolerance {atol} + {rtol}·|x|), "
                             f"{int(bad.sum())} cell(s) off")


def compare(case, got, ref, Q, K, V):
    n, m = ref["n"], ref["m"]
    for key in ("n", "m", "d_k", "d_v"):
        if got[key] != ref[key]:
            raise AssertionError(f"{key}: attnlab {got[key]}, expected {ref[key]}")
    if got["scale"] != case["scale"]:
        raise AssertionError(f"scale: attnlab {got['scale']}, expected {case['scale']}")
    close("temperature", got["temperature"], case["temperature"], 0, 1e-15)
    close("effective_temperature", got["effective_temperature"], ref["effective_temperature"], 0, 1e-12)
    if got["mask"] != case["mask"]:
        raise AssertionError(f"mask: attnlab {got['mask']}, expected {case['mask']}")
    if got.get("normalizer", "softmax") != case["normalizer"]:
        raise AssertionError(f"normalizer: attnlab {got.get('normalizer')}, expected {case['normalizer']}")

    # The engine multiplies in float32: allow a few float32 roundings of the |Q|·|K|ᵀ magnitude.
    q64 = np.asarray(Q, np.float32).astype(np.float64)
    k64 = np.asarray(K, np.float32).astype(np.float64)
    mag = np.abs(q64) @ np.abs(k64).T
    score_tol = 4 * np.finfo(np.float32).eps * mag * max(1, math.sqrt(ref["d_k"])) + 1e-37
    scores = as_array("scores", got["scores"], (n, m))
    close("scores", scores, ref["scores"], score_tol)

    logits = as_array("logits", got["logits"], (n, m))
    blocked_got = np.isnan(logits)  # JSON null
    if not np.array_equal(blocked_got, ref["blocked"]):
        i, j = np.argwhere(blocked_got != ref["blocked"])[0]
        raise AssertionError(f"logits[{i}][{j}]: null in attnlab is {bool(blocked_got[i, j])}, "
                             f"blocked in the reference is {bool(ref['blocked'][i, j])}")
    eff = ref["effective_temperature"]
    logit_tol = score_tol / eff + 1e-37
    open_ = ~ref["blocked"]
    close("logits", logits[open_], ref["logits"][open_], logit_tol[open_], 2 * np.finfo(np.float32).eps)

    weights = as_array("weights", got["weights"], (n, m))
    if not np.isfinite(weights).all():
        raise AssertionError("weights has a non-finite entry")
    if (weights[ref["blocked"]] != 0).any():
        raise AssertionError("a blocked cell has a non-zero weight")
    # Weights move by about (logit error) · a(1−a): bound it with the largest logit error in the row.
    row_logit_err = np.where(open_, logit_tol, 0).max(axis=1, keepdims=True) + 4 * np.finfo(np.float32).eps
    # Capped: with logits near 1e30 the bound is meaningless, and the gaps between them (about
    # 1e27) dwarf the float32 error, so the weights must still agree closely.
    weight_tol = np.minimum(2 * row_logit_err + 2e-7, 1e-3)
    if case["normalizer"] == "hardmax":
        weight_tol = np.full((n, 1), 2e-7)
    close("weights", weights, ref["weights"], weight_tol)
    saturation = as_array("saturation", got["saturation"], (n, m))
    close("saturation", saturation, ref["saturation"], weight_tol)

    output = as_array("output", got["output"], (n, V.shape[1]))
    vmax = np.abs(np.asarray(V, np.float64)).max(initial=0)
    close("output", output, ref["output"], (weight_tol.max() * m + 4 * np.finfo(np.float32).eps) * vmax + 1e-37)

    if len(got["rows"]) != n:
        raise AssertionError(f"rows has {len(got['rows'])} entries, expected {n}")
    diag_tol = 20 * weight_tol.max() * m + 1e-5
    for i, (g, r) in enumerate(zip(got["rows"], ref["rows"])):
        for key in ("fully_masked", "padding"):
            if g[key] != r[key]:
                raise AssertionError(f"rows[{i}].{key}: attnlab {g[key]}, numpy {r[key]}")
        if abs(r["max_weight"] - 0.99) > 1e-5 and g["saturated"] != r["saturated"]:
            raise AssertionError(f"rows[{i}].saturated: attnlab {g['saturated']}, numpy {r['saturated']}")
        for key in ("max_weight", "entropy", "jacobian_norm"):
            tol = diag_tol if key != "max_weight" else weight_tol.max()
            if case["normalizer"] == "sparsemax" and key == "jacobian_norm":
                tol = 1e-6  # depends only on the support size
            close(f"rows[{i}].{key}", g[key], r[key], tol)
        close(f"rows[{i}].effective_keys", g["effective_keys"], r["effective_keys"], diag_tol * max(1, r["effective_keys"]))

    for stage in ("scores", "logits"):
        gs, rs = got["stats"][stage], ref["stats"][stage]
        if gs["count"] != rs["count"]:
            raise AssertionError(f"stats.{stage}.count: attnlab {gs['count']}, numpy {rs['count']}")
        spread = max(abs(rs["min"]), abs(rs["max"]), 1e-30)
        rel = 8 * np.finfo(np.float32).eps * max(1, math.sqrt(ref["d_k"]))
        for key in ("mean", "std", "min", "max"):
            # The engine's stats come from its float32 scores; std uses E[x²] − mean², which
            # loses digits when the spread is small next to the mean.
            tol = rel * spread if key != "std" else rel * spread + 1e-6 * spread
            close(f"stats.{stage}.{key}", gs[key], rs[key], tol)


# ---------------------------------------------------------------------------------------------
# Cases.

def float32_list(M):
    # repr of the float64 holding a float32 value reads back to the same float32.
    return [[float(v) for v in row] for row in np.asarray(M, np.float32)]


def write_matrix(path_base, M, fmt):
    if fmt == "csv":
        path = path_base + ".csv"
        with open(path, "w") as f:
            for row in np.asarray(M, np.float32):
                f.write(",".join(repr(float(v)) for v in row) + "\n")
        return path
    dtype, order = fmt
    arr = np.asarray(M, np.float32).astype(dtype)
    arr = np.asfortranarray(arr) if order == "F" else np.ascontiguousarray(arr)
    path = path_base + ".npy"
    np.save(path, arr)
    return path


def make_cases(rng):
    cases = []
    shapes = [(1, 1, 1, 1), (3, 3, 2, 2), (4, 7, 3, 5), (7, 4, 5, 2), (6, 6, 16, 3), (2, 9, 1, 4), (9, 2, 8, 1),
              (12, 5, 64, 7), (5, 12, 7, 64), (33, 47, 32, 9)]
    formats = [("<f4", "C"), ("<f8", "C"), ("<f4", "F"), ("<f8", "F"), "csv"]
    temps = [1.0, 0.5, 2.0, 0.1, 10.0, 1.0, 3.7]
    kinds = ["none", "causal", "padding", "prefix", "window", "custom"]
    norms = ["softmax", "softmax", "softmax", "sparsemax", "sigmoid", "hardmax"]
    idx = 0
    for shape in shapes:
        n, m, dk, dv = shape
        for kind in kinds:
            idx += 1
            mask = {"kind": kind}
            if kind == "padding":
                mask["valid"] = int(rng.integers(0, m + 1))
            elif kind == "prefix":
                mask["prefix"] = int(rng.integers(0, m + 1))
            elif kind == "window":
                mask["size"] = int(rng.integers(0, max(n, m) + 1))
            elif kind == "custom":
                grid = (rng.random((n, m)) < 0.35).astype(int)
                if n >= 2:
                    grid[0, :] = 1  # a fully blocked row
                mask["blocked"] = grid.tolist()
            sigma = float(rng.choice([0.5, 1.0, 2.0]))
            cases.append({
                "name": f"case{idx:03d}", "Q": rng.normal(0, sigma, (n, dk)), "K": rng.normal(0, sigma, (m, dk)),
                "V": rng.normal(0, 3, (m, dv)), "scale": bool(idx % 4 != 0), "temperature": temps[idx % len(temps)],
                "mask": mask, "normalizer": norms[idx % len(norms)],
                # Custom masks only come from scenario files; alternate the others between forms.
                "via": "scenario" if kind == "custom" or idx % 3 == 0 else "files",
                "format": formats[idx % len(formats)],
            })
    # Huge numbers: scores near ±1e30 (float32 products of 1e15s), values of 1e30.
    for h in range(6):
        n, m = int(rng.integers(2, 7)), int(rng.integers(2, 7))
        kind = ["none", "causal", "padding", "window", "none", "prefix"][h]
        mask = {"kind": kind}
        if kind == "padding":
            mask["valid"] = m - 1
        elif kind == "window":
            mask["size"] = 2
        elif kind == "prefix":
            mask["prefix"] = 1
        cases.append({
            "name": f"huge{h}", "Q": rng.normal(0, 1e15, (n, 3)), "K": rng.normal(0, 1e15, (m, 3)),
            "V": rng.normal(0, 1e30, (m, 2)), "scale": h % 2 == 0, "temperature": [1.0, 0.01, 100.0][h % 3],
            "mask": mask, "normalizer": ["softmax", "softmax", "sparsemax", "softmax", "hardmax", "softmax"][h],
            "via": "files" if h % 2 else "scenario", "format": ("<f8", "F") if h % 3 else ("<f4", "C"),
        })
    return cases


def cli_mask(mask):
    kind = mask["kind"]
    param = {"padding": "valid", "prefix": "prefix", "window": "size"}.get(kind)
    return kind if param is None else f"{kind}:{mask[param]}"


def run_case(case, backend):
    base = os.path.join(WORK, case["name"])
    args = [ATTNLAB, "compute", "--format", "json", "--backend", backend]
    if case["via"] == "scenario":
        scenario = {"format": "attnlab-scenario", "version": 1, "title": case["name"],
                    "Q": float32_list(case["Q"]), "K": float32_list(case["K"]), "V": float32_list(case["V"]),
                    "scale": case["scale"], "temperature": case["temperature"], "mask": case["mask"],
                    "normalizer": case["normalizer"]}
        with open(base + ".json", "w") as f:
            json.dump(scenario, f)
        args.append(base + ".json")
    else:
        for name in ("Q", "K", "V"):
            args += [f"--{name.lower()}", write_matrix(f"{base}_{name}", case[name], case["format"])]
        args += ["--temperature", repr(case["temperature"]), "--mask", cli_mask(case["mask"]),
                 "--normalizer", case["normalizer"], "--scale" if case["scale"] else "--no-scale"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise AssertionError(f"exit code {proc.returncode}: {proc.stderr.strip()} ({' '.join(args)})")
    if proc.stderr:
        raise AssertionError(f"unexpected stderr: {proc.stderr.strip()}")
    got = json.loads(proc.stdout)
    if got.get("backend", backend) != backend:
        raise AssertionError(f"asked for --backend {backend}, attnlab used {got.get('backend')}")
    ref = reference(case["Q"], case["K"], case["V"], case["scale"], case["temperature"], case["mask"],
                    case["normalizer"])
    compare(case, got, ref, case["Q"], case["K"], case["V"])
    return got


def check_summary(rng):
    """--summary leaves out the n × m matrices but keeps output, rows and stats identical."""
    base = os.path.join(WORK, "summary")
    Q, K, V = rng.normal(0, 1, (5, 4)), rng.normal(0, 1, (6, 4)), rng.normal(0, 1, (6, 3))
    files = []
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        files += [f"--{name.lower()}", write_matrix(f"{base}_{name}", M, ("<f4", "C"))]
    full = json.loads(subprocess.run([ATTNLAB, "compute", "--format", "json", *files], capture_output=True,
                                     text=True, check=True).stdout)
    summ = json.loads(subprocess.run([ATTNLAB, "compute", "--format", "json", "--summary", *files],
                                     capture_output=True, text=True, check=True).stdout)
    for key in ("scores", "logits", "weights", "saturation"):
        if key in summ:
            raise AssertionError(f"--summary still prints {key}")
    for key in ("output", "rows", "stats"):
        if summ[key] != full[key]:
            raise AssertionError(f"--summary changes {key}")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rng = np.random.default_rng(20240611)
    cases = make_cases(rng)
    # Every case on the CPU engine, and again on the GL compute backend where one can run
    # (exit 3 means no GL 4.3 context: skipped, with a line saying so).
    backends = ["cpu"]
    probe = subprocess.run([ATTNLAB, "compute", "--format", "json", "--backend", "gpu"], capture_output=True, text=True)
    if probe.returncode == 0:
        backends.append("gpu")
    else:
        print(f"skip --backend gpu: exit {probe.returncode}: {probe.stderr.strip()}")
    checks = 0
    for backend in backends:
        for case in cases:
            n, dk = np.shape(case["Q"])
            m, dv = np.shape(case["V"])
            label = (f"{backend} {case['name']}: n={n} m={m} d_k={dk} d_v={dv} mask={cli_mask(case['mask'])} "
                     f"{case['normalizer']} T={case['temperature']} scale={'on' if case['scale'] else 'off'} "
                     f"via {case['via'] if case['via'] == 'scenario' else case['format']}")
            checks += 1
            try:
                run_case(case, backend)
                print("ok  ", label)
            except (AssertionError, json.JSONDecodeError, subprocess.TimeoutExpired) as e:
                print("FAIL", label, "\n     ", e)
                failures.append(f"{backend}:{case['name']}")
    try:
        check_summary(rng)
        print("ok   --summary keeps output, rows and stats and drops the n × m stages")
    except (AssertionError, subprocess.CalledProcessError) as e:
        print("FAIL --summary:", e)
        failures.append("summary")
    print(f"{checks + 1 - len(failures)} of {checks + 1} reference checks passed")
    if failures:
        print("failed:", " ".join(failures))
        return 1
    shutil.rmtree(WORK, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
