"""A GPT-2 training step written from PyTorch primitives, the reference the trainer is checked
against (docs/MODELS.md, "Training"): the same parameters by their safetensors names, the same
loss (mean cross-entropy over the positions in the loss), autograd's gradients, and AdamW with the
trainer's schedule. Shared by tests/model/train_gradient_test.py and bench/train_vs_torch.py.
Needs numpy and torch (Debian python3-torch)."""
import json
import math
import struct

import numpy as np
import torch
import torch.nn.functional as F


def read_safetensors(path):
    """name → numpy array (F32 only), and the metadata."""
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    base = 8 + n
    out = {}
    for name, t in header.items():
        assert t["dtype"] == "F32", name
        b, e = t["data_offsets"]
        out[name] = np.frombuffer(raw[base + b:base + e], dtype="<f4").reshape(t["shape"])
    return out, meta


def layer_names(n_layer):
    names = ["wte.weight", "wpe.weight"]
    for l in range(n_layer):
        h = f"h.{l}."
        names += [h + s for s in ("ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight",
                                  "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias",
                                  "mlp.c_proj.weight", "mlp.c_proj.bias")]
    return names + ["ln_f.weight", "ln_f.bias"]


def logits(P, ids, n_layer, n_head, eps=1e-5, attention=None):
    """ids: B × T token ids (a LongTensor); P: name → tensor. Returns B × T × V logits. With a
    list as `attention`, appends each layer's weights (B × heads × T × T) to it."""
    B, T = ids.shape
    C = P["wte.weight"].shape[1]
    d = C // n_head
    x = P["wte.weight"][ids] + P["wpe.weight"][:T]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    for l in range(n_layer):
        h = f"h.{l}."
        a = F.layer_norm(x, (C,), P[h + "ln_1.weight"], P[h + "ln_1.bias"], eps)
        qkv = a @ P[h + "attn.c_attn.weight"] + P[h + "attn.c_attn.bias"]
        q, k, v = (t.view(B, T, n_head, d).transpose(1, 2) for t in qkv.split(C, dim=2))
        att = ((q @ k.transpose(-1, -2)) / math.sqrt(d)).masked_fill(~mask, float("-inf")).softmax(-1)
        if attention is not None:
            attention.append(att)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + y @ P[h + "attn.c_proj.weight"] + P[h + "attn.c_proj.bias"]
        m = F.layer_norm(x, (C,), P[h + "ln_2.weight"], P[h + "ln_2.bias"], eps)
        m = F.gelu(m @ P[h + "mlp.c_fc.weight"] + P[h + "mlp.c_fc.bias"], approximate="tanh")
        x = x + m @ P[h + "mlp.c_proj.weight"] + P[h + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (C,), P["ln_f.weight"], P["ln_f.bias"], eps)
    return x @ P["wte.weight"].t()


def loss(P, seqs, in_loss, n_layer, n_head):
    """seqs: B × 2L ids; in_loss: B × (2L − 1) flags, or 2L − 1 shared by every row (position t
    predicts token t + 1)."""
    inputs, targets = seqs[:, :-1], seqs[:, 1:].clone()
    targets[~in_loss.expand_as(targets)] = -100
    out = logits(P, inputs, n_layer, n_head)
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), targets.reshape(-1), ignore_index=-100)


def learning_rate(step, steps, warmup, peak):
    """The trainer's schedule: linear warm-up, then a cosine decay to 10% of the peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, steps - warmup - 1))
    floor = 0.1 * peak
    return floor + 0.5 * (1 + math.cos(math.pi * progress)) * (peak - floor)


def adamw(P, lr, weight_decay=0.01):
    """torch.optim.AdamW with β 0.9/0.95 and decay on the 2-D weights only."""
    decay = [p for p in P.values() if p.dim() == 2]
    rest = [p for p in P.values() if p.dim() != 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}], lr=lr,
                             betas=(0.9, 0.95), eps=1e-8)
