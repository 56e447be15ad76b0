"""Random Llama, Mistral, Qwen2 and Qwen3 models in the Hugging Face layout, written by hand, and a
decoder from PyTorch primitives in float64 to check Attention Lab's against (docs/MODELS.md, "The
families"). Written from the published architecture, independently of the C++:
RMSNorm, rotate-half RoPE with its frequencies and scalings, K/V heads repeated per group (as
Hugging Face's repeat_kv does), the SiLU-gated MLP. Shared by tests/model/family_cli_test.py and
bench/family_bench.py. Needs numpy; the reference needs torch (Debian python3-torch)."""
import json
import math
import os

import numpy as np

from gpt2_fixture import rounded, write_safetensors


def random_family(seed, family="llama", n_layer=3, n_head=6, n_kv_head=2, d_model=48, head_dim=None, d_ff=80, vocab=300,
                  n_ctx=64, tied=False, attention_bias=False, mlp_bias=False, rope_theta=10000.0, rope_scaling=None,
                  sliding_window=None, use_sliding_window=None, max_window_layers=None, weight_std=0.25, extra=None):
    """(config, tensors): a config.json as Hugging Face writes it and float32 weights whose attention
    is far from uniform (std 0.25, as the GPT-2 test's). head_dim None leaves it out of the config."""
    rng = np.random.default_rng(seed)
    dh = head_dim if head_dim is not None else d_model // n_head
    qw, kvw = n_head * dh, n_kv_head * dh

    def rnd(*shape, std=weight_std):
        return (rng.standard_normal(shape) * std).astype(np.float32)

    biases = {"llama": attention_bias, "mistral": False, "qwen2": True, "qwen3": attention_bias}[family]
    o_bias = attention_bias and family in ("llama", "qwen3")
    t = {"model.embed_tokens.weight": rnd(vocab, d_model, std=1.0)}
    for l in range(n_layer):
        p = f"model.layers.{l}."
        t[p + "input_layernorm.weight"] = 1 + rnd(d_model, std=0.1)
        t[p + "post_attention_layernorm.weight"] = 1 + rnd(d_model, std=0.1)
        for name, out in (("q", qw), ("k", kvw), ("v", kvw)):
            t[p + f"self_attn.{name}_proj.weight"] = rnd(out, d_model, std=weight_std / math.sqrt(d_model / 16))
            if biases:
                t[p + f"self_attn.{name}_proj.bias"] = rnd(out, std=0.1)
        t[p + "self_attn.o_proj.weight"] = rnd(d_model, qw, std=0.1)
        if o_bias:
            t[p + "self_attn.o_proj.bias"] = rnd(d_model, std=0.05)
        if family == "qwen3":
            t[p + "self_attn.q_norm.weight"] = 1 + rnd(dh, std=0.2)
            t[p + "self_attn.k_norm.weight"] = 1 + rnd(dh, std=0.2)
        t[p + "mlp.gate_proj.weight"] = rnd(d_ff, d_model, std=0.15)
        t[p + "mlp.up_proj.weight"] = rnd(d_ff, d_model, std=0.15)
        t[p + "mlp.down_proj.weight"] = rnd(d_model, d_ff, std=0.1)
        if mlp_bias:
            for name, out in (("gate", d_ff), ("up", d_ff), ("down", d_model)):
                t[p + f"mlp.{name}_proj.bias"] = rnd(out, std=0.05)
    t["model.norm.weight"] = 1 + rnd(d_model, std=0.1)
    if not tied:
        t["lm_head.weight"] = rnd(vocab, d_model, std=0.3)
    arch = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM", "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM"}
    config = {"model_type": family, "architectures": [arch[family]], "hidden_size": d_model, "num_hidden_layers": n_layer,
              "num_attention_heads": n_head, "num_key_value_heads": n_kv_head, "intermediate_size": d_ff,
              "max_position_embeddings": n_ctx, "vocab_size": vocab, "rms_norm_eps": 1e-6, "rope_theta": rope_theta,
              "rope_scaling": rope_scaling, "tie_word_embeddings": tied, "hidden_act": "silu", "torch_dtype": "float32"}
    if head_dim is not None:
        config["head_dim"] = head_dim
    if family in ("llama", "qwen3"):
        config["attention_bias"] = attention_bias
    if family == "llama":
        config["mlp_bias"] = mlp_bias
    if sliding_window is not None or family == "mistral":
        config["sliding_window"] = sliding_window
    if use_sliding_window is not None:
        config["use_sliding_window"] = use_sliding_window
    if max_window_layers is not None:
        config["max_window_layers"] = max_window_layers
    config.update(extra or {})
    return config, t


