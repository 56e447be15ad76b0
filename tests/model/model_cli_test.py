"""attnlab model / models / compute --model on random GPT-2s written here (docs/MODELS.md): every
head's attention weights, q, k, v and the next-token probabilities against a float64 PyTorch
reference, within bounds derived from the logits' magnitudes; and every bad input of issue 17
answered by exit 2 and one sentence.
Usage: model_cli_test.py ATTNLAB WORKDIR"""
import json
import os
import shutil
import struct
import sys

import numpy as np

import gpt2_fixture as fx
from model_checks import bad_input_check, bound, check, finish, runner, within

ATTNLAB, WORK = sys.argv[1], sys.argv[2]
run = runner(ATTNLAB)
bad = bad_input_check(run)


def compare_with_reference(folder, config, stored, ids, layer, head, label):
    p = run("model", folder, "--ids", ",".join(map(str, ids)), "--layer", str(layer), "--head", str(head),
            "--top", str(config["vocab_size"]), "--format", "json")
    if p.returncode != 0:
        return None
    out = json.loads(p.stdout)
    att, probs, mags, qkv, logit_mag = fx.reference_forward(config, stored, ids)
    L, H, d = config["n_layer"], config["n_head"], config["n_embd"]
    check(len(out["attention"]) == L and all(len(x) == H for x in out["attention"]), f"{label}: attention is not [layer][head]")
    check(len(out["heads"]) == L and all(len(x) == H for x in out["heads"]), f"{label}: heads is not [layer][head]")
    worst = 0.0
    for l in range(L):
        for h in range(H):
            a = np.array(out["attention"][l][h], np.float64)
            worst = max(worst, within(a, att[l][h], bound(d, l + 1, mags[l][h]), f"{label}: L{l}H{h} weights"))
            check(np.allclose(a.sum(axis=1), 1, atol=1e-5) and np.all(np.triu(a, 1) == 0), f"{label}: L{l}H{h} not causal rows summing to 1")
    for i, name in enumerate(("q", "k", "v")):
        ref = qkv[layer][i][head]
        worst = max(worst, within(out[name], ref, bound(d, layer + 1, np.abs(ref).max()), f"{label}: L{layer}H{head} {name}"))
    mine = np.zeros(config["vocab_size"])
    for t in out["next_token"]:
        mine[t["id"]] = t["prob"]
    check(len(out["next_token"]) == config["vocab_size"], f"{label}: --top V did not list every token")
    worst = max(worst, within(mine, probs, bound(d, L + 1, logit_mag), f"{label}: next-token probabilities"))
    ranked = [t["prob"] for t in out["next_token"]]
    check(ranked == sorted(ranked, reverse=True), f"{label}: next tokens not most probable first")
    m = out["model"]
    check(m["n_layer"] == L and m["n_head"] == H and m["d_model"] == d and m["d_head"] == d // H and m["family"] == "gpt2"
          and m["n_ctx"] == config["n_positions"] and m["vocab_size"] == config["vocab_size"] and m["task"] is None,
          f"{label}: model object {m}")
    params = sum(int(np.prod(x.shape)) for x in stored.values())
    check(m["parameters"] == params, f"{label}: parameters {m['parameters']} != {params}")
    for row in out["heads"]:
        for hv in row:
            check(hv["kind"] in ("previous-token", "induction", "first-token", "self", "broad", "mixed") and 0 <= hv["score"] <= 1,
                  f"{label}: head verdict {hv}")
    print(f"{label}: worst error / bound = {worst:.3f}")
    return out


def raw_safetensors(path, header_bytes, data=b"", length=None):
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes) if length is None else length))
        f.write(header_bytes)
        f.write(data)


TEXT = ["--text", "the cat"]


