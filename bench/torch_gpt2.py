"""The PyTorch side of bench/model_bench.py: a fresh process that loads a GPT-2 folder's
model.safetensors (mapped with numpy, handed to torch without a copy where it is F32) and runs the
same forward Attention Lab runs, keeping every head's attention weights, in float32.
Usage: torch_gpt2.py FOLDER IDS   (IDS: 1,2,3); prints one JSON line of timings."""
import torch_side  # first: it times importing torch
import torch
import torch.nn.functional as F


def forward(cfg, T, ids):
    d, H = cfg["n_embd"], cfg["n_head"]
    dh = d // H
    eps = cfg["layer_norm_epsilon"]
    n = len(ids)
    idx = torch.tensor(ids)
    x = T["wte.weight"][idx] + T["wpe.weight"][:n]
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    kept = []
    for l in range(cfg["n_layer"]):
        p = f"h.{l}."
        h = F.layer_norm(x, (d,), T[p + "ln_1.weight"], T[p + "ln_1.bias"], eps)
        qkv = torch.addmm(T[p + "attn.c_attn.bias"], h, T[p + "attn.c_attn.weight"])
        q, k, v = (t.view(n, H, dh).transpose(0, 1) for t in qkv.split(d, dim=1))
        a = torch.softmax(((q @ k.transpose(1, 2)) / dh ** 0.5).masked_fill(~mask, float("-inf")), dim=-1)
        kept.append(a)
        o = (a @ v).transpose(0, 1).reshape(n, d)
        x = x + torch.addmm(T[p + "attn.c_proj.bias"], o, T[p + "attn.c_proj.weight"])
        h2 = F.layer_norm(x, (d,), T[p + "ln_2.weight"], T[p + "ln_2.bias"], eps)
        m = F.gelu(torch.addmm(T[p + "mlp.c_fc.bias"], h2, T[p + "mlp.c_fc.weight"]), approximate="tanh")
        x = x + torch.addmm(T[p + "mlp.c_proj.bias"], m, T[p + "mlp.c_proj.weight"])
    last = F.layer_norm(x[-1], (d,), T["ln_f.weight"], T["ln_f.bias"], eps)
    probs = torch.softmax(T["wte.weight"] @ last, dim=-1)
    return kept, torch.topk(probs, 10)


if __name__ == "__main__":
    torch_side.main(forward, strip_prefix="transformer.")
