"""attnlab on GGUF files and the local stores (issue 72; docs/MODELS.md, "GGUF files", docs/CLI.md):
- every hostile file of gguf_writer.py (`gguf_writer.py hostile DIR`'s cases.json, on its own base
  and on a model's file): `attnlab model FILE --ids 0` exits 2 with one sentence that mentions what
  cases.json says, and the valid controls open (on the model's base) or pass the container and are
  refused for their architecture only (on the base of every value type, whose architecture is
  "test");
- the same random model as GGUF and as a Hugging Face folder (gguf_fixture.write_model_pair) gives
  the same heads: every head's weights, a lifted head's q, k and v (llama's interleaved q/k rows put
  back), every next-token probability, for every architecture and tensor type, and `compute --model`,
  `--link` and `--generate` on the GGUF file as on the folder; within float32's bound of each other;
- Ollama's store (manifests and blobs, $OLLAMA_MODELS, a namespace, a tag), LM Studio's folder and
  the Hugging Face cache laid out as those programs lay them out under a HOME of the test's own:
  `model ollama:NAME[:TAG]`, `lmstudio:PUBLISHER/REPO`, `models --local` (JSON and text), and what
  is refused (a name not found, with the folders searched; a manifest without a model layer; a
  missing blob);
- `--save` copies the file; the JSON's model object says the tensor type.
Usage: gguf_cli_test.py ATTNLAB WORKDIR"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

import gguf_fixture as gf
import gguf_writer as gw
from model_checks import bad_input_check, bound, check, finish, runner

ATTNLAB, WORK = sys.argv[1], os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
run = runner(ATTNLAB)
bad = bad_input_check(run)


# ---- hostile files -----------------------------------------------------------------------------

def hostile(folder, cases, model_base):
    """Each case's file through `attnlab model FILE --ids 0`."""
    refused = opened = 0
    for c in cases:
        path = os.path.join(folder, c["file"])
        p = subprocess.run([ATTNLAB, "model", path, "--ids", "0", "--format", "json"], capture_output=True, text=True, errors="replace")
        lines = p.stderr.strip().split("\n")
        what = f"{os.path.basename(folder)}/{c['name']} ({c['what']})"
        if c["expect"] == "open" and model_base:
            check(p.returncode == 0, f"{what}: exit {p.returncode}, wanted it to open: {p.stderr.strip()[:300]}")
            opened += p.returncode == 0
            continue
        check(p.returncode == 2, f"{what}: exit {p.returncode}, wanted 2: {p.stderr.strip()[:300]}")
        check(len(lines) == 1 and lines[0].startswith("attnlab: ") and p.stdout == "", f"{what}: not one sentence: {p.stderr!r}")
        mentions = c["mentions"] if c["expect"] == "refuse" else ["general.architecture", "test"]
        for m in mentions:
            check(m in p.stderr, f"{what}: the sentence does not mention {m!r}: {p.stderr.strip()[:300]}")
        refused += p.returncode == 2
    return refused, opened


def check_hostile():
    folder = os.path.join(WORK, "hostile")
    subprocess.run([sys.executable, os.path.join(HERE, "gguf_writer.py"), "hostile", folder], check=True, stdout=subprocess.DEVNULL)
    cases = json.load(open(os.path.join(folder, "cases.json"), encoding="utf-8"))
    r1, _ = hostile(folder, cases, model_base=False)
    total_refused, total_opened, count = r1, 0, len(cases)
    for scheme in ("F32", "Q4_K_M"):
        tok = gf.toy_spm()
        config, t = gf.random_model("llama", 9, tok, n_layer=1)
        md, tens, _, _ = gf.gguf_model("llama", config, t, scheme, tok)
        model_folder = os.path.join(WORK, f"hostile-llama-{scheme}")
        listing = gw.write_hostile(model_folder, gw.hostile_cases(md, tens))
        r, o = hostile(model_folder, listing, model_base=True)
        total_refused, total_opened, count = total_refused + r, total_opened + o, count + len(listing)
    print(f"hostile files: {count} cases ({len(cases)} on the base of every value type, {count - len(cases)} on two models' files): "
          f"{total_refused} refused in one sentence, {total_opened} valid controls opened")


