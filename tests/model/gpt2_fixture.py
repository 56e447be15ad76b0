"""Random GPT-2 models in the Hugging Face layout, written by hand, and a GPT-2 forward pass
from PyTorch primitives to check Attention Lab's against (docs/MODELS.md). Shared by the model
tests and bench/model_bench.py. Needs numpy; the reference needs torch (Debian python3-torch)."""
import json
import os
import struct

import numpy as np


def bytes_to_unicode():
    """GPT-2's byte-to-character map: printable Latin-1 bytes stand for themselves."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


CORPUS = ("the cat sat on the mat. the dog sat on the log. hello world, hello there! "
          "attention is all you need; the heads attend to the previous token and the first token. " * 3)


def train_bpe(corpus, merges):
    """A small byte-level BPE: the most frequent adjacent pair inside each word, `merges` times."""
    b2u = bytes_to_unicode()
    words = {}
    for w in corpus.replace(".", " .").split(" "):
        if w:
            key = tuple(b2u[b] for b in (" " + w).encode())
            words[key] = words.get(key, 0) + 1
    return merge_pairs(words, merges)


def merge_pairs(words, merges):
    """BPE training: `merges` times, the most frequent adjacent pair of symbols inside the words
    (a dict of symbol tuples to counts) is merged; the pairs in the order merged."""
    out = []
    for _ in range(merges):
        counts = {}
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                counts[(a, b)] = counts.get((a, b), 0) + c
        if not counts:
            break
        best = max(sorted(counts), key=lambda p: counts[p])
        out.append(best)
        merged = {}
        for w, c in words.items():
            nw, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    nw.append(w[i] + w[i + 1])
                    i += 2
                else:
                    nw.append(w[i])
                    i += 1
            merged[tuple(nw)] = merged.get(tuple(nw), 0) + c
        words = merged
    return out


def small_tokenizer(merges=120):
    """vocab (symbol → id) and merges for a small byte-level BPE in GPT-2's format."""
    b2u = bytes_to_unicode()
    vocab = {}
    for b in sorted(b2u, key=lambda b: (b2u[b] > "ÿ", ord(b2u[b]))):
        vocab[b2u[b]] = len(vocab)
    pairs = train_bpe(CORPUS, merges)
    for a, b in pairs:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    return vocab, pairs


def rounded(tensors, dtype):
    """The float32 values a file of `dtype` stores: F16 rounded to nearest, BF16 truncated as the
    writer below truncates (both are what Attention Lab reads back exactly)."""
    out = {}
    for k, v in tensors.items():
        if dtype == "F16":
            v = v.astype(np.float16).astype(np.float32)
        elif dtype == "BF16":
            v = ((v.view(np.uint32) >> 16) << 16).view(np.float32)
        out[k] = v
    return out