def variants(rng):
    """Four GPT-2s, one per dtype and safetensors layout, each against the reference on a text with
    a repeat, on one token and on the longest text it takes; their (folder, config, stored) by name."""
    layouts = [
        ("f32", dict(dtype="F32")),
        ("f16-prefix-buffers", dict(dtype="F16", prefix=True, bias_buffers=True)),
        ("f32-prefix-unaligned", dict(dtype="F32", prefix=True, align=False)),
        ("bf16-buffers", dict(dtype="BF16", bias_buffers=True)),
    ]
    folders = {}
    for i, (name, kw) in enumerate(layouts):
        folder = os.path.join(WORK, name)
        config, stored = fx.write_model(folder, seed=100 + i, n_layer=3, n_head=4, n_embd=32, n_positions=48, **kw)
        folders[name] = (folder, config, stored)
        V = config["vocab_size"]
        ids = [int(x) for x in rng.integers(0, V, size=40)]
        ids[20:30] = ids[5:15]  # repeated text, so induction is measurable
        compare_with_reference(folder, config, stored, ids, 2, 1, name)
        # One token and the longest text the model takes.
        compare_with_reference(folder, config, stored, ids[:1], 0, 0, name + " one token")
        compare_with_reference(folder, config, stored, [int(x) for x in rng.integers(0, V, size=48)], 1, 3, name + " n_positions")
    return folders


def folder_and_file(folder):
    """The .safetensors file itself opens the same model; the text's tokens, parsed."""
    a = run("model", folder, "--text", "the cat sat on the mat", "--format", "json")
    b = run("model", os.path.join(folder, "model.safetensors"), "--text", "the cat sat on the mat", "--format", "json")
    check(a.stdout == b.stdout and a.stdout, "the folder and its .safetensors differ")
    out = json.loads(a.stdout)
    check("".join(t["text"] for t in out["tokens"]) == "the cat sat on the mat", f"token texts do not spell the text: {out['tokens']}")
    check(len(out["next_token"]) == 10, "default --top is not 10")
    return out