# ---- the same model as GGUF and as a folder -----------------------------------------------------

def model_json(path, ids, layer, head, *extra):
    p = run("model", path, "--ids", ",".join(map(str, ids)), "--layer", str(layer), "--head", str(head), "--top", "100000",
            "--format", "json", *extra)
    return json.loads(p.stdout) if p.returncode == 0 else None


def widest(config):
    if config.get("model_type") == "gpt2":
        return 4 * config["n_embd"], config["n_layer"]
    dh = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    return max(config["hidden_size"], config["intermediate_size"], config["num_attention_heads"] * dh), config["num_hidden_layers"]


def same_heads(name, pair, ids, layer, head):
    """GGUF against its folder; returns the worst difference as a fraction of the bound."""
    g, h = model_json(pair.gguf, ids, layer, head), model_json(pair.hf, ids, layer, head)
    if not g or not h:
        return 0.0
    width, layers = widest(pair.config)
    b = bound(width, layers, 10.0)
    worst = 0.0
    for part in ("q", "k", "v"):
        err = float(np.abs(np.array(g[part]) - np.array(h[part])).max())
        check(err <= b, f"{name}: L{layer}H{head}'s {part} differ from the folder's by {err:.3g} > {b:.3g}")
        worst = max(worst, err / b)
    for l, (la, lb) in enumerate(zip(g["attention"], h["attention"])):
        for hh, (a, c) in enumerate(zip(la, lb)):
            err = float(np.abs(np.array(a) - np.array(c)).max())
            check(err <= b, f"{name}: L{l}H{hh}'s weights differ from the folder's by {err:.3g} > {b:.3g}")
            worst = max(worst, err / b)
    pg = {t["id"]: t["prob"] for t in g["next_token"]}
    ph = {t["id"]: t["prob"] for t in h["next_token"]}
    err = max(abs(pg[i] - ph.get(i, 0.0)) for i in pg)
    check(err <= b and len(pg) == len(ph), f"{name}: next-token probabilities differ by {err:.3g} > {b:.3g}")
    check([t["id"] for t in g["tokens"]] == ids, f"{name}: tokens {g['tokens'][:3]}")
    # llama.cpp's converter writes a Mistral as a llama (and drops its window, never reached here).
    family = "llama" if pair.arch == "mistral" else h["model"]["family"]
    check(g["model"]["family"] == family and g["model"]["parameters"] == h["model"]["parameters"],
          f"{name}: model {g['model']} against {h['model']}")
    check(g["model"]["tensor_type"] == ("F32" if pair.scheme == "F32" else gf_type_name(pair.scheme)),
          f"{name}: tensor_type {g['model']['tensor_type']}")
    return max(worst, err / b)


def gf_type_name(scheme):
    return {"Q4_K": "Q4_K_S", "Q3_K": "Q3_K_M", "Q5_K": "Q5_K_S"}.get(scheme, scheme)


def same_text_and_tools(name, pair):
    """--text, --generate, --link and compute --model on the GGUF file as on its folder."""
    text = "the quick brown fox jumps over the lazy dog"
    outs = []
    for path in (pair.gguf, pair.hf):
        p = run("model", path, "--text", text, "--generate", "4", "--temperature", "0", "--link", "3,1", "--format", "json")
        outs.append(json.loads(p.stdout) if p.returncode == 0 else None)
    if all(outs):
        g, h = outs
        check([t["id"] for t in g["tokens"]] == [t["id"] for t in h["tokens"]], f"{name}: --text tokens differ from the folder's")
        check([t["id"] for t in g["generated"]] == [t["id"] for t in h["generated"]], f"{name}: --generate differs from the folder's")
        check([(x["layer"], x["head"]) for x in g["links"]][:3] == [(x["layer"], x["head"]) for x in h["links"]][:3],
              f"{name}: --link ranks heads differently")
    computed = []
    for path in (pair.gguf, pair.hf):
        p = run("compute", "--model", path, "--text", text, "--layer", "1", "--head", "1", "--format", "json", "--summary")
        computed.append(json.loads(p.stdout) if p.returncode == 0 else None)
    if all(computed):
        err = float(np.abs(np.array(computed[0]["output"]) - np.array(computed[1]["output"])).max())
        check(err <= 1e-4, f"{name}: compute --model's output differs from the folder's by {err:.3g}")