def write_safetensors(path, tensors, dtype="F32", align=True, metadata=None):
    """tensors: name → float array. dtype F32, F16 or BF16. align=False leaves the data start
    off a 4-byte boundary (the format allows it; readers must not assume alignment)."""
    header, blobs, at = {}, [], 0
    for name, arr in tensors.items():
        a = np.asarray(arr, dtype=np.float32)
        if dtype == "F32":
            raw = a.astype("<f4").tobytes()
        elif dtype == "F16":
            raw = a.astype("<f2").tobytes()
        else:
            raw = (a.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    if align:
        text += b" " * ((-len(text)) % 8)
    elif (len(text) + 8) % 4 == 0:
        text += b" "
    tmp = str(path) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def random_gpt2(seed, n_layer=2, n_head=4, n_embd=32, n_positions=64, vocab=None, weight_std=0.25):
    """Random GPT-2 weights (names without the `transformer.` prefix), as float32 arrays whose
    attention is far from uniform (std 0.25 rather than GPT-2's 0.02 initialization)."""
    rng = np.random.default_rng(seed)
    V = len(vocab) if vocab is not None else 300
    d = n_embd

    def rnd(*shape, std=weight_std):
        return (rng.standard_normal(shape) * std).astype(np.float32)

    t = {"wte.weight": rnd(V, d, std=0.5), "wpe.weight": rnd(n_positions, d, std=0.3)}
    for l in range(n_layer):
        h = f"h.{l}."
        t[h + "ln_1.weight"] = (1 + rnd(d, std=0.1))
        t[h + "ln_1.bias"] = rnd(d, std=0.1)
        t[h + "attn.c_attn.weight"] = rnd(d, 3 * d)
        t[h + "attn.c_attn.bias"] = rnd(3 * d, std=0.1)
        t[h + "attn.c_proj.weight"] = rnd(d, d, std=0.1)
        t[h + "attn.c_proj.bias"] = rnd(d, std=0.05)
        t[h + "ln_2.weight"] = (1 + rnd(d, std=0.1))
        t[h + "ln_2.bias"] = rnd(d, std=0.1)
        t[h + "mlp.c_fc.weight"] = rnd(d, 4 * d, std=0.1)
        t[h + "mlp.c_fc.bias"] = rnd(4 * d, std=0.05)
        t[h + "mlp.c_proj.weight"] = rnd(4 * d, d, std=0.05)
        t[h + "mlp.c_proj.bias"] = rnd(d, std=0.05)
    t["ln_f.weight"] = (1 + rnd(d, std=0.1))
    t["ln_f.bias"] = rnd(d, std=0.1)
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": n_layer, "n_head": n_head,
              "n_embd": n_embd, "n_positions": n_positions, "n_ctx": n_positions, "vocab_size": V,
              "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
    return config, t


def write_model(folder, seed=0, dtype="F32", prefix=False, bias_buffers=False, align=True, vocab_merges=None, **sizes):
    """A whole GPT-2 folder: config.json, model.safetensors, vocab.json, merges.txt. Returns
    (config, tensors as float32 arrays as stored: F16/BF16 rounded)."""
    os.makedirs(folder, exist_ok=True)
    vocab, merges = vocab_merges if vocab_merges else small_tokenizer()
    config, t = random_gpt2(seed, vocab=vocab, **sizes)
    stored = rounded(t, dtype)
    named = {}
    for k, v in stored.items():
        named[("transformer." + k) if prefix else k] = v
    if bias_buffers:
        n = config["n_positions"]
        for l in range(config["n_layer"]):
            p = ("transformer." if prefix else "") + f"h.{l}.attn."
            named[p + "bias"] = np.tril(np.ones((1, 1, n, n), np.float32))
            named[p + "masked_bias"] = np.array(-1e4, np.float32)
    write_safetensors(os.path.join(folder, "model.safetensors"), named, dtype=dtype, align=align,
                      metadata={"format": "pt"})
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")
    return config, stored


def reference_forward(config, tensors, ids, product=None, hook=None, lens=None, cache=None):
    """GPT-2 in float64 from PyTorch primitives (layer_norm, the tanh GELU, softmax), as Hugging
    Face's GPT2Model computes it. Returns (attention [layer][head] n × n, next-token probabilities,
    per-head logits' largest magnitude [layer][head], q/k/v [layer][head]). `product(x, weight
    name)`, when given, sees (and may replace) the input of every product with a weight matrix, the
    tied output's included (gguf_fixture's error analysis: llama.cpp rounds there). `hook` and
    `lens` as family_fixture.reference_forward's: a forward hook on each layer's heads' outputs, and
    the logit lens's probabilities after each layer at lens["position"]. `cache` as
    family_fixture.reference_forward's: {"k": [layer], "v": [layer]} heads × m × d_head, `ids` run
    at positions m … m + n − 1 (their learned positions' rows) over the cached keys and their own,
    which are appended."""
    import torch
    import torch.nn.functional as F
    T = {k: torch.from_numpy(np.asarray(v, np.float64)) for k, v in tensors.items()}
    d, H = config["n_embd"], config["n_head"]
    dh = d // H
    eps = config["layer_norm_epsilon"]
    n = len(ids)

    def into(x, name):
        return x if product is None else product(x, name)

    past = len(cache["k"][0][0]) if cache and cache["k"] else 0
    x = T["wte.weight"][ids] + T["wpe.weight"][past:past + n]
    mask = torch.arange(past + n)[None, :] <= past + torch.arange(n)[:, None]
    att_all, mags, qkv_all = [], [], []
    for l in range(config["n_layer"]):
        p = f"h.{l}."
        h = F.layer_norm(x, (d,), T[p + "ln_1.weight"], T[p + "ln_1.bias"], eps)
        qkv = into(h, p + "attn.c_attn.weight") @ T[p + "attn.c_attn.weight"] + T[p + "attn.c_attn.bias"]
        q, k, v = qkv.split(d, dim=1)
        q = q.view(n, H, dh).transpose(0, 1)
        k = k.view(n, H, dh).transpose(0, 1)
        v = v.view(n, H, dh).transpose(0, 1)
        if cache is not None:
            if len(cache["k"]) <= l:
                cache["k"].append(k[:, :0]), cache["v"].append(v[:, :0])
            k, v = torch.cat([cache["k"][l], k], dim=1), torch.cat([cache["v"][l], v], dim=1)
            cache["k"][l], cache["v"][l] = k, v
        logits = (q @ k.transpose(1, 2)) / (dh ** 0.5)
        mags.append([float(logits[hh].abs().max()) for hh in range(H)])
        logits = logits.masked_fill(~mask, float("-inf"))
        a = torch.softmax(logits, dim=-1)
        a, o = hook(l, a, v) if hook else (a, a @ v)
        att_all.append(a.detach().numpy())
        qkv_all.append((q.detach().numpy(), k.detach().numpy(), v.detach().numpy()))
        o = o.transpose(0, 1).reshape(n, d)
        x = x + into(o, p + "attn.c_proj.weight") @ T[p + "attn.c_proj.weight"] + T[p + "attn.c_proj.bias"]
        h2 = F.layer_norm(x, (d,), T[p + "ln_2.weight"], T[p + "ln_2.bias"], eps)
        m = F.gelu(into(h2, p + "mlp.c_fc.weight") @ T[p + "mlp.c_fc.weight"] + T[p + "mlp.c_fc.bias"], approximate="tanh")
        x = x + into(m, p + "mlp.c_proj.weight") @ T[p + "mlp.c_proj.weight"] + T[p + "mlp.c_proj.bias"]
        if lens is not None:
            at = F.layer_norm(x[lens["position"]], (d,), T["ln_f.weight"], T["ln_f.bias"], eps)
            lens.setdefault("probs", []).append(torch.softmax(at @ T["wte.weight"].T, dim=-1).detach().numpy())
    last = F.layer_norm(x[-1], (d,), T["ln_f.weight"], T["ln_f.bias"], eps)
    out_logits = into(last, "wte.weight") @ T["wte.weight"].T
    probs = torch.softmax(out_logits, dim=-1).detach().numpy()
    return att_all, probs, mags, qkv_all, float(out_logits.abs().max())
