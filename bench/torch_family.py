"""The PyTorch side of bench/family_bench.py: a fresh process that loads a Llama-family folder's
model.safetensors (mapped with numpy, handed to torch without a copy where it is F32) and runs the
same forward Attention Lab runs, in float32, keeping every head's attention weights: RMSNorm,
rotate-half RoPE, K/V repeated per group as Hugging Face's eager attention does, the SiLU-gated
MLP, the next-token probabilities of the last position.
Usage: torch_family.py FOLDER IDS   (IDS: 1,2,3); prints one JSON line of timings."""
import torch_side  # first: it times importing torch
import torch
import torch.nn.functional as F


def forward(cfg, T, ids):
    d, H, Hkv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh = cfg.get("head_dim") or d // H
    eps, n = cfg["rms_norm_eps"], len(ids)
    inv_freq = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, dh, 2, dtype=torch.float32) / dh))
    angles = torch.arange(n, dtype=torch.float32)[:, None] * inv_freq[None, :]
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)

    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

    def rotate(x):
        a, b = x[..., : dh // 2], x[..., dh // 2:]
        return x * cos + torch.cat([-b, a], -1) * sin

    x = T["model.embed_tokens.weight"][torch.tensor(ids)]
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    kept = []
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms(x, T[p + "input_layernorm.weight"])
        q = (h @ T[p + "self_attn.q_proj.weight"].T).view(n, H, dh).transpose(0, 1)
        k = (h @ T[p + "self_attn.k_proj.weight"].T).view(n, Hkv, dh).transpose(0, 1)
        v = (h @ T[p + "self_attn.v_proj.weight"].T).view(n, Hkv, dh).transpose(0, 1)
        q, k = rotate(q), rotate(k)
        k, v = k.repeat_interleave(H // Hkv, 0), v.repeat_interleave(H // Hkv, 0)
        a = torch.softmax(((q @ k.transpose(1, 2)) / dh ** 0.5).masked_fill(~mask, float("-inf")), dim=-1)
        kept.append(a)
        x = x + (a @ v).transpose(0, 1).reshape(n, H * dh) @ T[p + "self_attn.o_proj.weight"].T
        h2 = rms(x, T[p + "post_attention_layernorm.weight"])
        x = x + (F.silu(h2 @ T[p + "mlp.gate_proj.weight"].T) * (h2 @ T[p + "mlp.up_proj.weight"].T)) @ T[p + "mlp.down_proj.weight"].T
    last = rms(x[-1], T["model.norm.weight"])
    out = T.get("lm_head.weight", T["model.embed_tokens.weight"])
    probs = torch.softmax(out @ last, dim=-1)
    return kept, torch.topk(probs, 10)


if __name__ == "__main__":
    torch_side.main(forward)