def write_family_model(folder, config, tensors, dtype="F32", shards=1):
    """config.json and the weights: model.safetensors, or `shards` files with
    model.safetensors.index.json. Returns the tensors as stored (rounded)."""
    os.makedirs(folder, exist_ok=True)
    stored = rounded(tensors, dtype)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    names = list(stored)
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), stored, dtype=dtype, metadata={"format": "pt"})
        return stored
    weight_map = {}
    for s in range(shards):
        part = names[s::shards]
        fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(os.path.join(folder, fname), {k: stored[k] for k in part}, dtype=dtype, metadata={"format": "pt"})
        weight_map.update({k: fname for k in part})
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
    return stored


def write_tokenizer_json(folder, vocab, merges):
    """A tokenizer.json in GPT-2's byte-level form for gpt2_fixture.small_tokenizer's vocab and
    merges, with <|endoftext|> as its one special token."""
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    eot = vocab["<|endoftext|>"]
    tok = {"version": "1.0", "truncation": None, "padding": None, "normalizer": None, "pre_tokenizer": byte_level,
           "post_processor": byte_level, "decoder": byte_level,
           "added_tokens": [{"id": eot, "content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False,
                             "normalized": False, "special": True}],
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "", "end_of_word_suffix": "",
                     "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]}}
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)


