#!/usr/bin/python3
"""The numpy peer for bench/compare.sh: softmax(Q @ K.T / sqrt(d) + mask) @ V in float32.

Usage: numpy_reference.py N D none|causal RUNS [WARMUP]
Prints one JSON line {"n", "d", "mask", "runs", "total_ms"} with the median wall time of the runs
after WARMUP untimed runs (default 1), measured around the computation only (random inputs made
beforehand).
"""
import json
import sys
import time

import numpy as np


def main():
    n, d, mask_kind, runs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    warmup = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    rng = np.random.default_rng(1234)
    q = rng.standard_normal((n, d), dtype=np.float32)
    k = rng.standard_normal((n, d), dtype=np.float32)
    v = rng.standard_normal((n, d), dtype=np.float32)
    mask = None
    if mask_kind == "causal":
        mask = np.triu(np.full((n, n), -np.inf, dtype=np.float32), 1)
    scale = np.float32(1.0 / np.sqrt(d))

    def attention():
        s = (q @ k.T) * scale
        if mask is not None:
            s += mask
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        return s @ v

    for _ in range(warmup):
        attention()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        attention()
        times.append((time.perf_counter() - t0) * 1000.0)
    print(json.dumps({"n": n, "d": d, "mask": mask_kind, "runs": runs, "total_ms": float(np.median(times))}))


if __name__ == "__main__":
    main()
