"""What an intervention costs on the GPT-2-small shape (bench/model_bench.py's random model: 12 layers ×
12 heads, d_model 768, 50 257 tokens) over 64 tokens: `model --timing`'s forward time for the plain
run and for each intervention (which runs the unchanged model's forward without weights and then
the changed one with them, every head's kind included), alternately for ROUNDS rounds, medians.
The Model window keeps the unchanged run, so a click pays the changed forward: about the
intervention's time less a forward without weights. Issue 71's goal: under 0.3 s.
Usage: bench/intervention_bench.py [ATTNLAB] [ROUNDS]  (defaults build/app/attnlab, 5)"""
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from model_bench import ensure_model  # noqa: E402
ATTNLAB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "app", "attnlab")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
FOLDER = os.environ.get("MODEL_DIR", "/tmp/attnlab-gpt2-small-f32")


def forward_ms(*args):
    ids = ",".join(str((i * 7919) % 50000) for i in range(64))
    p = subprocess.run([ATTNLAB, "model", FOLDER, "--ids", ids, "--format", "json", "--timing", *args], capture_output=True, text=True, check=True)
    return float(re.search(r"forward ([0-9.]+) ms", p.stderr).group(1))


def main():
    ensure_model(FOLDER, "F32")
    other = ",".join(str((i * 104729) % 50000) for i in range(64))
    runs = {
        "plain forward": [],
        "--ablate 5.1 (zero)": ["--ablate", "5.1"],
        "--ablate 5.1,9.3 --ablation mean": ["--ablate", "5.1,9.3", "--ablation", "mean"],
        "--ablate 5.1 --ablation uniform": ["--ablate", "5.1", "--ablation", "uniform"],
        "--patch 5.1 --from-ids (64)": ["--patch", "5.1", "--from-ids", other],
        "--compare-ids (64)": ["--compare-ids", other],
        "--logit-lens": ["--logit-lens"],
    }
    times = {name: [] for name in runs}
    for _ in range(ROUNDS):
        for name, args in runs.items():
            times[name].append(forward_ms(*args))
    print(f"GPT-2-small shape, 64 tokens, {ROUNDS} rounds, median forward ms (model --timing):")
    plain = statistics.median(times["plain forward"])
    for name, t in times.items():
        m = statistics.median(t)
        print(f"  {name:36s} {m:8.1f} ms   {m / plain:5.2f}x the plain forward")


if __name__ == "__main__":
    main()
