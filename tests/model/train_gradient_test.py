"""The trainer's gradients against PyTorch's autograd (docs/MODELS.md, "Training"): for several
shapes (layers, heads, d_model, batch, task; at initialization and after some steps), the tool
writes the trainer's parameters, a batch, its loss and every parameter's gradient; the same GPT-2
built here from PyTorch primitives in float64 gives the reference. Every gradient element must
agree within c·ε₃₂·(|g_ref| + s·‖g_ref‖∞), where ‖g_ref‖∞ is the tensor's largest reference
gradient, s = √(rows summed) accounts for the float32 sums over the batch's positions behind each
weight gradient, and c = 16 covers the float32 roundings of the forward carried through the layers.
The loss must agree within c·ε₃₂·(1 + loss).
Usage: train_gradient_test.py TRAIN_TOOL WORKDIR"""
import math
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_reference as ref  # noqa: E402

TOOL, WORK = sys.argv[1], sys.argv[2]
EPS32 = 2.0 ** -24
C = 16
os.makedirs(WORK, exist_ok=True)
failures = []

# task, layers, heads, d_model, batch, seed, length, symbols, steps before the check
SHAPES = [
    ("induction", 2, 4, 64, 8, 1, 0, 0, 0),
    ("induction", 1, 1, 16, 3, 2, 5, 7, 0),
    ("induction", 3, 2, 24, 4, 3, 6, 11, 0),
    ("sort", 2, 4, 32, 6, 4, 0, 0, 0),
    ("sort", 1, 8, 32, 2, 5, 4, 5, 0),
    ("induction", 2, 4, 64, 8, 6, 0, 0, 80),  # trained: sharper attention, larger weights
    ("sort", 2, 2, 32, 8, 7, 0, 0, 60),
]

worst_overall = 0.0
for shape in SHAPES:
    task, L, H, D, B, seed, length, symbols, steps = shape
    label = f"{task} L{L} H{H} d{D} B{B} seed{seed} steps{steps}"
    path = os.path.join(WORK, f"grads_{seed}.safetensors")
    p = subprocess.run([TOOL, "grads", task, str(L), str(H), str(D), str(B), str(seed), str(length), str(symbols), str(steps), path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"{label}: tool failed: {p.stderr.strip()}")
        continue
    t, meta = ref.read_safetensors(path)
    P = {n: torch.tensor(t[n], dtype=torch.float64, requires_grad=True) for n in ref.layer_names(L)}
    extra = set(t) - set(P) - {"grad." + n for n in P} - {"batch.ids", "batch.in_loss"}
    if extra:
        failures.append(f"{label}: unexpected tensors {sorted(extra)}")
    seqs = torch.tensor(t["batch.ids"].astype(np.int64))
    in_loss = torch.tensor(t["batch.in_loss"] > 0.5)
    loss = ref.loss(P, seqs, in_loss, L, H)
    loss.backward()
    ours = float(meta["loss"])
    if abs(ours - loss.item()) > C * EPS32 * (1 + abs(loss.item())):
        failures.append(f"{label}: loss {ours} against PyTorch's {loss.item()}")
    rows = B * (seqs.shape[1] - 1)
    worst = 0.0
    for n, param in P.items():
        g_ref = param.grad.numpy()
        g = t["grad." + n].astype(np.float64)
        scale = np.abs(g_ref).max()
        bound = C * EPS32 * (np.abs(g_ref) + math.sqrt(rows) * scale) + 1e-30
        ratio = float((np.abs(g - g_ref) / bound).max())
        worst = max(worst, ratio)
        if ratio > 1:
            i = np.unravel_index(np.argmax(np.abs(g - g_ref) / bound), g.shape)
            failures.append(f"{label}: {n}{list(i)}: gradient {g[i]:.9g}, PyTorch's {g_ref[i]:.9g} "
                            f"(beyond the bound {bound[i]:.3g} by {ratio:.2f}×)")
    # A gradient that is all zero would pass trivially; the reference's must not be.
    if all(float(np.abs(P[n].grad.numpy()).max()) == 0 for n in P):
        failures.append(f"{label}: every reference gradient is zero")
    worst_overall = max(worst_overall, worst)
    print(f"{label}: loss {ours:.6f} (PyTorch {loss.item():.6f}), worst error {worst:.3f} of the bound")

print(f"worst error over all shapes: {worst_overall:.3f} of the bound")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