def check_models():
    plan = [(f"{arch}-{scheme}", arch, scheme, {}) for arch in gf.ARCHS for scheme in ("F32", "Q8_0", "Q4_K_M")]
    plan += [(f"llama-{s}", "llama", s, {}) for s in ("F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K")]
    llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
    plan += [("llama-bias-llama3rope-tied", "llama", "F32", {"attention_bias": True, "rope_scaling": llama3, "tied": True}),
             ("qwen2-linear-rope", "qwen2", "Q8_0", {"rope_scaling": {"rope_type": "linear", "factor": 4.0}}),
             ("qwen3-narrow-heads", "qwen3", "Q4_K_M", {"head_dim": 32, "n_kv_head": 1}),
             ("mistral-v2-file", "mistral", "Q6_K", {"version": 2})]
    rng = np.random.default_rng(7201)
    worst = 0.0
    for i, (name, arch, scheme, options) in enumerate(plan):
        options = dict(options)
        version = options.pop("version", 3)
        pair = gf.write_model_pair(os.path.join(WORK, "models", name), arch, seed=500 + i, scheme=scheme, version=version, **options)
        ids = [int(x) for x in rng.integers(0, len(pair.tokenizer.tokens), 24)]
        worst = max(worst, same_heads(name, pair, ids, 1, int(rng.integers(0, 4))))
        if scheme in ("F32", "Q4_K_M"):
            same_text_and_tools(name, pair)
    print(f"GGUF against the Hugging Face folder: {len(plan)} models, worst difference {worst:.3f} of float32's bound")
    return gf.write_model_pair(os.path.join(WORK, "store-model"), "llama", seed=77, scheme="Q4_K_M", n_layer=1)


# ---- the stores ---------------------------------------------------------------------------------------

def ollama_store(root, pair, name, tag, namespace="library"):
    """An Ollama store as `ollama pull` leaves it: the GGUF as a blob named by its digest, a manifest
    listing it (with a template layer beside it)."""
    import hashlib
    data = open(pair.gguf, "rb").read()
    digest = hashlib.sha256(data).hexdigest()
    os.makedirs(os.path.join(root, "blobs"), exist_ok=True)
    with open(os.path.join(root, "blobs", "sha256-" + digest), "wb") as f:
        f.write(data)
    template = b"{{ .Prompt }}"
    tdigest = hashlib.sha256(template).hexdigest()
    with open(os.path.join(root, "blobs", "sha256-" + tdigest), "wb") as f:
        f.write(template)
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:" + tdigest, "size": 13},
                "layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + digest, "size": len(data)},
                           {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + tdigest, "size": 13}]}
    folder = os.path.join(root, "manifests", "registry.ollama.ai", namespace, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, tag), "w") as f:
        json.dump(manifest, f)
    return os.path.join(folder, tag), digest


