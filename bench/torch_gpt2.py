"""The PyTorch side of bench/model_bench.py: a fresh process that loads a GPT-2 folder's
model.safetensors (mapped with numpy, handed to torch without a copy where it is F32) and runs the
same forward Attention Lab runs, keeping every head's attention weights, in float32.
Usage: torch_gpt2.py FOLDER IDS   (IDS: 1,2,3); prints one JSON line of timings."""
import json
import sys
import time

T0 = time.perf_counter()
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

T_IMPORT = time.perf_counter()


def load(folder):
    cfg = json.load(open(folder + "/config.json"))
    raw = np.memmap(folder + "/model.safetensors", dtype=np.uint8, mode="r")
    n = int(raw[:8].view("<u8")[0])
    header = json.loads(bytes(raw[8:8 + n]))
    base = 8 + n
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        dt = {"F32": "<f4", "F16": "<f2"}[t["dtype"]]
        arr = np.frombuffer(raw, dtype=dt, count=(e - b) // np.dtype(dt).itemsize, offset=base + b).reshape(t["shape"])
        ten = torch.from_numpy(arr) if dt == "<f4" else torch.from_numpy(arr).float()
        out[name.removeprefix("transformer.")] = ten
    return cfg, out


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


def main():
    folder, ids = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
    with torch.inference_mode():
        t1 = time.perf_counter()
        cfg, T = load(folder)
        t2 = time.perf_counter()
        forward(cfg, T, ids)
        t3 = time.perf_counter()
    print(json.dumps({"import_ms": (T_IMPORT - T0) * 1e3, "load_ms": (t2 - t1) * 1e3, "forward_ms": (t3 - t2) * 1e3,
                      "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