def inverse_frequencies(config, dh):
    """f_i = θ^(−2i/d) and the rope_scaling rules, as Hugging Face documents them: linear divides
    by the factor; llama3 slows wavelengths above original/low_freq_factor by the factor, keeps those
    below original/high_freq_factor, and interpolates linearly in original/wavelength between."""
    theta = config.get("rope_theta", 10000.0)
    f = np.array([theta ** (-2.0 * i / dh) for i in range(dh // 2)], np.float64)
    s = config.get("rope_scaling")
    if not s:
        return f
    kind = s.get("rope_type", s.get("type"))
    if kind == "linear":
        return f / s["factor"]
    assert kind == "llama3", kind
    orig, lo, hi, factor = s["original_max_position_embeddings"], s["low_freq_factor"], s["high_freq_factor"], s["factor"]
    out = []
    for fi in f:
        wavelength = 2 * math.pi / fi
        if wavelength < orig / hi:
            out.append(fi)
        elif wavelength > orig / lo:
            out.append(fi / factor)
        else:
            smooth = (orig / wavelength - lo) / (hi - lo)
            out.append((1 - smooth) * fi / factor + smooth * fi)
    return np.array(out)


def window_of(config, layer):
    """The sliding window of `layer` (0: none): mistral's whenever given; qwen2's and qwen3's only
    with use_sliding_window, from max_window_layers (default 28) on."""
    w = config.get("sliding_window")
    if not w:
        return 0
    if config["model_type"] == "mistral":
        return w
    if config["model_type"] in ("qwen2", "qwen3") and config.get("use_sliding_window"):
        return w if layer >= config.get("max_window_layers", 28) else 0
    return 0


def reference_forward(config, tensors, ids, variant=None, product=None, hook=None, lens=None, cache=None):
    """The decoder in float64 from PyTorch primitives. Returns (attention [layer][head] n × n,
    next-token probabilities, per-head largest |logit| [layer][head], (q, k, v) [layer] each
    heads × n × d_head before the rotation with k and v repeated per group, largest |output logit|).
    `variant` computes a wrong model on purpose, to show the bounds catch it: "interleaved" pairs
    neighbouring elements in the rotation (x[2i], x[2i+1]) instead of the two halves; "groups"
    gives query head h the K/V head h mod n_kv_head instead of ⌊h / group⌋. `product(x, weight name)`,
    when given, sees (and may replace) the input of every product with a weight matrix, the output
    matrix's included (gguf_fixture's error analysis: llama.cpp rounds there). `hook(layer, weights,
    values)` (heads × n × n, heads × n × d_head with the values repeated per group), when given,
    returns (weights, outputs): the weights kept and the heads' outputs that go on into the output
    projection, as a forward hook on the attention's output would (interventions). `lens`, a dict
    with "position", receives "probs": after each layer, the next-token probabilities of that
    position's stream through the final norm and the unembedding (the logit lens). `cache`, a dict
    {"k": [layer], "v": [layer]} of K/V heads × m × d_head before any rotation (empty lists for
    none), runs `ids` after its m positions, at positions m … m + n − 1 over keys 0 … m + n − 1 (each
    key rotated at its place in the cache when it is read), and appends their k and v: a KV cache
    kept as a reference keeps it, which a policy may cut between calls (a bounded cache)."""
    import torch
    import torch.nn.functional as F
    T = {k: torch.from_numpy(np.asarray(v, np.float64)) for k, v in tensors.items()}
    d, H, Hkv = config["hidden_size"], config["num_attention_heads"], config["num_key_value_heads"]
    dh = config.get("head_dim") or d // H
    eps, n = config["rms_norm_eps"], len(ids)
    group = H // Hkv

    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

    def lin(x, name):
        if product is not None:
            x = product(x, name + ".weight")
        y = x @ T[name + ".weight"].T
        return y + T[name + ".bias"] if name + ".bias" in T else y

    past = len(cache["k"][0][0]) if cache and cache["k"] else 0

    def cos_sin(first, count):
        angles = torch.arange(first, first + count, dtype=torch.float64)[:, None] * torch.from_numpy(inverse_frequencies(config, dh))[None, :]
        return torch.cos(angles), torch.sin(angles)

    def rotate(x, first=past):  # x: heads × rows × dh at positions first, first + 1, …
        cos, sin = cos_sin(first, x.shape[-2])
        if variant == "interleaved":
            a, b = x[..., 0::2], x[..., 1::2]
            out = torch.empty_like(x)
            out[..., 0::2], out[..., 1::2] = a * cos - b * sin, b * cos + a * sin
            return out
        a, b = x[..., : dh // 2], x[..., dh // 2:]
        return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)

    out_name = "lm_head.weight" if "lm_head.weight" in T else "model.embed_tokens.weight"
    x = T["model.embed_tokens.weight"][ids]
    att_all, mags, qkv_all = [], [], []
    i_idx, j_idx = past + torch.arange(n)[:, None], torch.arange(past + n)[None, :]
    for l in range(config["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms(x, T[p + "input_layernorm.weight"])
        q = lin(h, p + "self_attn.q_proj").view(n, H, dh).transpose(0, 1)
        k = lin(h, p + "self_attn.k_proj").view(n, Hkv, dh).transpose(0, 1)
        v = lin(h, p + "self_attn.v_proj").view(n, Hkv, dh).transpose(0, 1)
        if p + "self_attn.q_norm.weight" in T:
            q, k = rms(q, T[p + "self_attn.q_norm.weight"]), rms(k, T[p + "self_attn.k_norm.weight"])
        if cache is not None:
            if len(cache["k"]) <= l:
                cache["k"].append(k[:, :0]), cache["v"].append(v[:, :0])
            k, v = torch.cat([cache["k"][l], k], dim=1), torch.cat([cache["v"][l], v], dim=1)
            cache["k"][l], cache["v"][l] = k, v
        if variant == "groups":
            k_rep, v_rep = k[torch.arange(H) % Hkv], v[torch.arange(H) % Hkv]
        else:
            k_rep, v_rep = k.repeat_interleave(group, dim=0), v.repeat_interleave(group, dim=0)
        qkv_all.append((q.detach().numpy(), k_rep.detach().numpy(), v_rep.detach().numpy()))
        logits = rotate(q) @ rotate(k_rep, 0).transpose(1, 2) / math.sqrt(dh)
        visible = j_idx <= i_idx
        w = window_of(config, l)
        if w:
            visible = visible & (i_idx - j_idx < w)
        mags.append([float(logits[hh][visible].abs().max()) for hh in range(H)])
        a = torch.softmax(logits.masked_fill(~visible, float("-inf")), dim=-1)
        a, o = hook(l, a, v_rep) if hook else (a, a @ v_rep)
        att_all.append(a.detach().numpy())
        x = x + lin(o.transpose(0, 1).reshape(n, H * dh), p + "self_attn.o_proj")
        h2 = rms(x, T[p + "post_attention_layernorm.weight"])
        x = x + lin(F.silu(lin(h2, p + "mlp.gate_proj")) * lin(h2, p + "mlp.up_proj"), p + "mlp.down_proj")
        if lens is not None:
            lens.setdefault("probs", []).append(
                torch.softmax(rms(x[lens["position"]], T["model.norm.weight"]) @ T[out_name].T, dim=-1).detach().numpy())
    last = rms(x[-1], T["model.norm.weight"])
    if product is not None:
        last = product(last, out_name)
    out_logits = last @ T[out_name].T
    probs = torch.softmax(out_logits, dim=-1).detach().numpy()
    return att_all, probs, mags, qkv_all, float(out_logits.abs().max())
