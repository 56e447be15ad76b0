"""attnlab model on random Llama, Mistral, Qwen2 and Qwen3 models written here (docs/MODELS.md, "The
families"): every head's attention weights, a head's q, k, v and the next-token
probabilities against a float64 decoder from PyTorch primitives (family_fixture.py), within bounds
derived from the magnitudes, at several sequence lengths; the bounds shown to catch a wrong
rotation and a wrong K/V grouping; the Hugging Face cache lookup; every bad input of issue 34
answered by exit 2 and one sentence.
Usage: family_cli_test.py ATTNLAB WORKDIR"""
import json
import math
import os
import shutil
import sys

import numpy as np

import family_fixture as ff
import gpt2_fixture as fx
from model_checks import bad_input_check, bound, check, finish, runner, within

ATTNLAB, WORK = sys.argv[1], sys.argv[2]
run = runner(ATTNLAB)
bad = bad_input_check(run)

LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 64}
# name, random_family arguments, dtype, shards. Together: every family; F32, F16, BF16; one file
# and shards; tied and untied output; llama3 and linear scaling; llama's attention and MLP biases;
# a sliding window shorter than the text (mistral, and qwen2's from max_window_layers on); qwen2's
# biases with its window off; qwen3's q/k norms with a head_dim that is not hidden_size / heads.
VARIANTS = [
    ("llama-llama3-untied-f32", dict(family="llama", rope_scaling=LLAMA3), "F32", 1),
    ("llama-linear-bias-tied-bf16-sharded", dict(family="llama", rope_scaling={"type": "linear", "factor": 2.0}, attention_bias=True,
                                                 mlp_bias=True, tied=True, n_kv_head=3), "BF16", 3),
    ("mistral-window-f16", dict(family="mistral", sliding_window=5, rope_theta=1e6), "F16", 1),
    ("qwen2-bias-tied-sharded", dict(family="qwen2", tied=True, sliding_window=4, use_sliding_window=False), "F32", 2),
    ("qwen2-window-from-layer-1", dict(family="qwen2", sliding_window=6, use_sliding_window=True, max_window_layers=1), "F32", 1),
    ("qwen3-qknorm-headdim-bf16", dict(family="qwen3", head_dim=12, n_kv_head=1), "BF16", 1),
]


def compare(folder, config, stored, ids, layer, head, label):
    """Every head's weights, the chosen head's q, k, v and every next-token probability against the
    reference; returns the output and the worst error as a fraction of its bound."""
    V, L, H = config["vocab_size"], config["num_hidden_layers"], config["num_attention_heads"]
    p = run("model", folder, "--ids", ",".join(map(str, ids)), "--layer", str(layer), "--head", str(head), "--top", str(V),
            "--format", "json")
    if p.returncode != 0:
        return None, 0
    out = json.loads(p.stdout)
    att, probs, mags, qkv, logit_mag = ff.reference_forward(config, stored, ids)
    dh = config.get("head_dim") or config["hidden_size"] // H
    width = max(config["hidden_size"], config["intermediate_size"], H * dh)
    worst = 0.0
    check(len(out["attention"]) == L and all(len(x) == H for x in out["attention"]), f"{label}: attention is not [layer][head]")
    for l in range(L):
        for h in range(H):
            a = np.array(out["attention"][l][h], np.float64)
            worst = max(worst, within(a, att[l][h], bound(width, l + 1, mags[l][h]), f"{label}: L{l}H{h} weights"))
            w = ff.window_of(config, l)
            allowed = np.tril(np.ones_like(a)) * (np.triu(np.ones_like(a), -(w - 1)) if w else 1)
            check(np.all(a[allowed == 0] == 0) and np.allclose(a.sum(axis=1), 1, atol=1e-5),
                  f"{label}: L{l}H{h} not rows summing to 1 over the visible keys")
    for i, name in enumerate(("q", "k", "v")):
        ref = qkv[layer][i][head]
        worst = max(worst, within(out[name], ref, bound(width, layer + 1, np.abs(ref).max()), f"{label}: L{layer}H{head} {name}"))
    mine = np.zeros(V)
    for t in out["next_token"]:
        mine[t["id"]] = t["prob"]
    worst = max(worst, within(mine, probs, bound(width, L + 1, logit_mag), f"{label}: next-token probabilities"))
    return out, worst