def check_stores(pair):
    home = os.path.join(WORK, "home")
    shutil.rmtree(home, ignore_errors=True)
    env = dict(os.environ, HOME=home)
    env.pop("OLLAMA_MODELS", None)
    for k in ("HF_HUB_CACHE", "HF_HOME"):
        env.pop(k, None)
    store = os.path.join(home, ".ollama", "models")
    manifest, digest = ollama_store(store, pair, "tiny", "latest")
    ollama_store(store, pair, "tiny", "q4", namespace="someone")
    lm = os.path.join(home, ".lmstudio", "models", "publisher", "tiny-GGUF")
    os.makedirs(lm)
    shutil.copy(pair.gguf, os.path.join(lm, "tiny-Q4_K_M.gguf"))
    hf = os.path.join(home, ".cache", "huggingface", "hub", "models--org--tiny")
    os.makedirs(os.path.join(hf, "refs"))
    shutil.copytree(pair.hf, os.path.join(hf, "snapshots", "abc123"))
    open(os.path.join(hf, "refs", "main"), "w").write("abc123")
    ref = model_json(pair.hf, [1, 2, 3], 0, 0)
    for spec in ("ollama:tiny", "ollama:tiny:latest", "ollama:someone/tiny:q4", "lmstudio:publisher/tiny-GGUF",
                 "lmstudio:publisher/tiny-GGUF/tiny-Q4_K_M.gguf", "org/tiny"):
        p = run("model", spec, "--ids", "1,2,3", "--layer", "0", "--head", "0", "--format", "json", env=env)
        if p.returncode == 0:
            out = json.loads(p.stdout)
            check(out["model"]["name"] == spec, f"{spec}: named {out['model']['name']}")
            check(np.allclose(out["attention"][0][0], ref["attention"][0][0], atol=1e-5), f"{spec}: not the model stored")
    p = run("models", "--local", "--format", "json", env=env)
    listed = {m["name"]: m for m in json.loads(p.stdout)["models"]} if p.returncode == 0 else {}
    want = {"org/tiny": ("huggingface", "F32"), "ollama:tiny:latest": ("ollama", "Q4_K_M"), "ollama:someone/tiny:q4": ("ollama", "Q4_K_M"),
            "lmstudio:publisher/tiny-GGUF/tiny-Q4_K_M.gguf": ("lmstudio", "Q4_K_M")}
    check(set(listed) == set(want), f"models --local lists {sorted(listed)}")
    for name, (source, tensor_type) in want.items():
        m = listed.get(name, {})
        check(m.get("source") == source and m.get("family") == "llama" and m.get("tensor_type") == tensor_type and m.get("opens"),
              f"models --local: {name}: {m}")
        check(m.get("parameters") == ref["model"]["parameters"] and m.get("bytes", 0) > 0, f"models --local: {name}'s sizes: {m}")
    text = run("models", "--local", env=env).stdout
    check("ollama:tiny:latest" in text and "Q4_K_M" in text and "searched" in text, f"models --local (text): {text[:300]!r}")
    # $OLLAMA_MODELS alone when set; the folders searched named when a name is not found.
    alone = dict(env, OLLAMA_MODELS=os.path.join(WORK, "elsewhere"))
    bad(["model", "ollama:tiny", "--ids", "1"], os.path.join(WORK, "elsewhere"), "ollama pull tiny:latest", env=alone)
    bad(["model", "ollama:nothing:here", "--ids", "1"], store, "/usr/share/ollama/.ollama/models", env=env)
    bad(["model", "ollama:../x", "--ids", "1"], "not an Ollama model name", env=env)
    bad(["model", "lmstudio:publisher/none", "--ids", "1"], "no .gguf", env=env)
    os.remove(os.path.join(store, "blobs", "sha256-" + digest))
    bad(["model", "ollama:tiny", "--ids", "1"], "sha256-" + digest, "missing", env=env)
    json.dump({"layers": [{"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "0" * 64}]}, open(manifest, "w"))
    bad(["model", "ollama:tiny", "--ids", "1"], "application/vnd.ollama.image.model", env=env)
    open(manifest, "w").write("{not json")
    bad(["model", "ollama:tiny", "--ids", "1"], "not JSON", env=env)
    p = run("models", "--local", "--format", "json", env=env)
    broken = [m for m in json.loads(p.stdout)["models"] if m["name"] == "ollama:tiny:latest"] if p.returncode == 0 else []
    check(len(broken) == 1 and not broken[0]["opens"] and "not JSON" in (broken[0]["why_not"] or ""), f"a broken manifest listed as {broken}")
    print("stores: Ollama (manifests, blobs, namespaces, tags, $OLLAMA_MODELS), LM Studio and the Hugging Face cache found and listed")


def check_save(pair):
    out = os.path.join(WORK, "saved")
    shutil.rmtree(out, ignore_errors=True)
    run("model", pair.gguf, "--ids", "1", "--save", out)
    saved = os.path.join(out, "model.gguf")
    check(os.path.exists(saved) and open(saved, "rb").read() == open(pair.gguf, "rb").read(), "--save did not copy the GGUF file")
    bad(["model", pair.gguf, "--ids", "1", "--save", out], "--force")


def main():
    os.makedirs(WORK, exist_ok=True)
    check_hostile()
    pair = check_models()
    check_stores(pair)
    check_save(pair)
    finish("attnlab opens GGUF files and the local stores as the contract says")


if __name__ == "__main__":
    main()
