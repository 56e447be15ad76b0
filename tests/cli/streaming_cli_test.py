#!/usr/bin/python3
"""compute --streaming / --summary and bench --streaming through the real executable: the streamed
numbers match the dense ones, and a full JSON that cannot fit in memory is refused with exit 2.

Usage: streaming_cli_test.py ATTNLAB WORK_DIR   (run with /usr/bin/python3, which has numpy)
"""
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

from cli_checks import Checks, error_lines

ATTNLAB, WORK = os.path.abspath(sys.argv[1]), sys.argv[2]
os.makedirs(WORK, exist_ok=True)


checks = Checks(ATTNLAB, WORK)
run, report = checks.run, checks.report


rng = np.random.default_rng(5)
for name, shape in (("Q", (300, 16)), ("K", (700, 16)), ("V", (700, 5))):
    np.save(os.path.join(WORK, name + ".npy"), rng.standard_normal(shape).astype(np.float32))
files = ["--q", "Q.npy", "--k", "K.npy", "--v", "V.npy"]

for mask in ("none", "causal", "window:50"):
    code, dense_out, err = run("compute", *files, "--mask", mask, "--format", "json")
    code2, stream_out, err2 = run("compute", *files, "--mask", mask, "--format", "json", "--streaming")
    ok = code == 0 and code2 == 0
    detail = err + err2
    if ok:
        dense, stream = json.loads(dense_out), json.loads(stream_out)
        ok = "scores" not in stream and "weights" not in stream and "scores" in dense
        detail = "streaming JSON has n×m matrices, or dense lacks them"
        if ok:
            diff = np.abs(np.array(dense["output"]) - np.array(stream["output"])).max()
            ok = diff < 1e-5
            detail = f"output differs by {diff}"
        if ok:
            for key in ("max_weight", "entropy", "effective_keys"):
                a = np.array([r[key] for r in dense["rows"]])
                b = np.array([r[key] for r in stream["rows"]])
                if np.abs(a - b).max() > 1e-4 * max(1.0, np.abs(a).max()):
                    ok, detail = False, f"rows.{key} differs by {np.abs(a - b).max()}"
        if ok:
            # The streaming path never multiplies blocked cells: its scores' min and max cover the
            # visible ones (range_count of them, a note says so), its mean, std and count every cell.
            scores, logits = np.array(dense["scores"]), dense["logits"]
            visible = np.array([[x is not None for x in row] for row in logits])
            expected = dict(dense["stats"]["scores"], min=float(scores[visible].min()), max=float(scores[visible].max()),
                            range_count=int(visible.sum()))
            for stage, want in (("scores", expected), ("logits", dense["stats"]["logits"])):
                for key in ("mean", "std", "min", "max", "count", "range_count"):
                    a, b = want[key], stream["stats"][stage][key]
                    if abs(a - b) > 1e-6 * max(1.0, abs(a)):
                        ok, detail = False, f"stats.{stage}.{key}: {a} vs {b}"
            blocked = mask != "none"
            if ok and blocked != any("the mask leaves visible" in note for note in stream["notes"]):
                ok, detail = False, f"notes: {stream['notes']}"
    report(ok, f"compute --streaming --mask {mask} matches the dense output, rows and stats", detail)

code, out, err = run("compute", *files, "--format", "text", "--streaming")
report(code == 0 and "output" in out and "scores  S" not in out, "compute --streaming --format text prints the summary",
       err)

# n = m = 200 000 with d = 1: the dense stages need 596 GiB, beyond half of any test machine.
for name in "QKV":
    np.save(os.path.join(WORK, "big_" + name + ".npy"), np.ones((200000, 1), dtype=np.float32))
big = ["--q", "big_Q.npy", "--k", "big_K.npy", "--v", "big_V.npy"]
code, out, err = run("compute", *big, "--format", "json")
report(code == 2 and not out and err.startswith("attnlab: ") and "--summary" in err and len(error_lines(err)) == 1,
       "a full compute --format json that cannot fit exits 2 and points at --summary", f"exit {code}: {err!r}")