def check_model_object(out, config, stored, label):
    m = out["model"]
    H, Hkv = config["num_attention_heads"], config["num_key_value_heads"]
    window = [ff.window_of(config, l) for l in range(config["num_hidden_layers"])]
    expect = {"family": config["model_type"], "n_layer": config["num_hidden_layers"], "n_head": H, "n_kv_head": Hkv,
              "d_model": config["hidden_size"], "d_head": config.get("head_dim") or config["hidden_size"] // H,
              "n_ctx": config["max_position_embeddings"], "vocab_size": config["vocab_size"], "positions": "rope",
              "rope_theta": config["rope_theta"], "sliding_window": max(window) or None, "task": None,
              "parameters": sum(int(np.prod(x.shape)) for x in stored.values())}
    for k, v in expect.items():
        check(m.get(k) == v, f"{label}: model.{k} is {m.get(k)!r}, not {v!r}")
    kv = [[hv["kv_group"] for hv in row] for row in out["heads"]]
    check(all(row == [h // (H // Hkv) for h in range(H)] for row in kv), f"{label}: kv_group {kv[0]}")


def check_bounds_catch_mistakes(folder, config, stored, ids):
    """The bounds are tight enough to see a rotation that pairs neighbours instead of halves, and
    query heads given the wrong K/V heads: each wrong reference misses attnlab's weights."""
    out = json.loads(run("model", folder, "--ids", ",".join(map(str, ids)), "--format", "json").stdout)
    H = config["num_attention_heads"]
    dh = config.get("head_dim") or config["hidden_size"] // H
    width = max(config["hidden_size"], config["intermediate_size"], H * dh)
    for variant in ("interleaved", "groups"):
        att, _, mags, _, _ = ff.reference_forward(config, stored, ids, variant=variant)
        ratio = max(np.abs(np.array(out["attention"][l][h]) - att[l][h]).max() / bound(width, l + 1, mags[l][h])
                    for l in range(config["num_hidden_layers"]) for h in range(H))
        check(ratio > 10, f"the {variant} mistake stays within {ratio:.2f} of the bound: the bounds would not catch it")


def families(rng):
    folders = {}
    for i, (name, kw, dtype, shards) in enumerate(VARIANTS):
        folder = os.path.join(WORK, name)
        config, tensors = ff.random_family(300 + i, **kw)
        stored = ff.write_family_model(folder, config, tensors, dtype=dtype, shards=shards)
        folders[name] = (folder, config, stored)
        V, n_ctx = config["vocab_size"], config["max_position_embeddings"]
        ids = [int(x) for x in rng.integers(0, V, size=40)]
        ids[25:35] = ids[5:15]  # a repeat, so induction is measurable
        worst = 0.0
        for seq, layer, head in ((ids, 2, 4), (ids[:1], 0, 0), ([int(x) for x in rng.integers(0, V, size=n_ctx)], 1, 5)):
            out, w = compare(folder, config, stored, seq, layer, head, f"{name} n={len(seq)}")
            worst = max(worst, w)
            if out:
                check_model_object(out, config, stored, name)
        print(f"{name}: worst error / bound = {worst:.3f}")
    folder, config, stored = folders["llama-llama3-untied-f32"]
    check_bounds_catch_mistakes(folder, config, stored, [int(x) for x in rng.integers(0, config["vocab_size"], size=40)])
    return folders


def text_runs(folder):
    """A tokenizer.json in GPT-2's byte-level form, written from the same small BPE as a GPT-2
    folder's vocab.json and merges.txt: --text gives the ids GPT-2's tokenizer gives, runs as those
    ids do, and a text longer than max_position_embeddings is refused."""
    vocab, merges = fx.small_tokenizer(merges=30)
    with_json = os.path.join(WORK, "with-tokenizer-json")
    shutil.copytree(folder, with_json)
    ff.write_tokenizer_json(with_json, vocab, merges)
    gpt2 = os.path.join(WORK, "gpt2-same-bpe")
    fx.write_model(gpt2, seed=4, n_layer=1, n_head=2, n_embd=16, n_positions=64, vocab_merges=(vocab, merges))
    text = "the cat sat on the mat. hello world!"
    mine = run("model", with_json, "--text", text, "--format", "json")
    theirs = run("model", gpt2, "--text", text, "--format", "json")
    if mine.returncode == 0 and theirs.returncode == 0:
        a, b = json.loads(mine.stdout), json.loads(theirs.stdout)
        check(a["tokens"] == b["tokens"] and len(a["tokens"]) > 5, f"tokenizer.json tokens {a['tokens']} differ from GPT-2's {b['tokens']}")
        by_ids = json.loads(run("model", with_json, "--ids", ",".join(str(t["id"]) for t in a["tokens"]), "--format", "json").stdout)
        check(by_ids["attention"] == a["attention"] and by_ids["next_token"] == a["next_token"], "--text runs otherwise than its --ids")
    bad(["model", with_json, "--text", "the " * 70], "--text", "more than this model's 64 positions", "max_position_embeddings")


def lifted_rotary_head(folder, ids):
    """compute --model lifts a rotary head's q and k before the rotation with the model's rope on:
    the lab's weights are the model's own, within the float32 rounding of both sides' dot products
    (each |Δscore| ≤ 2·d·u·Σ_l |q̃_l k̃_l|, and a softmax moves by at most twice the largest |Δlogit|
    of its row). --no-rope then shows the head without positions: other weights."""
    args = ["compute", "--model", folder, "--ids", ids, "--layer", "0", "--head", "1", "--format", "json"]
    lab = json.loads(run(*args).stdout)
    own = json.loads(run("model", folder, "--ids", ids, "--layer", "0", "--head", "1", "--format", "json").stdout)
    check(lab["rope"] is not None and "rotated_q" in lab and "rotated_k" in lab, f"the lifted head runs without its rotation: {lab.get('rope')}")
    q, k = lab["rotated_q"], lab["rotated_k"]
    d = len(q[0])
    u = 2.0 ** -24
    for i, (row_lab, row_own) in enumerate(zip(lab["weights"], own["attention"][0][1])):
        dlogit = max(2 * d * u * sum(abs(a * b) for a, b in zip(q[i], k[j])) / math.sqrt(d) for j in range(len(k)))
        worst = max(abs(a - b) for a, b in zip(row_lab, row_own))
        check(worst <= 2 * dlogit + 1e-7, f"row {i}: the lab's weights differ from the model's by {worst} (bound {2 * dlogit + 1e-7})")
    plain = json.loads(run(*args, "--no-rope").stdout)
    check("rope" not in plain or plain["rope"] is None, "--no-rope left the rotation on")
    moved = max(abs(a - b) for ra, rb in zip(plain["weights"], lab["weights"]) for a, b in zip(ra, rb))
    check(moved > 1e-3, "switching the rotation off changed no weight")


def tokenizers_and_saving(folders):
    folder, config, stored = folders["llama-linear-bias-tied-bf16-sharded"]
    ids = "5,17,42,8"
    out = json.loads(run("model", folder, "--ids", ids, "--format", "json").stdout)
    check([t["text"] for t in out["tokens"]] == ["<5>", "<17>", "<42>", "<8>"], f"tokens without a tokenizer: {out['tokens']}")
    bad(["model", folder, "--text", "hello"], "tokenizer.json", "missing", "--ids")
    broken = os.path.join(WORK, "broken-tokenizer-json")
    shutil.copytree(folder, broken)
    open(os.path.join(broken, "tokenizer.json"), "w").write("{}")
    bad(["model", broken, "--ids", ids], "tokenizer.json")  # files that are there must be right
    text_runs(folder)
    # --save copies the shards and their index; the copy gives the same numbers.
    saved = os.path.join(WORK, "saved-sharded")
    run("model", folder, "--ids", ids, "--save", saved)
    check(sorted(os.listdir(saved)) == sorted(os.listdir(folder)), f"--save wrote {sorted(os.listdir(saved))}")
    a, b = (json.loads(run("model", f, "--ids", ids, "--format", "json").stdout) for f in (saved, folder))
    a["model"].pop("name")  # the folder's name
    b["model"].pop("name")
    check(a == b, "the saved sharded model gives other numbers")
    # The text report names the grouping, the rotation and the window.
    m_folder = folders["mistral-window-f16"][0]
    t = run("model", m_folder, "--ids", ids).stdout
    check("query heads share each of 2 K/V heads" in t and "rotary positions, theta 1000000" in t and "sliding window of 5" in t,
          f"text report:\n{t}")
    lifted_rotary_head(folder, ids)
    # A GPT-2 folder runs on ids without vocab.json and merges.txt; its tokens are then labelled by id.
    gpt2 = os.path.join(WORK, "gpt2-no-tokenizer")
    fx.write_model(gpt2, seed=3, n_layer=2, n_head=2, n_embd=16, n_positions=16)
    for f in ("vocab.json", "merges.txt"):
        os.remove(os.path.join(gpt2, f))
    g = run("model", gpt2, "--ids", "1,2,3", "--format", "json")
    if g.returncode == 0:
        gj = json.loads(g.stdout)
        check([t["text"] for t in gj["tokens"]] == ["<1>", "<2>", "<3>"] and gj["model"]["positions"] == "learned"
              and gj["model"]["rope_theta"] is None and gj["model"]["n_kv_head"] == 2 and gj["model"]["sliding_window"] is None
              and [hv["kv_group"] for hv in gj["heads"][0]] == [0, 1], f"GPT-2 on ids: {gj['model']} {gj['tokens']}")
    bad(["model", gpt2, "--text", "the cat"], "vocab.json", "missing")


def hf_cache(folders):
    """The Hugging Face cache: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub;
    models--org--name/refs/main names the snapshot; a local folder of that name wins; a miss names
    the folder searched and the command that would fetch it."""
    folder = folders["qwen2-bias-tied-sharded"][0]
    ids = "3,1,4,1,5"
    want = run("model", folder, "--ids", ids, "--format", "json").stdout

    def fake_cache(root, repo="TestOrg/Tiny-Qwen2", rev="0123abcd" * 5):
        repo_dir = os.path.join(root, "models--" + repo.replace("/", "--"))
        snap = os.path.join(repo_dir, "snapshots", rev)
        shutil.copytree(folder, snap)
        os.makedirs(os.path.join(repo_dir, "refs"), exist_ok=True)
        open(os.path.join(repo_dir, "refs", "main"), "w").write(rev)
        return repo_dir

    base = os.path.join(WORK, "hf")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    layouts = {
        "HF_HUB_CACHE": (os.path.join(base, "hub-cache"), dict(clean, HF_HUB_CACHE=os.path.join(base, "hub-cache"),
                                                                HF_HOME=os.path.join(base, "unused"))),
        "HF_HOME": (os.path.join(base, "hf-home", "hub"), dict(clean, HF_HOME=os.path.join(base, "hf-home"))),
        "HOME": (os.path.join(base, "home", ".cache", "huggingface", "hub"), dict(clean, HOME=os.path.join(base, "home"))),
    }
    for name, (cache, env) in layouts.items():
        fake_cache(cache)
        p = run("model", "TestOrg/Tiny-Qwen2", "--ids", ids, "--format", "json", env=env)
        if p.returncode == 0:
            got = json.loads(p.stdout)
            check(got["model"]["name"] == "TestOrg/Tiny-Qwen2", f"{name}: the model is named {got['model']['name']!r}")
            got["model"]["name"] = json.loads(want)["model"]["name"]
            check(got == json.loads(want), f"{name}: the cached snapshot gives other numbers")
    env = layouts["HOME"][1]
    # A local folder of the repo id's name wins over the cache.
    local = os.path.join(WORK, "TestOrg", "Tiny-Qwen2")
    os.makedirs(os.path.dirname(local), exist_ok=True)
    shutil.copytree(folders["qwen3-qknorm-headdim-bf16"][0], local)
    p = run("model", "TestOrg/Tiny-Qwen2", "--ids", ids, "--format", "json", env=env, cwd=WORK)
    check(p.returncode == 0 and json.loads(p.stdout)["model"]["family"] == "qwen3", "a local folder did not win over the cache")
    # Misses and broken cache entries: exit 2 and a sentence.
    searched = os.path.join(layouts["HOME"][0], "models--HuggingFaceTB--SmolLM2-135M")
    bad(["model", "HuggingFaceTB/SmolLM2-135M", "--ids", ids], searched, "huggingface-cli download HuggingFaceTB/SmolLM2-135M", env=env)
    bad(["model", "gpt2", "--ids", ids], os.path.join(layouts["HOME"][0], "models--gpt2"), "huggingface-cli download gpt2", env=env)
    broken = fake_cache(layouts["HOME"][0], repo="TestOrg/No-Ref")
    os.remove(os.path.join(broken, "refs", "main"))
    bad(["model", "TestOrg/No-Ref", "--ids", ids], "refs/main", "missing", env=env)
    gone = fake_cache(layouts["HOME"][0], repo="TestOrg/No-Snapshot")
    open(os.path.join(gone, "refs", "main"), "w").write("ffff" * 10 + "\n")
    bad(["model", "TestOrg/No-Snapshot", "--ids", ids], "snapshots", "ffff", "missing", env=env)


def bad_inputs(folders):
    folder, config, stored = folders["llama-llama3-untied-f32"]
    ids = ["--ids", "1,2,3"]

    def variant(name, edit=None, **changes):
        dst = os.path.join(WORK, "bad", name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(folder, dst)
        cfg = json.load(open(os.path.join(dst, "config.json")))
        cfg.update(changes)
        if edit:
            edit(cfg)
        json.dump(cfg, open(os.path.join(dst, "config.json"), "w"))
        return dst

    bad(["model", variant("kv-heads", num_key_value_heads=4), *ids], "num_attention_heads", "6", "not a multiple", "num_key_value_heads", "4")
    bad(["model", variant("hidden", hidden_size=50), *ids], "hidden_size", "50", "num_attention_heads", "head_dim")
    bad(["model", variant("odd-head-dim", head_dim=7), *ids], "head width 7", "odd", "rotary")
    bad(["model", variant("model-type", model_type="falcon"), *ids], "model_type", "falcon", "gpt2, llama, mistral, qwen2 and qwen3")
    bad(["model", variant("rope-type", rope_scaling={"rope_type": "yarn", "factor": 4.0}), *ids], "rope_scaling", "yarn", "linear, llama3")
    bad(["model", variant("rope-factor", rope_scaling={"type": "linear", "factor": -2}), *ids], "rope_scaling", "factor", "positive")
    bad(["model", variant("rope-llama3", rope_scaling={"rope_type": "llama3", "factor": 8.0}), *ids], "low_freq_factor", "missing")
    bad(["model", variant("act", hidden_act="gelu"), *ids], "hidden_act", "silu")
    bad(["model", variant("layers", num_hidden_layers=0), *ids], "num_hidden_layers", "whole number")
    bad(["model", variant("window", model_type="mistral", sliding_window=-3), *ids], "sliding_window", "whole number")
    bad(["model", variant("tied", tie_word_embeddings="yes"), *ids], "tie_word_embeddings", "true or false")
    n_ctx = config["max_position_embeddings"]
    bad(["model", folder, "--ids", ",".join(["1"] * (n_ctx + 1))], "--ids", f"more than this model's {n_ctx} positions",
        "max_position_embeddings")
    bad(["model", folder, "--ids", f"1,{config['vocab_size']}"], "--ids", "beyond the vocabulary")

    def shard_variant(name):
        dst = os.path.join(WORK, "bad", name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(folders["llama-linear-bias-tied-bf16-sharded"][0], dst)
        return dst, json.load(open(os.path.join(dst, "model.safetensors.index.json")))

    d, index = shard_variant("shard-missing")
    os.remove(os.path.join(d, "model-00002-of-00003.safetensors"))
    bad(["model", d, *ids], "model-00002-of-00003.safetensors", "missing", "model.safetensors.index.json")
    d, index = shard_variant("tensor-twice")
    s1 = os.path.join(d, "model-00001-of-00003.safetensors")
    stored2 = folders["llama-linear-bias-tied-bf16-sharded"][2]
    part1 = {k: stored2[k] for k, f in index["weight_map"].items() if f.endswith("00001-of-00003.safetensors")}
    part1["model.norm.weight"] = stored2["model.norm.weight"]
    fx.write_safetensors(s1, part1, dtype="BF16")
    bad(["model", d, *ids], "model.norm.weight", "holds too")
    d, index = shard_variant("tensor-missing")
    name = "model.layers.1.mlp.up_proj.weight"
    shard = index["weight_map"].pop(name)
    part = {k: stored2[k] for k, f in index["weight_map"].items() if f == shard}
    fx.write_safetensors(os.path.join(d, shard), part, dtype="BF16")
    json.dump(index, open(os.path.join(d, "model.safetensors.index.json"), "w"))
    bad(["model", d, *ids], name, "missing")
    d, index = shard_variant("index-wrong-shard")
    index["weight_map"]["model.norm.weight"] = "model-00001-of-00003.safetensors" if index["weight_map"]["model.norm.weight"] != \
        "model-00001-of-00003.safetensors" else "model-00002-of-00003.safetensors"
    json.dump(index, open(os.path.join(d, "model.safetensors.index.json"), "w"))
    bad(["model", d, *ids], "model.norm.weight", "does not hold it")
    d, index = shard_variant("index-escape")
    index["weight_map"]["model.norm.weight"] = "../../model.safetensors"
    json.dump(index, open(os.path.join(d, "model.safetensors.index.json"), "w"))
    bad(["model", d, *ids], "model.safetensors.index.json", "model.norm.weight", "not the name of a .safetensors file beside the index")
    d, index = shard_variant("index-twice")
    text = json.dumps(index)
    text = text.replace('"weight_map": {', '"weight_map": {"model.norm.weight": "model-00001-of-00003.safetensors", ', 1)
    open(os.path.join(d, "model.safetensors.index.json"), "w").write(text)
    bad(["model", d, *ids], "model.norm.weight", "twice")
    d, index = shard_variant("index-not-json")
    open(os.path.join(d, "model.safetensors.index.json"), "w").write("{oops")
    bad(["model", d, *ids], "model.safetensors.index.json", "not JSON")
    # A single file missing a tensor, and one with a tensor of another architecture.
    d = variant("untied-but-no-lm-head", tie_word_embeddings=False)
    single = {k: v for k, v in stored.items() if k != "lm_head.weight"}
    fx.write_safetensors(os.path.join(d, "model.safetensors"), single)
    bad(["model", d, *ids], "lm_head.weight", "missing", "tie_word_embeddings")
    d = variant("extra-tensor")
    fx.write_safetensors(os.path.join(d, "model.safetensors"), dict(stored, **{"model.layers.9.mlp.up_proj.weight": stored[
        "model.layers.0.mlp.up_proj.weight"]}))
    bad(["model", d, *ids], "model.layers.9.mlp.up_proj.weight", "not part of a llama model with 3 layers")
    d = variant("shape", intermediate_size=81)
    bad(["model", d, *ids], "gate_proj.weight", "has shape [80, 48]", "needs [81, 48]")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rng = np.random.default_rng(34)
    folders = families(rng)
    tokenizers_and_saving(folders)
    hf_cache(folders)
    bad_inputs(folders)
    finish("all model family checks passed")


if __name__ == "__main__":
    main()
