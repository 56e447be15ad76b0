"""The trainer's gradients against PyTorch's autograd (docs/MODELS.md, "Training"), block by block
and for whole models of both families it trains.

Blocks: the tool runs each block of decoder_blocks.hpp (LayerNorm, RMSNorm, GPT-2's Conv1D with
its bias, Llama's Linear, GELU, the SiLU gate, attention with a K/V head per query head, attention
with two query heads per K/V head and the rotation, the output matrix with the cross-entropy, the
embedding) forward and backward on seeded random inputs and a random gradient of its output; the
same block in float64 here, from PyTorch primitives, given the same inputs and the same output
gradient, gives the reference outputs and gradients.

Models: for several shapes of each family (layers, heads, K/V heads, d_model, batch, task; at
initialization and after some steps), the tool writes the trainer's parameters, a batch, its loss
and every parameter's gradient; the same model built here in float64 (train_reference.py) gives
the reference.

Every value must agree within c·ε₃₂·(|ref| + √k·‖ref‖∞), where ‖ref‖∞ is the tensor's largest
reference value, k the number of terms of the longest float32 sum behind an element (the rows a
weight's gradient sums over, the width of a product, the keys and heads of an attention), and
c = 16 covers the float32 roundings carried through a few steps (the layers, for a model). The
loss must agree within c·ε₃₂·(1 + loss). The bound is checked to be tight: a reference gradient
off by one part in 10⁴ must exceed it.
Usage: train_gradient_test.py TRAIN_TOOL WORKDIR"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_reference as ref  # noqa: E402

TOOL, WORK = sys.argv[1], sys.argv[2]
EPS32 = 2.0 ** -24
C = 16
os.makedirs(WORK, exist_ok=True)
failures = []


def within(label, mine, reference, k):
    """The worst |mine − ref| as a fraction of the bound (> 1 fails, and is recorded)."""
    reference = reference.detach().numpy() if torch.is_tensor(reference) else reference
    mine = np.asarray(mine, np.float64)
    bound = C * EPS32 * (np.abs(reference) + math.sqrt(k) * np.abs(reference).max()) + 1e-30
    ratio = np.abs(mine - reference) / bound
    worst = float(ratio.max())
    if worst > 1:
        i = np.unravel_index(np.argmax(ratio), ratio.shape)
        failures.append(f"{label}{list(i)}: {mine[i]:.9g}, PyTorch's {reference[i]:.9g} (beyond the bound {bound[i]:.3g} by {worst:.2f}×)")
    if np.abs(reference).max() == 0:
        failures.append(f"{label}: the reference is all zero, so the check would pass anything")
    # The bound must tell a gradient off by 1e-4 of itself from the right one.
    if float((np.abs(reference * 1e-4) / bound).max()) <= 1:
        failures.append(f"{label}: the bound is too loose to see an error of one part in 10⁴")
    return worst


def t64(a, grad=False):
    return torch.tensor(np.asarray(a, np.float64), dtype=torch.float64, requires_grad=grad)


# -------------------------------------------------------------------------------------------------
# Blocks
# -------------------------------------------------------------------------------------------------

def check_blocks(seed):
    path = os.path.join(WORK, f"blocks_{seed}.safetensors")
    p = subprocess.run([TOOL, "blocks", str(seed), path], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"blocks: tool failed: {p.stderr.strip()}")
        return {}
    t, meta = ref.read_safetensors(path)
    worst = {}

    def check(name, outputs, grads, k_out, k_grads):
        """outputs: [(ours, reference)]; grads: [(ours, tensor with .grad)]; k per gradient."""
        w = max([within(f"{name} output", o, r, k_out) for o, r in outputs] or [0.0])
        for (g, x), k in zip(grads, k_grads):
            w = max(w, within(f"{name} gradient", g, x.grad, k))
        worst[name] = w

    for name, layer in (("layernorm", True), ("rmsnorm", False)):
        x, w = t64(t[name + ".x"], True), t64(t[name + ".w"], True)
        n, d = x.shape
        b = t64(t[name + ".b"], True) if layer else None
        y = F.layer_norm(x, (d,), w, b, 1e-5) if layer else ref.rms_norm(x, w, 1e-5)
        y.backward(t64(t[name + ".dy"]))
        grads = [(t[name + ".dx"], x), (t[name + ".dw"], w)] + ([(t[name + ".db"], b)] if layer else [])
        check(name, [(t[name + ".y"], y)], grads, d, [d, n, n])

    for name, in_out in (("conv1d", True), ("linear", False)):
        x, w = t64(t[name + ".x"], True), t64(t[name + ".w"], True)
        b = t64(t[name + ".b"], True) if name + ".b" in t else None
        y = x @ (w if in_out else w.t()) + (b if b is not None else 0)
        y.backward(t64(t[name + ".dy"]))
        n, width = x.shape
        out = y.shape[1]
        grads = [(t[name + ".dx"], x), (t[name + ".dw"], w)] + ([(t[name + ".db"], b)] if b is not None else [])
        check(name, [(t[name + ".y"], y)], grads, width, [out, n, n])

    x = t64(t["gelu.x"], True)
    y = F.gelu(x, approximate="tanh")
    y.backward(t64(t["gelu.dy"]))
    check("gelu", [(t["gelu.y"], y)], [(t["gelu.dx"], x)], 1, [1])
    gate, up = t64(t["silu_gate.gate"], True), t64(t["silu_gate.up"], True)
    y = F.silu(gate) * up
    y.backward(t64(t["silu_gate.dy"]))
    check("silu_gate", [(t["silu_gate.y"], y)], [(t["silu_gate.dgate"], gate), (t["silu_gate.dup"], up)], 1, [1, 1])

    for name in ("attention", "attention_gqa_rope"):
        info = json.loads(meta[name])
        H, G, dh, theta = info["heads"], info["kv_heads"], info["d_head"], info["rope_theta"]
        qkv = t64(t[name + ".qkv"], True)
        B, T, _ = qkv.shape
        q = qkv[..., :H * dh].reshape(B, T, H, dh).transpose(1, 2)
        k = qkv[..., H * dh:(H + G) * dh].reshape(B, T, G, dh).transpose(1, 2)
        v = qkv[..., (H + G) * dh:].reshape(B, T, G, dh).transpose(1, 2)
        if theta > 0:
            starts = torch.tensor(t[name + ".starts"].astype(np.int64))
            cos, sin = ref.rope_tables(theta, dh, starts[:, None] + torch.arange(T)[None, :])
            q, k = ref.rotate_half(q, cos[:, None], sin[:, None]), ref.rotate_half(k, cos[:, None], sin[:, None])
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        att = ((q @ k.transpose(-1, -2)) / math.sqrt(dh)).masked_fill(~mask, float("-inf")).softmax(-1)
        out = (att @ v).transpose(1, 2).reshape(B, T, H * dh)
        out.backward(t64(t[name + ".dout"]))
        check(name, [(t[name + ".out"], out)], [(t[name + ".dqkv"], qkv)], T + dh, [T * (H // G) + T + dh])

    h, w = t64(t["output.h"], True), t64(t["output.w"], True)
    targets = torch.tensor(t["output.targets"].astype(np.int64))
    loss = F.cross_entropy(h @ w.t(), targets, ignore_index=-1)
    loss.backward()
    mine = json.loads(meta["output"])["loss"]
    if abs(mine - loss.item()) > C * EPS32 * (1 + abs(loss.item())):
        failures.append(f"output: loss {mine} against PyTorch's {loss.item()}")
    n, d = h.shape
    check("output", [], [(t["output.dh"], h), (t["output.dw"], w)], 1, [w.shape[0], n])

    dx = t64(t["embed.dx"])
    E, P = t64(np.zeros(t["embed.dembed"].shape), True), t64(np.zeros(t["embed.dposition"].shape), True)
    ids, positions = (torch.tensor(t["embed." + k].astype(np.int64)) for k in ("ids", "positions"))
    (E[ids] + P[positions]).backward(dx)
    check("embed", [], [(t["embed.dembed"], E), (t["embed.dposition"], P)], 1, [dx.shape[0], dx.shape[0]])
    return worst


# -------------------------------------------------------------------------------------------------
# Models
# -------------------------------------------------------------------------------------------------

# family, task, layers, heads, K/V heads, d_model, batch, seed, length, symbols, steps before the check
SHAPES = [
    ("gpt2", "induction", 2, 4, 4, 64, 8, 1, 0, 0, 0),
    ("gpt2", "induction", 1, 1, 1, 16, 3, 2, 5, 7, 0),
    ("gpt2", "induction", 3, 2, 2, 24, 4, 3, 6, 11, 0),
    ("gpt2", "sort", 2, 4, 4, 32, 6, 4, 0, 0, 0),
    ("gpt2", "sort", 1, 8, 8, 32, 2, 5, 4, 5, 0),
    ("gpt2", "induction", 2, 4, 4, 64, 8, 6, 0, 0, 80),  # trained: sharper attention, larger weights
    ("gpt2", "sort", 2, 2, 2, 32, 8, 7, 0, 0, 60),
    ("llama", "induction", 2, 4, 2, 64, 8, 11, 0, 0, 0),
    ("llama", "induction", 1, 1, 1, 16, 3, 12, 5, 7, 0),
    ("llama", "induction", 3, 6, 3, 48, 4, 13, 6, 11, 0),
    ("llama", "sort", 2, 4, 1, 32, 6, 14, 0, 0, 0),
    ("llama", "sort", 1, 8, 8, 32, 2, 15, 4, 5, 0),
    ("llama", "induction", 2, 4, 2, 64, 8, 16, 0, 0, 80),
    ("llama", "sort", 2, 2, 1, 32, 8, 17, 0, 0, 60),
]


def check_model(shape):
    family, task, L, H, G, D, B, seed, length, symbols, steps = shape
    label = f"{family} {task} L{L} H{H}/{G} d{D} B{B} seed{seed} steps{steps}"
    path = os.path.join(WORK, f"grads_{family}_{seed}.safetensors")
    p = subprocess.run([TOOL, "grads", family, task, str(L), str(H), str(G), str(D), str(B), str(seed), str(length), str(symbols),
                        str(steps), path], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"{label}: tool failed: {p.stderr.strip()}")
        return 0.0
    t, meta = ref.read_safetensors(path)
    config = json.loads(meta["config"])
    names = [n for n in t if not n.startswith("grad.") and not n.startswith("batch.")]
    P = {n: torch.tensor(t[n], dtype=torch.float64, requires_grad=True) for n in names}
    if set(t) - set(P) - {"grad." + n for n in P} - {"batch.ids", "batch.in_loss"}:
        failures.append(f"{label}: a gradient without its parameter")
    seqs = torch.tensor(t["batch.ids"].astype(np.int64))
    in_loss = torch.tensor(t["batch.in_loss"] > 0.5)
    loss = ref.model_loss(config, P, seqs, in_loss)
    loss.backward()
    unused = [n for n, param in P.items() if param.grad is None]
    if unused:
        failures.append(f"{label}: the reference does not use {unused}")
        return 0.0
    ours = float(meta["loss"])
    if abs(ours - loss.item()) > C * EPS32 * (1 + abs(loss.item())):
        failures.append(f"{label}: loss {ours} against PyTorch's {loss.item()}")
    rows = B * (seqs.shape[1] - 1)
    worst = max(within(f"{label}: {n}", t["grad." + n], param.grad, rows) for n, param in P.items())
    print(f"{label}: loss {ours:.6f} (PyTorch {loss.item():.6f}), worst error {worst:.3f} of the bound")
    return worst


block_worst = check_blocks(3)
for name, w in block_worst.items():
    print(f"block {name}: worst error {w:.3f} of the bound")
worst = {"gpt2": 0.0, "llama": 0.0}
for shape in SHAPES:
    worst[shape[0]] = max(worst[shape[0]], check_model(shape))
print(f"worst error over all shapes: GPT-2 {worst['gpt2']:.3f}, Llama {worst['llama']:.3f} of the bound")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
