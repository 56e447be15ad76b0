"""A training step of the default induction model, Attention Lab against PyTorch (CPU, the same
threads), side by side in one run (docs/PERFORMANCE.md, "Training"). Both take the same shapes
(batch × 2L − 1 tokens; the family's default model, read from the folder attnlab writes), the same
loss, AdamW and gradient clipping; each reports the median of its steps after a warm-up, inside
its process (no start-up, no file I/O); PyTorch's idle threads sleep, as attnlab's do. Given
several attnlab executables (a build before a change
and after it), it runs them and PyTorch in turn, round after round, so that all see the same
minutes of the machine.
Usage: /usr/bin/python3 bench/train_vs_torch.py ATTNLAB [ATTNLAB …] [--steps S] [--batch B]
       [--family gpt2|llama] [--rounds R]"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# PyTorch's OpenMP threads sleep when idle, as attnlab's do (blas::reexec_with_tuned_runtime): with
# GOMP's default spinning, a step on a machine with other work took 16× longer (docs/PERFORMANCE.md).
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "model"))
import train_reference as ref  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("attnlab", nargs="+")
parser.add_argument("--steps", type=int, default=300)
parser.add_argument("--batch", type=int, default=0)
parser.add_argument("--family", default="gpt2")
parser.add_argument("--rounds", type=int, default=1)
args = parser.parse_args()
THREADS = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count()))


def attnlab_step_ms(attnlab, tmp):
    """(median ms a step, the JSON summary, the folder written) of one `attnlab train --timing`."""
    out = os.path.join(tmp, "m")
    cmd = [attnlab, "train", "--steps", str(args.steps), "--out", out, "--force", "--timing", "--format", "json"]
    if args.family != "gpt2":
        cmd += ["--family", args.family]
    if args.batch:
        cmd += ["--batch", str(args.batch)]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    ms = float(re.search(r"median ([0-9.]+) ms a step on (\d+) threads", p.stderr).group(1))
    return ms, json.loads(p.stdout), out


def torch_step_ms(folder, batch):
    """The same model's step in PyTorch: its parameters (names and shapes from the folder), the
    reference forward (train_reference.py), autograd, clipping and AdamW."""
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    config = json.load(open(os.path.join(folder, "config.json")))
    tensors, _ = ref.read_safetensors(os.path.join(folder, "model.safetensors"))
    P = {n: (torch.randn(t.shape, dtype=torch.float32) * 0.02 if t.ndim == 2 else torch.ones(t.shape)).requires_grad_(True)
         for n, t in tensors.items()}
    V, half = config["vocab_size"], config["attnlab_task"]["half_length"]
    opt = ref.adamw(P, 1e-3)
    in_loss = torch.ones(2 * half - 1, dtype=torch.bool)
    times = []
    for s in range(args.steps):
        a = torch.randint(0, V, (batch, half))
        seqs = torch.cat([a, a], 1)
        t0 = time.perf_counter()
        for g in opt.param_groups:
            g["lr"] = ref.learning_rate(s, args.steps, max(1, args.steps // 10), 3e-3)
        loss = ref.model_loss(config, P, seqs, in_loss)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(P.values(), 1.0)
        opt.step()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times[args.steps // 10:])


ours = {a: [] for a in args.attnlab}
theirs = []
with tempfile.TemporaryDirectory() as tmp:
    for _ in range(args.rounds):
        for a in args.attnlab:
            ms, summary, folder = attnlab_step_ms(a, tmp)
            ours[a].append(ms)
            tokens = summary["batch"] * (2 * json.load(open(os.path.join(folder, "config.json")))["attnlab_task"]["half_length"] - 1)
        theirs.append(torch_step_ms(folder, summary["batch"]))
torch_ms = statistics.median(theirs)
for a, times in ours.items():
    ms = statistics.median(times)
    print(json.dumps({"attnlab": a, "family": args.family, "threads": THREADS, "batch": summary["batch"], "tokens_per_step": tokens,
                      "rounds": args.rounds,
                      "attnlab_ms_per_step": round(ms, 3), "attnlab_rounds": [round(t, 3) for t in times],
                      "torch_ms_per_step": round(torch_ms, 3), "torch_rounds": [round(t, 3) for t in theirs],
                      "speedup": round(torch_ms / ms, 2), "torch": torch.__version__}))