def lifted_head(folder, config, out, ids, full):
    """compute --model: the lifted head's weights are the model's own attention for that head."""
    c = run("compute", "--model", folder, "--ids", ids, "--layer", "1", "--head", "2", "--format", "json")
    if c.returncode == 0:
        cj = json.loads(c.stdout)
        w = np.array(cj["weights"], np.float64)
        ref = np.array(full["attention"][1][2], np.float64)
        logit_mag = max(abs(x) for row in cj["logits"] for x in row if x is not None)
        b = bound(config["n_embd"], 2, logit_mag)
        check(np.abs(w - ref).max() <= b, f"compute --model weights differ from model's by {np.abs(w - ref).max():.3g} > {b:.3g}")
        check(cj["mask"] == {"kind": "causal"} and cj["scale"] is True and cj["temperature"] == 1, f"compute --model options {cj['mask']}")
        check(cj["n"] == len(out["tokens"]) and cj["d_k"] == config["n_embd"] // config["n_head"], "compute --model shapes")
        check(cj["title"] == "GPT-2 · layer 1 · head 2", f"compute --model title {cj['title']!r}")


def other_commands(folder):
    """Every other option applies as usual to a lifted head; the text report; `models`."""
    t2 = run("compute", "--model", folder, "--text", "the cat", "--layer", "0", "--head", "0", "--temperature", "2", "--format", "json")
    check(t2.returncode == 0 and json.loads(t2.stdout)["temperature"] == 2, "compute --model --temperature 2")
    txt = run("compute", "--model", folder, "--text", "the cat", "--layer", "0", "--head", "0")
    check("GPT-2 · layer 0 · head 0" in txt.stdout and "cat" in txt.stdout, "compute --model text shows the head and the tokens")
    csv = os.path.join(WORK, "w.csv")
    run("export", "--model", folder, "--text", "hello world", "--layer", "0", "--head", "1", "--stage", "weights", "--out", csv)
    check(os.path.exists(csv), "export --model wrote no file")
    png = os.path.join(WORK, "p.png")
    run("export", "--model", folder, "--text", "hello world", "--layer", "0", "--head", "1", "--stage", "pipeline", "--out", png)
    check(os.path.exists(png) and open(png, "rb").read(4) == b"\x89PNG", "export --model pipeline PNG")
    # The text report: tokens, the layers × heads table, next tokens.
    t = run("model", folder, "--text", "the cat sat", "--layer", "0", "--head", "1").stdout
    check("Tokens (" in t and "Head kinds" in t and "L2" in t and "H3" in t and "Next token" in t and "L0H1" in t, f"text report:\n{t}")
    m = run("models", "--format", "json")
    check(m.returncode == 0 and isinstance(json.loads(m.stdout)["models"], list), "models --format json")
    run("models")


def saving(folder, ids, full_text):
    """--save writes a folder that opens again to the same numbers, and never over another."""
    saved = os.path.join(WORK, "saved")
    run("model", folder, "--text", "the cat", "--save", saved)
    again = run("model", saved, "--ids", ids, "--format", "json").stdout
    check(again == full_text and again, "the saved model gives other numbers")
    bad(["model", folder, "--text", "the cat", "--save", saved], "--save", "exists")


def toy_model():
    """Attention Lab's own toy models: "attnlab_task" in config.json, a vocabulary of symbols, no
    merges.txt; the text is symbols separated by spaces and a token's id is its symbol's value."""
    toy = os.path.join(WORK, "toy-induction")
    symbols = {str(i): i for i in range(10)}
    cfg, stored_toy = fx.write_model(toy, seed=9, n_layer=2, n_head=2, n_embd=16, n_positions=16,
                                     vocab_merges=(symbols, []))
    os.remove(os.path.join(toy, "merges.txt"))
    cfg["attnlab_task"] = {"name": "induction", "half_length": 4, "symbols": 10}
    json.dump(cfg, open(os.path.join(toy, "config.json"), "w"))
    p = run("model", toy, "--text", "3 1 4 1 3 1 4 1", "--format", "json")
    if p.returncode == 0:
        tj = json.loads(p.stdout)
        check([t["id"] for t in tj["tokens"]] == [3, 1, 4, 1, 3, 1, 4, 1], f"toy model tokens {tj['tokens']}")
        check(tj["model"]["family"] == "attnlab-toy" and tj["model"]["task"] == cfg["attnlab_task"] and tj["model"]["name"] == "toy-induction",
              f"toy model object {tj['model']}")
        att, probs, _, _, _ = fx.reference_forward(cfg, stored_toy, [3, 1, 4, 1, 3, 1, 4, 1])
        check(np.abs(np.array(tj["attention"][1][1]) - att[1][1]).max() < 1e-5, "toy model weights differ from the reference")
    bad(["model", toy, "--text", "3 12"], "--text", "'12' is not in this model's vocabulary")


class Broken:
    """Copies of a good model folder under WORK/bad, one per bad input, and its model.safetensors
    in parts (the whole file, its header, the tensors' data) to write damaged ones from."""

    def __init__(self, folder):
        self.folder = folder
        self.st_bytes = open(os.path.join(folder, "model.safetensors"), "rb").read()
        (hlen,) = struct.unpack("<Q", self.st_bytes[:8])
        self.header = json.loads(self.st_bytes[8:8 + hlen])
        self.data = self.st_bytes[8 + hlen:]

    def copy(self, name):
        dst = os.path.join(WORK, "bad", name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(self.folder, dst)
        return dst

    def edit_config(self, dst, **changes):
        cfg = json.load(open(os.path.join(dst, "config.json")))
        cfg.update(changes)
        json.dump(cfg, open(os.path.join(dst, "config.json"), "w"))

    def with_header(self, name, mutate, *needles, payload=None):
        """A copy whose safetensors header `mutate` edits, before `payload` (the good data unless
        given), refused naming each of `needles`."""
        dd = self.copy(name)
        hh = json.loads(json.dumps(self.header))
        mutate(hh)
        raw_safetensors(os.path.join(dd, "model.safetensors"), json.dumps(hh).encode(), self.data if payload is None else payload)
        bad(["model", dd, *TEXT], *needles)


def bad_files(broken):
    """Bad input: exit 2 and one sentence naming the file, field or flag. Here: a file missing,
    extra or cut short, and a safetensors header that is not one."""
    bad(["model", os.path.join(WORK, "no-such"), *TEXT], "no-such", "no such model")
    for f in ("config.json", "model.safetensors", "vocab.json", "merges.txt"):
        d = broken.copy("missing-" + f)
        os.remove(os.path.join(d, f))
        bad(["model", d, *TEXT], f, "missing")
    d = broken.copy("extra-file")
    shutil.copy(os.path.join(d, "model.safetensors"), os.path.join(d, "other.safetensors"))
    bad(["model", d, *TEXT], "2 .safetensors files")
    d = broken.copy("extra-tensor")
    extra = dict(broken.header)
    extra["h.7.ln_1.weight"] = {"dtype": "F32", "shape": [32], "data_offsets": [len(broken.data), len(broken.data) + 128]}
    raw_safetensors(os.path.join(d, "model.safetensors"), json.dumps(extra).encode(), broken.data + bytes(128))
    bad(["model", d, *TEXT], "h.7.ln_1.weight", "not part of a GPT-2 with 3 layers")
    d = broken.copy("truncated")
    open(os.path.join(d, "model.safetensors"), "wb").write(broken.st_bytes[: len(broken.st_bytes) // 2])
    bad(["model", d, *TEXT], "model.safetensors", "past the end")
    d = broken.copy("truncated-tiny")
    open(os.path.join(d, "model.safetensors"), "wb").write(broken.st_bytes[:5])
    bad(["model", d, *TEXT], "truncated")
    d = broken.copy("header-past-end")
    raw_safetensors(os.path.join(d, "model.safetensors"), b"{}", length=5000)
    bad(["model", d, *TEXT], "header length is 5000 bytes, past the end")
    d = broken.copy("header-huge")
    raw_safetensors(os.path.join(d, "model.safetensors"), b"{}", length=200_000_000)
    bad(["model", d, *TEXT], "over the 100 MB limit")
    d = broken.copy("header-not-json")
    raw_safetensors(os.path.join(d, "model.safetensors"), b"{not json at all", broken.data)
    bad(["model", d, *TEXT], "header is not JSON")


def bad_tensor_entries(broken):
    """Header entries whose offsets, dtype or shape do not fit the data after them."""
    header = broken.header
    first = "wte.weight"
    second = sorted(header, key=lambda k: header[k]["data_offsets"][0] if k != "__metadata__" else -1)[2]

    def overlap(hh):
        b0, e0 = hh[second]["data_offsets"]
        hh[second]["data_offsets"] = [b0 - 4, e0 - 4]
    broken.with_header("overlap", overlap, "overlaps")

    def gap(hh):
        for k, v in hh.items():
            if k != "__metadata__" and v["data_offsets"][0] >= header[second]["data_offsets"][0]:
                v["data_offsets"] = [v["data_offsets"][0] + 4, v["data_offsets"][1] + 4]
    broken.with_header("gap", gap, "gap of 4 bytes")

    broken.with_header("past-end", lambda hh: None, "runs past the end", payload=broken.data[:-4])
    broken.with_header("trailing", lambda hh: None, "4 bytes after the last tensor", payload=broken.data + b"xxxx")

    def dtype_i64(hh):
        hh[first]["dtype"] = "I64"
    broken.with_header("dtype", dtype_i64, "'wte.weight'", "dtype 'I64'", "F32, F16 and BF16")

    def wrong_bytes(hh):
        hh[first]["shape"] = [hh[first]["shape"][0], hh[first]["shape"][1] + 1]
    broken.with_header("shape-bytes", wrong_bytes, "'wte.weight'", "bytes of data")


def bad_config_and_text(broken, config):
    """A config.json that disagrees with the tensors or is not one, and ids or text the model
    cannot take."""
    folder = broken.folder
    d = broken.copy("shape-vs-config")
    broken.edit_config(d, vocab_size=config["vocab_size"] + 1)
    bad(["model", d, *TEXT], "wte.weight", "shape", "config.json")
    d = broken.copy("not-divisible")
    broken.edit_config(d, n_head=5)
    bad(["model", d, *TEXT], "n_embd", "not divisible", "n_head")
    d = broken.copy("config-not-json")
    open(os.path.join(d, "config.json"), "w").write("{oops")
    bad(["model", d, *TEXT], "config.json", "not JSON")
    d = broken.copy("config-missing-field")
    cfg = json.load(open(os.path.join(d, "config.json")))
    del cfg["n_layer"]
    json.dump(cfg, open(os.path.join(d, "config.json"), "w"))
    bad(["model", d, *TEXT], "config.json", "n_layer", "missing")
    d = broken.copy("activation")
    broken.edit_config(d, activation_function="relu")
    bad(["model", d, *TEXT], "activation_function", "gelu_new")
    bad(["model", folder, "--ids", f"1,2,{config['vocab_size']}"], "--ids", "beyond the vocabulary")
    bad(["model", folder, "--ids", "1,x,3"], "--ids", "'x' is not a token id")
    bad(["model", folder, "--text", "the " * 60], "--text", "more than this model's 48 positions")
    bad(["model", folder, "--text", ""], "--text", "no tokens")
    bad(["model", folder, "--text", "\udcff"], "--text", "not valid UTF-8")  # a lone 0xff byte, via surrogateescape below


def bad_tokenizer(broken):
    """A vocab.json or merges.txt that is not one, or names what is not there."""
    d = broken.copy("vocab-not-json")
    open(os.path.join(d, "vocab.json"), "w").write("[1, 2")
    bad(["model", d, *TEXT], "vocab.json", "not JSON")
    d = broken.copy("vocab-bad-id")
    v = json.load(open(os.path.join(d, "vocab.json"), encoding="utf-8"))
    v["the"] = 10 ** 6
    json.dump(v, open(os.path.join(d, "vocab.json"), "w", encoding="utf-8"), ensure_ascii=False)
    bad(["model", d, *TEXT], "vocab.json", "has id 1000000")
    d = broken.copy("merges-three")
    with open(os.path.join(d, "merges.txt"), "a", encoding="utf-8") as f:
        f.write("a b c\n")
    bad(["model", d, *TEXT], "merges.txt", "line", "not two symbols")
    d = broken.copy("merges-unknown")
    with open(os.path.join(d, "merges.txt"), "a", encoding="utf-8") as f:
        f.write("zq xw\n")
    bad(["model", d, *TEXT], "merges.txt", "has no token")


def bad_flags(folder):
    """A layer or head the model lacks, and flags missing or clashing in model, compute and export."""
    bad(["model", folder, *TEXT, "--layer", "3", "--head", "0"], "--layer 3", "layers 0 to 2")
    bad(["model", folder, *TEXT, "--layer", "0", "--head", "4"], "--head 4", "heads 0 to 3")
    bad(["model", folder, *TEXT, "--layer", "0"], "--layer", "--head")
    bad(["model", folder], "--text", "--ids")
    bad(["model", folder, *TEXT, "--ids", "1"], "--text", "--ids")
    bad(["compute", "--model", folder, *TEXT], "--layer", "--head")
    bad(["compute", "--model", folder, "--layer", "0", "--head", "0"], "--text", "--ids")
    bad(["compute", "--text", "x"], "--model")
    bad(["compute", "--preset", "three-tokens", "--model", folder, *TEXT, "--layer", "0", "--head", "0"], "one input")
    bad(["export", "--model", folder, *TEXT, "--layer", "9", "--head", "0", "--stage", "weights", "--out", os.path.join(WORK, "x.png")], "--layer 9")
    check(not os.path.exists(os.path.join(WORK, "x.png")), "a failed export left a file")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    folders = variants(np.random.default_rng(17))
    folder, config, _ = folders["f32"]
    out = folder_and_file(folder)
    ids = ",".join(str(t["id"]) for t in out["tokens"])
    full_text = run("model", folder, "--ids", ids, "--format", "json").stdout
    lifted_head(folder, config, out, ids, json.loads(full_text))
    other_commands(folder)
    saving(folder, ids, full_text)
    toy_model()
    broken = Broken(folder)
    bad_files(broken)
    bad_tensor_entries(broken)
    bad_config_and_text(broken, config)
    bad_tokenizer(broken)
    bad_flags(folder)
    finish("all model CLI checks passed")


if __name__ == "__main__":
    main()
