"""The marginal cost of a generated token against a whole forward (issue 40; docs/PERFORMANCE.md,
"Generation"), on model_bench.py's GPT-2-small-shaped random model: `attnlab model DIR --ids
(PROMPT tokens) --generate COUNT --temperature 0 --timing` prints, in the same process, the
prompt's whole forward, the milliseconds per generated token over the KV cache, and one whole
forward over the final text (what a token would cost without the cache). ROUNDS fresh processes,
medians; the host's load average before and after.
Usage: bench/generate_bench.py [ATTNLAB] [ROUNDS] [PROMPT] [COUNT]  (defaults build/app/attnlab, 5, 256, 32)"""
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ATTNLAB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "app", "attnlab")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
PROMPT = int(sys.argv[3]) if len(sys.argv) > 3 else 256
COUNT = int(sys.argv[4]) if len(sys.argv) > 4 else 32
FOLDER = os.environ.get("MODEL_DIR", "/tmp/attnlab-gpt2-small-f32")


def main():
    if not os.path.exists(os.path.join(FOLDER, "model.safetensors")):
        # model_bench.py writes the model (and then times the forward against PyTorch).
        sys.exit(f"no model in {FOLDER}: run bench/model_bench.py first (it writes it)")
    ids = ",".join(str((i * 7919) % 50000) for i in range(PROMPT))
    load = [os.getloadavg()[0]]
    rows = []
    for _ in range(ROUNDS):
        p = subprocess.run([ATTNLAB, "model", FOLDER, "--ids", ids, "--generate", str(COUNT), "--temperature", "0", "--format", "text",
                            "--timing"], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(p.stderr)
        forward = float(re.search(r"forward ([0-9.]+) ms", p.stderr).group(1))
        token = re.search(r"generated [0-9]+ tokens, ([0-9.]+) ms a token \(median ([0-9.]+) ms\)", p.stderr)
        whole = float(re.search(r"tokens in ([0-9.]+) ms", p.stderr).group(1))
        rows.append((forward, float(token.group(1)), float(token.group(2)), whole))
    load.append(os.getloadavg()[0])
    med = [statistics.median(r[i] for r in rows) for i in range(4)]
    print(f"GPT-2-small shape, {PROMPT}-token prompt, {COUNT} greedy tokens; {ROUNDS} rounds, medians; "
          f"load average {load[0]:.2f} before, {load[1]:.2f} after, on {os.cpu_count()} CPUs")
    print(f"  whole forward of the {PROMPT}-token prompt   {med[0]:9.1f} ms")
    print(f"  a generated token over the KV cache    {med[1]:9.2f} ms (median token {med[2]:.2f} ms)")
    print(f"  a whole forward at {PROMPT + COUNT} tokens (no cache)   {med[3]:9.1f} ms")
    print(f"  token / {PROMPT}-token forward: {med[1] / med[0]:.4f} (goal <= 0.1); without the cache a token costs "
          f"{med[3] / med[1]:.1f}x as much")


if __name__ == "__main__":
    main()
