"""Attention Lab's GPT-2 forward against PyTorch's on the same GPT-2-small-shaped random model
(12 layers × 12 heads, d_model 768, 1024 positions, 50 257 tokens; docs/PERFORMANCE.md, "Real
models"): load plus a 64-token forward as a whole fresh process, and a 1024-token forward, each
tool's wall time and peak resident memory (GNU time), alternately for ROUNDS rounds, medians shown.
Usage: bench/model_bench.py [ATTNLAB] [ROUNDS] [DTYPE]  (defaults build/app/attnlab, 3, F32)"""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "model"))
import gpt2_fixture as fx  # noqa: E402
from process_timing import timed  # noqa: E402

ATTNLAB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "app", "attnlab")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
DTYPE = sys.argv[3] if len(sys.argv) > 3 else "F32"
FOLDER = os.environ.get("MODEL_DIR", f"/tmp/attnlab-gpt2-small-{DTYPE.lower()}")


def ensure_model(folder, dtype):
    """The GPT-2-small-shaped random model in `folder`, written once."""
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        print(f"writing a GPT-2-small-shaped random model ({dtype}) to {folder} ...", flush=True)
        vocab, merges = fx.small_tokenizer()
        # GPT-2 small's 50 257 rows of wte: the small BPE's tokens, then fillers the bench never types.
        vocab = {**vocab, **{f"<extra{i}>": len(vocab) + i for i in range(50257 - len(vocab))}}
        fx.write_model(folder, seed=124, dtype=dtype, prefix=True, n_layer=12, n_head=12, n_embd=768, n_positions=1024,
                       vocab_merges=(vocab, merges), weight_std=0.02)


def main():
    ensure_model(FOLDER, DTYPE)
    size_mib = os.path.getsize(os.path.join(FOLDER, "model.safetensors")) / 2 ** 20
    print(f"model file: {size_mib:.0f} MiB ({DTYPE}); {ROUNDS} rounds, medians")
    for n in (64, 1024):
        ids = ",".join(str((i * 7919) % 50000) for i in range(n))
        rows = {"attnlab": [], "pytorch": []}
        for _ in range(ROUNDS):
            wall, rss, _, err = timed([ATTNLAB, "model", FOLDER, "--ids", ids, "--format", "text", "--timing"])
            t = re.search(r"load ([0-9.]+) ms, forward ([0-9.]+) ms \(([0-9.]+) GFLOP/s, ([0-9.]+) of the FMA peak ([0-9.]+)", err)
            rows["attnlab"].append((wall, rss, float(t.group(1)), float(t.group(2)), float(t.group(4)), float(t.group(5))))
            wall, rss, out, _ = timed(["/usr/bin/python3", os.path.join(HERE, "torch_gpt2.py"), FOLDER, ids])
            j = json.loads(out)
            rows["pytorch"].append((wall, rss, j["load_ms"], j["forward_ms"], None, None))
        print(f"\n{n} tokens        process s   peak MiB  (x file)   load ms   forward ms   FMA-peak fraction")
        for tool, r in rows.items():
            med = [statistics.median(x[i] for x in r) for i in range(4)]
            frac = f"{statistics.median(x[4] for x in r):.2f} of {statistics.median(x[5] for x in r):.0f} GFLOP/s" if r[0][4] else ""
            print(f"  {tool:9s}  {med[0]:10.2f}  {med[1]:9.0f}  ({med[1] / size_mib:.2f})  {med[2]:9.1f}  {med[3]:11.1f}   {frac}")
        speed = statistics.median(x[0] for x in rows["pytorch"]) / statistics.median(x[0] for x in rows["attnlab"])
        print(f"  whole process: attnlab {speed:.2f}x faster than PyTorch")


if __name__ == "__main__":
    main()
