"""Attention Lab against llama.cpp on the same GGUF files (issue 72, item 5; docs/PERFORMANCE.md,
"GGUF files against llama.cpp"): a SmolLM2-135M-shaped random llama (bench/smollm2_gguf.py) as
F32, Q8_0 and Q4_K_M; a 256- and a 1024-token prompt, then STEPS tokens generated one at a time through each tool's KV cache (the
median of those is "a generated token"). Each tool runs as a fresh process, timed inside it (load
excluded): attnlab by `model FILE --ids … --generate STEPS --temperature 0 --timing` (its weights
kept for every head, as the app does), llama.cpp by llama_cpp_timing.mjs (the pinned
node-llama-cpp's prebuilt, its default configuration), alternately for ROUNDS rounds, both on the
host's cores; medians and the host's load average before and after.
Usage: bench/gguf_vs_llama_cpp.py [ATTNLAB] [ROUNDS] [STEPS] [TYPES]  (defaults build/app/attnlab, 5, 8, F32,Q8_0,Q4_K_M)"""
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "model"))
import llama_cpp_tools  # noqa: E402
from smollm2_gguf import FOLDER, VOCAB, write_models  # noqa: E402

ATTNLAB = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "app", "attnlab"))
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
STEPS = int(sys.argv[3]) if len(sys.argv) > 3 else 8
TYPES = (sys.argv[4] if len(sys.argv) > 4 else "F32,Q8_0,Q4_K_M").split(",")


def attnlab_run(path, ids):
    p = subprocess.run([ATTNLAB, "model", path, "--ids", ",".join(map(str, ids)), "--generate", str(STEPS), "--temperature", "0",
                        "--top", "1", "--format", "json", "--timing"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(p.stderr[-2000:])
    prompt = float(re.search(r"forward ([0-9.]+) ms", p.stderr).group(1))
    token = float(re.search(r"\(median ([0-9.]+) ms\)", p.stderr).group(1))
    return prompt, token


def llama_cpp_run(modules, path, ids):
    p = subprocess.run(["node", os.path.join(HERE, "llama_cpp_timing.mjs"), modules, path, str(os.cpu_count()), str(STEPS),
                        ",".join(map(str, ids))], capture_output=True, text=True, env=llama_cpp_tools.NODE_ENV)
    if p.returncode != 0:
        sys.exit(p.stderr[-2000:])
    out = json.loads(p.stdout)
    return out["prompt_ms"], statistics.median(out["token_ms"])


def main():
    modules = llama_cpp_tools.node_modules(FOLDER)
    paths = write_models(TYPES)
    load = [os.getloadavg()]
    results = {}
    for r in range(ROUNDS):
        for scheme, path in paths.items():
            for n in (256, 1024):
                ids = [(i * 7919) % VOCAB for i in range(n)]
                a = attnlab_run(path, ids)
                b = llama_cpp_run(modules, path, ids)
                results.setdefault((scheme, n), []).append((a, b))
        print(f"round {r + 1} of {ROUNDS} done (load {os.getloadavg()[0]:.2f})", flush=True)
    load.append(os.getloadavg())
    print(f"\nSmolLM2-135M shape, {ROUNDS} rounds alternating the two tools, medians; {os.cpu_count()} CPUs, load average "
          f"{load[0][0]:.2f} / {load[0][1]:.2f} / {load[0][2]:.2f} before, {load[1][0]:.2f} / {load[1][1]:.2f} / {load[1][2]:.2f} after")
    print(f"{'file':8s} {'prompt':>7s} {'attnlab ms':>11s} {'llama.cpp ms':>13s} {'ratio':>6s}   {'token: attnlab':>15s} {'llama.cpp':>10s} {'ratio':>6s}")
    for (scheme, n), rows in results.items():
        ap, at = statistics.median(x[0][0] for x in rows), statistics.median(x[0][1] for x in rows)
        lp, lt = statistics.median(x[1][0] for x in rows), statistics.median(x[1][1] for x in rows)
        print(f"{scheme:8s} {n:7d} {ap:11.1f} {lp:13.1f} {ap / lp:6.2f}   {at:15.2f} {lt:10.2f} {at / lt:6.2f}")


if __name__ == "__main__":
    main()
