"""A training step of the default induction model, Attention Lab against PyTorch (CPU, the same
threads), side by side in one run (docs/PERFORMANCE.md, "Training"). Both take the same shapes
(batch × 2L − 1 tokens; the default 2 layers × 2 heads, d_model 64, read from the model attnlab
writes), the same loss, AdamW and gradient clipping; each reports the median of its steps after a
warm-up, inside its process (no start-up, no file I/O).
Usage: /usr/bin/python3 bench/train_vs_torch.py ATTNLAB [STEPS] [BATCH]"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "model"))
import train_reference as ref  # noqa: E402

ATTNLAB = sys.argv[1]
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 300
BATCH = int(sys.argv[3]) if len(sys.argv) > 3 else 0
THREADS = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count()))


def attnlab_step_ms():
    with tempfile.TemporaryDirectory() as tmp:
        args = [ATTNLAB, "train", "--steps", str(STEPS), "--out", os.path.join(tmp, "m"), "--timing", "--format", "json"]
        if BATCH:
            args += ["--batch", str(BATCH)]
        p = subprocess.run(args, capture_output=True, text=True, check=True)
        ms = float(re.search(r"median ([0-9.]+) ms a step on (\d+) threads", p.stderr).group(1))
        summary = json.loads(p.stdout)
        cfg = json.load(open(os.path.join(tmp, "m", "config.json")))
        return ms, summary, cfg


def torch_step_ms(cfg, batch):
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    L, H, C = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    V, half = cfg["vocab_size"], cfg["attnlab_task"]["half_length"]
    P = {}
    for n in ref.layer_names(L):
        if n == "wte.weight":
            shape = (V, C)
        elif n == "wpe.weight":
            shape = (cfg["n_positions"], C)
        elif n.endswith("c_attn.weight"):
            shape = (C, 3 * C)
        elif n.endswith("c_attn.bias"):
            shape = (3 * C,)
        elif n.endswith("c_fc.weight"):
            shape = (C, 4 * C)
        elif n.endswith("c_fc.bias"):
            shape = (4 * C,)
        elif n.endswith("mlp.c_proj.weight"):
            shape = (4 * C, C)
        elif n.endswith("attn.c_proj.weight"):
            shape = (C, C)
        else:
            shape = (C,)
        P[n] = (torch.randn(shape) * 0.02 if len(shape) == 2 else torch.zeros(shape)).requires_grad_(True)
    opt = ref.adamw(P, 1e-3)
    in_loss = torch.ones(2 * half - 1, dtype=torch.bool)
    times = []
    for s in range(STEPS):
        a = torch.randint(0, V, (batch, half))
        seqs = torch.cat([a, a], 1)
        t0 = time.perf_counter()
        for g in opt.param_groups:
            g["lr"] = ref.learning_rate(s, STEPS, max(1, STEPS // 10), 3e-3)
        loss = ref.loss(P, seqs, in_loss, L, H)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(P.values(), 1.0)
        opt.step()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times[STEPS // 10:])


ours, summary, cfg = attnlab_step_ms()
theirs = torch_step_ms(cfg, summary["batch"])
print(json.dumps({"threads": THREADS, "batch": summary["batch"], "tokens_per_step": summary["batch"] * (2 * cfg["attnlab_task"]["half_length"] - 1),
                  "attnlab_ms_per_step": round(ours, 3), "torch_ms_per_step": round(theirs, 3),
                  "speedup": round(theirs / ours, 2), "torch": torch.__version__}))
