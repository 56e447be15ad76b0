"""Attention Lab's forward of a model family against PyTorch's on a SmolLM2-135M-shaped random
model (llama: 30 layers, 9 query and 3 K/V heads, d_model 576, intermediate 1536, head_dim 64,
tied, 49 152 tokens, rope_theta 100000; docs/PERFORMANCE.md, "Real models"): load plus a 64-token
forward as a whole fresh process, each tool's wall time and peak resident memory (GNU time),
alternately for ROUNDS rounds, medians shown.
Usage: bench/family_bench.py [ATTNLAB] [ROUNDS]  (defaults build/app/attnlab, 5)"""
import json
import os
import re
import statistics
import struct
import sys

import numpy as np

from process_timing import timed

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.environ.get("MODEL_DIR", "/tmp/attnlab-smollm2-135m-f32")
CONFIG = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 576, "num_hidden_layers": 30,
          "num_attention_heads": 9, "num_key_value_heads": 3, "head_dim": 64, "intermediate_size": 1536,
          "max_position_embeddings": 8192, "vocab_size": 49152, "rms_norm_eps": 1e-5, "rope_theta": 100000.0,
          "rope_scaling": None, "tie_word_embeddings": True, "hidden_act": "silu"}


def shapes(c):
    d, qw, kvw, ff = c["hidden_size"], c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"], \
        c["intermediate_size"]
    out = [("model.embed_tokens.weight", (c["vocab_size"], d))]
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        out += [(p + "input_layernorm.weight", (d,)), (p + "post_attention_layernorm.weight", (d,)),
                (p + "self_attn.q_proj.weight", (qw, d)), (p + "self_attn.k_proj.weight", (kvw, d)),
                (p + "self_attn.v_proj.weight", (kvw, d)), (p + "self_attn.o_proj.weight", (d, qw)),
                (p + "mlp.gate_proj.weight", (ff, d)), (p + "mlp.up_proj.weight", (ff, d)), (p + "mlp.down_proj.weight", (d, ff))]
    return out + [("model.norm.weight", (d,))]


def write_model(folder=FOLDER, config=CONFIG):
    """Streams the F32 file tensor by tensor, so writing it never holds the whole model."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(135)
    header, at = {}, 0
    for name, shape in shapes(config):
        size = 4 * int(np.prod(shape))
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [at, at + size]}
        at += size
    text = json.dumps(header).encode()
    text += b" " * ((-len(text)) % 8)
    tmp = os.path.join(folder, "model.safetensors.tmp")
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name, shape in shapes(config):
            a = (1 + 0.1 * rng.standard_normal(shape)) if len(shape) == 1 else 0.02 * rng.standard_normal(shape)
            f.write(a.astype("<f4").tobytes())
    os.replace(tmp, os.path.join(folder, "model.safetensors"))
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)


def main():
    attnlab = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "app", "attnlab")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if not os.path.exists(os.path.join(FOLDER, "model.safetensors")):
        print(f"writing a SmolLM2-135M-shaped random model (F32) to {FOLDER} ...", flush=True)
        write_model()
    size_mib = os.path.getsize(os.path.join(FOLDER, "model.safetensors")) / 2 ** 20
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"model file: {size_mib:.0f} MiB (F32); {rounds} rounds alternating, medians; load average {load} on {os.cpu_count()} CPUs")
    ids = ",".join(str((i * 7919) % 49152) for i in range(64))
    rows = {"attnlab": [], "pytorch": []}
    for _ in range(rounds):
        wall, rss, _, err = timed([attnlab, "model", FOLDER, "--ids", ids, "--format", "text", "--timing"])
        t = re.search(r"load ([0-9.]+) ms, forward ([0-9.]+) ms", err)
        rows["attnlab"].append((wall, rss, float(t.group(1)), float(t.group(2))))
        wall, rss, out, _ = timed(["/usr/bin/python3", os.path.join(HERE, "torch_family.py"), FOLDER, ids])
        j = json.loads(out)
        rows["pytorch"].append((wall, rss, j["load_ms"], j["forward_ms"]))
    print("\n64 tokens        process s   peak MiB  (x file)   load ms   forward ms")
    for tool, r in rows.items():
        med = [statistics.median(x[i] for x in r) for i in range(4)]
        print(f"  {tool:9s}  {med[0]:10.2f}  {med[1]:9.0f}  ({med[1] / size_mib:.2f})  {med[2]:9.1f}  {med[3]:11.1f}")
    speed = statistics.median(x[0] for x in rows["pytorch"]) / statistics.median(x[0] for x in rows["attnlab"])
    print(f"  whole process: attnlab {speed:.2f}x faster than PyTorch")


if __name__ == "__main__":
    main()
