#!/usr/bin/env python3
"""PyTorch on the GPU that bench/device/kit.py checks, on the shapes of its `attnlab bench` runs.

FP32 with TF32 off, so that the products are cuBLAS's sgemm: scores Q Kᵀ, the softmax of S/√d,
output A V at n = m = d = 4096, then fused attention (scaled_dot_product_attention, its
memory-efficient kernel, the one that takes FP32) at 100 000 causal positions with d = 64. Also the
card's FP32 peak from its specification (Hopper: 128 FP32 lanes per SM at the maximum SM clock).
Prints one JSON object with the figures and the report's lines. --local runs the same on the CPU
at small sizes, to check the script.
"""
import argparse
import json
import subprocess
import time

import torch


def median_ms(fn, runs, warmup, sync):
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2] * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--local", action="store_true")
    parser.add_argument("--device", action="store_true")
    args = parser.parse_args()
    cuda = not args.local
    dev = "cuda" if cuda else "cpu"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    n = d = 4096 if cuda else 256
    stream_n = 100000 if cuda else 2048
    out = {"torch": torch.__version__, "n": n, "d": d, "stream_n": stream_n, "lines": []}
    if cuda:
        props = torch.cuda.get_device_properties(0)
        out["gpu"] = props.name
        out["sms"] = props.multi_processor_count
        try:
            mhz = float(subprocess.run(["nvidia-smi", "--query-gpu=clocks.max.sm", "--format=csv,noheader,nounits"],
                                       capture_output=True, text=True, check=True).stdout.split()[0])
            out["max_sm_mhz"] = mhz
            if props.major == 9:
                out["spec_fp32_gflops"] = props.multi_processor_count * 128 * 2 * mhz * 1e-3
        except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
            pass
    g = torch.Generator(device=dev).manual_seed(0)
    q, k, v = (torch.randn(n, d, device=dev, generator=g) for _ in range(3))
    flops = 2 * n * n * d
    s = q @ k.T
    a = torch.softmax(s / d**0.5, dim=-1)
    out["scores_ms"] = median_ms(lambda: q @ k.T, 10, 3, sync)
    out["softmax_ms"] = median_ms(lambda: torch.softmax(s / d**0.5, dim=-1), 10, 3, sync)
    out["output_ms"] = median_ms(lambda: a @ v, 10, 3, sync)
    out["scores_gflops"] = flops / out["scores_ms"] * 1e-6
    out["output_gflops"] = flops / out["output_ms"] * 1e-6
    spec = out.get("spec_fp32_gflops")
    of_spec = f" = {out['scores_gflops'] / spec:.3f} of the {spec:.0f} GFLOP/s spec peak" if spec else ""
    out["lines"].append(f"torch {torch.__version__} on {out.get('gpu', 'the CPU')}: sgemm (TF32 off) Q Kᵀ at "
                        f"n = d = {n}: {out['scores_ms']:.2f} ms, {out['scores_gflops']:.0f} GFLOP/s{of_spec}; "
                        f"softmax {out['softmax_ms']:.2f} ms; A V {out['output_ms']:.2f} ms")
    del q, k, v, s, a
    sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if sdpa is None:  # PyTorch before 2.0 (Debian 12's 1.13: --local)
        out["lines"].append(f"torch {torch.__version__} has no scaled_dot_product_attention")
        print(json.dumps(out, indent=1))
        return
    qs, ks, vs = (torch.randn(1, 1, stream_n, 64, device=dev, generator=g) for _ in range(3))
    if cuda:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
            ms = median_ms(lambda: sdpa(qs, ks, vs, is_causal=True), 3, 1, sync)
    else:
        ms = median_ms(lambda: sdpa(qs, ks, vs, is_causal=True), 3, 1, sync)
    useful = 2 * (stream_n * (stream_n + 1) / 2) * (64 + 64)
    out["sdpa_causal_ms"] = ms
    out["sdpa_useful_gflops"] = useful / ms * 1e-6
    out["lines"].append(f"scaled_dot_product_attention (memory-efficient, FP32) at {stream_n} causal, d = 64: "
                        f"{ms:.1f} ms, {out['sdpa_useful_gflops']:.0f} useful GFLOP/s")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
