"""The models the trainer trains, written from PyTorch primitives, the reference it is checked
against (docs/MODELS.md, "Training"): a GPT-2 (Hugging Face's GPT2LMHeadModel) and a Llama
(LlamaForCausalLM: RMSNorm, rotate-half RoPE, K/V heads repeated per group as Hugging Face's
repeat_kv does, SwiGLU), the same parameters by their safetensors names, the same loss (mean
cross-entropy over the positions in the loss), autograd's gradients, and AdamW with the trainer's
schedule. Shared by tests/model/train_gradient_test.py, tests/model/head_scores.py and
bench/train_vs_torch.py. Needs numpy and torch (Debian python3-torch)."""
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


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope_tables(theta, d_head, positions):
    """cos and sin of p·θ^(−2i/d), positions × d/2, in float64."""
    freqs = theta ** (-2.0 * torch.arange(d_head // 2, dtype=torch.float64) / d_head)
    angles = torch.as_tensor(positions, dtype=torch.float64)[..., None] * freqs
    return torch.cos(angles), torch.sin(angles)


def rotate_half(x, cos, sin):
    """The rotation pairing the two halves of each row (Hugging Face's rotate_half)."""
    h = x.shape[-1] // 2
    a, b = x[..., :h], x[..., h:]
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def llama_logits(P, ids, config, attention=None):
    """A Llama's B × T × V logits at positions 0 … T − 1 (config: its config.json as a dict)."""
    B, T = ids.shape
    H, G = config["num_attention_heads"], config["num_key_value_heads"]
    d = config["hidden_size"]
    dh = config.get("head_dim") or d // H
    eps = config["rms_norm_eps"]
    cos, sin = rope_tables(config.get("rope_theta", 10000.0), dh, torch.arange(T))
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    x = P["model.embed_tokens.weight"][ids]

    def lin(h, name):  # y = x·Wᵀ (+ b where the model has biases)
        y = h @ P[name + ".weight"].t()
        return y + P[name + ".bias"] if name + ".bias" in P else y

    for l in range(config["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms_norm(x, P[p + "input_layernorm.weight"], eps)
        q = lin(h, p + "self_attn.q_proj").view(B, T, H, dh).transpose(1, 2)
        k = lin(h, p + "self_attn.k_proj").view(B, T, G, dh).transpose(1, 2)
        v = lin(h, p + "self_attn.v_proj").view(B, T, G, dh).transpose(1, 2)
        q, k = rotate_half(q, cos, sin), rotate_half(k, cos, sin)
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
        att = ((q @ k.transpose(-1, -2)) / math.sqrt(dh)).masked_fill(~mask, float("-inf")).softmax(-1)
        if attention is not None:
            attention.append(att)
        y = (att @ v).transpose(1, 2).reshape(B, T, H * dh)
        x = x + lin(y, p + "self_attn.o_proj")
        m = rms_norm(x, P[p + "post_attention_layernorm.weight"], eps)
        x = x + lin(F.silu(lin(m, p + "mlp.gate_proj")) * lin(m, p + "mlp.up_proj"), p + "mlp.down_proj")
    x = rms_norm(x, P["model.norm.weight"], eps)
    return x @ P.get("lm_head.weight", P["model.embed_tokens.weight"]).t()


def is_llama(config):
    return config.get("model_type") == "llama"


def shape(config):
    """(layers, query heads) of a GPT-2's or a Llama's config.json."""
    if is_llama(config):
        return config["num_hidden_layers"], config["num_attention_heads"]
    return config["n_layer"], config["n_head"]


def model_logits(config, P, ids, attention=None):
    """B × T × V logits of the model config.json describes."""
    if is_llama(config):
        return llama_logits(P, ids, config, attention=attention)
    return logits(P, ids, config["n_layer"], config["n_head"], config.get("layer_norm_epsilon", 1e-5), attention=attention)


def cross_entropy(out, seqs, in_loss):
    targets = seqs[:, 1:].clone()
    targets[~in_loss.expand_as(targets)] = -100
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), targets.reshape(-1), ignore_index=-100)


def loss(P, seqs, in_loss, n_layer, n_head):
    """A GPT-2's loss. seqs: B × 2L ids; in_loss: B × (2L − 1) flags, or 2L − 1 shared by every row
    (position t predicts token t + 1)."""
    return cross_entropy(logits(P, seqs[:, :-1], n_layer, n_head), seqs, in_loss)


def model_loss(config, P, seqs, in_loss):
    """The loss of the model config.json describes, as loss() says."""
    return cross_entropy(model_logits(config, P, seqs[:, :-1]), seqs, in_loss)


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