for flags in ([], ["--streaming"]):
    code, out, err = run("bench", "--backend", "cpu", "--n", "300", "--dk", "16", "--mask", "causal", "--runs", "2",
                         "--format", "json", *flags)
    ok = code == 0
    detail = err
    if ok:
        b = json.loads(out)
        ok = b["total_ms"] > 0 and b["backend"] == "cpu" and b["n"] == 300
        if flags:
            ok = ok and b.get("streaming") is True and b["stages"]["scores"]["ms"] is None
            ok = ok and b["stages"]["scores"]["fraction_of_peak"] is None
        else:
            ok = ok and b["stages"]["scores"]["ms"] > 0 and b["stages"]["softmax"]["ms"] > 0
            for stage in ("scores", "output"):
                st = b["stages"][stage]
                ok = ok and math.isclose(st["fraction_of_peak"], st["gflops"] / b["peak_gflops"], rel_tol=1e-9)
        # Fractions of this machine's FMA peak (engine/cpu/fma_peak.hpp): the peak probed in this run,
        # each fraction that GFLOP/s over it; useful FLOPs count the visible cells only (a causal
        # square: n(n+1)/2 of n² cells).
        ok = ok and b["peak_gflops"] > 0 and b["peak_probe"]["threads"] >= 1
        ok = ok and math.isclose(b["fraction_of_peak"], b["gflops"] / b["peak_gflops"], rel_tol=1e-9)
        ok = ok and math.isclose(b["useful_gflops"], b["gflops"] * (300 * 301 / 2) / 300**2, rel_tol=1e-9)
        ok = ok and math.isclose(b["useful_fraction_of_peak"], b["useful_gflops"] / b["peak_gflops"], rel_tol=1e-9)
        detail = out
    report(ok, "bench " + " ".join(flags) + " prints its JSON", detail)

# bench measures its dense plans the first time it times a shape on this machine, keeps the choice in
# its cache (ATTNLAB_PLAN_CACHE, set by CTest for this test) and reports it; ATTNLAB_DENSE_PLAN forces
# one. Every plan's numbers are the same within bounds (dense_plan_test); here, the report.
cache = os.path.join(WORK, "calibration-plans.txt")
if os.path.exists(cache):
    os.remove(cache)
reports = []
for forced in ("", "", "wide full"):
    env = dict(os.environ, ATTNLAB_PLAN_CACHE=cache)
    if forced:
        env["ATTNLAB_DENSE_PLAN"] = forced
    proc = subprocess.run([ATTNLAB, "bench", "--backend", "cpu", "--n", "256", "--dk", "32", "--mask", "causal", "--runs",
                           "1", "--format", "json"], capture_output=True, text=True, timeout=120, cwd=WORK, env=env)
    reports.append(json.loads(proc.stdout).get("calibration") if proc.returncode == 0 else proc.stderr)
ok = all(isinstance(r, dict) for r in reports)
if ok:
    measured, cached, forced = reports
    names = [c["plan"] for c in measured["candidates"]]
    ok = (measured["source"] == "measured" and measured["chosen"] in names and len(names) >= 3
          and all(c["ms"] > 0 for c in measured["candidates"]) and measured["cache"] == cache
          and cached["source"] == "cached" and cached["chosen"] == measured["chosen"]
          and forced["source"] == "forced" and forced["chosen"] == "wide full")
report(ok, "bench measures its dense plans once, reads the choice back from its cache, and reports it", str(reports))
proc = subprocess.run([ATTNLAB, "bench", "--n", "64", "--runs", "1"], capture_output=True, text=True, timeout=60, cwd=WORK,
                      env=dict(os.environ, ATTNLAB_DENSE_PLAN="tall"))
report(proc.returncode == 2 and proc.stderr.startswith("attnlab: ATTNLAB_DENSE_PLAN: 'tall' is not a plan"),
       "a plan ATTNLAB_DENSE_PLAN cannot name is an input error", proc.stderr)

# bench chooses as compute does: the streaming path where the dense stages would not fit (here: a
# limit of 1 MiB), saying so on stderr.
proc = subprocess.run([ATTNLAB, "bench", "--backend", "cpu", "--n", "600", "--dk", "8", "--runs", "1", "--warmup", "0",
                       "--format", "json"], capture_output=True, text=True, timeout=120, cwd=WORK,
                      env=dict(os.environ, ATTNLAB_DENSE_LIMIT_MIB="1"))
ok = proc.returncode == 0 and "streaming path instead" in proc.stderr
if ok:
    b = json.loads(proc.stdout)
    ok = b.get("streaming") is True and b["stages"]["scores"]["ms"] is None and "tiles" in b
report(ok, "bench streams where the dense stages would not fit, as compute does", proc.stderr + proc.stdout[:300])

# export falls back to streaming when the dense stages do not fit (here: a limit of 1 MiB), says so,
# and writes the weights downsampled (each pixel the mean of its block of cells, blocked cells 0).
n, m = 3000, 2500
for name, shape in (("eQ", (n, 4)), ("eK", (m, 4)), ("eV", (m, 3))):
    np.save(os.path.join(WORK, name + ".npy"), rng.standard_normal(shape).astype(np.float32))
efiles = ["--q", "eQ.npy", "--k", "eK.npy", "--v", "eV.npy", "--mask", "causal", "--backend", "cpu", "--force"]
code, _, err = run("export", *efiles, "--stage", "weights", "--out", "dense_w.npy")
env = dict(os.environ, ATTNLAB_DENSE_LIMIT_MIB="1")
proc = subprocess.run([ATTNLAB, "export", *efiles, "--stage", "weights", "--out", "heat_w.npy"], capture_output=True,
                      text=True, timeout=120, cwd=WORK, env=env)
ok = code == 0 and proc.returncode == 0 and "streaming instead" in proc.stderr
detail = err + proc.stderr
if ok:
    w = np.load(os.path.join(WORK, "dense_w.npy")).astype(np.float64)
    heat = np.load(os.path.join(WORK, "heat_w.npy"))
    first = lambda p, cells, pixels: (p * cells + pixels - 1) // pixels
    ry = [first(y, n, 1024) for y in range(1025)]
    rx = [first(x, m, 1024) for x in range(1025)]
    ref = np.add.reduceat(np.add.reduceat(w, ry[:-1], axis=0), rx[:-1], axis=1)
    ref /= np.outer(np.diff(ry), np.diff(rx))
    diff = np.abs(heat - ref).max() if heat.shape == ref.shape else float("inf")
    ok = diff < 1e-6
    detail = f"heatmap {heat.shape} differs from the downsampled dense weights by {diff}"
report(ok, "export falls back to streaming and writes the downsampled weights (== dense, downsampled)", detail)
proc = subprocess.run([ATTNLAB, "export", *efiles, "--stage", "weights", "--out", "heat_w.png"], capture_output=True,
                      text=True, timeout=120, cwd=WORK, env=env)
report(proc.returncode == 0 and os.path.getsize(os.path.join(WORK, "heat_w.png")) > 1000,
       "export of a streamed weights heatmap as PNG", proc.stderr)
proc = subprocess.run([ATTNLAB, "export", *efiles, "--stage", "scores", "--out", "s.npy"], capture_output=True,
                      text=True, timeout=120, cwd=WORK, env=env)
report(proc.returncode == 2 and "--stage weights" in proc.stderr and len(error_lines(proc.stderr)) == 1,
       "export of scores too large for the dense stages exits 2 and names what can be exported", proc.stderr)

# The runtime the bench measures: attnlab re-executes itself once with the settings that must be in
# the environment before the libraries load (blas.hpp), and keeps its own name doing so.
env = {k: v for k, v in os.environ.items()
       if k not in ("OMP_WAIT_POLICY", "GLIBC_TUNABLES", "OPENBLAS_CORETYPE", "OPENBLAS_THREAD_TIMEOUT", "ATTNLAB_NO_REEXEC")}
proc = subprocess.Popen([ATTNLAB, "bench", "--backend", "cpu", "--n", "512", "--dk", "64", "--runs", "100000",
                         "--format", "json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
environ, comm = {}, ""
deadline = time.monotonic() + 30
while time.monotonic() < deadline and "OMP_WAIT_POLICY" not in environ and proc.poll() is None:
    time.sleep(0.05)
    try:
        with open(f"/proc/{proc.pid}/environ", "rb") as f:
            environ = dict(e.split("=", 1) for e in f.read().decode(errors="replace").split("\0") if "=" in e)
        with open(f"/proc/{proc.pid}/comm") as f:
            comm = f.read().strip()
    except OSError:
        pass
proc.kill()
proc.wait()
try:
    with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
        thp_on_request = "[madvise]" in f.read()
except OSError:
    thp_on_request = False
ok = environ.get("OMP_WAIT_POLICY") == "passive" and environ.get("OPENBLAS_THREAD_TIMEOUT") == "4" and comm == "attnlab"
if thp_on_request:
    ok = ok and "glibc.malloc.hugetlb=1" in environ.get("GLIBC_TUNABLES", "")
report(ok, "bench re-executes with passive OpenMP and OpenBLAS threads" + (" and huge pages" if thp_on_request else "") +
       ", still named attnlab",
       f"comm {comm!r}, OMP_WAIT_POLICY {environ.get('OMP_WAIT_POLICY')!r}, "
       f"OPENBLAS_THREAD_TIMEOUT {environ.get('OPENBLAS_THREAD_TIMEOUT')!r}, "
       f"GLIBC_TUNABLES {environ.get('GLIBC_TUNABLES')!r}")

print(f"{checks.failed} failed")
sys.exit(checks.exit_code())
