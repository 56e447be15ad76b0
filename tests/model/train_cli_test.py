"""attnlab train end to end (docs/MODELS.md, "Training"): a short run's JSON summary and folder, of
each family (GPT-2 and, with --family llama, a Llama), the folder reopened through `attnlab model`
giving the trainer's own predictions, --force, every bad input answered by exit 2 and one sentence
with nothing written, a learning rate that makes the loss NaN; the default induction run of each
family and the built-in induction model judged as the task is (head_scores.py, in PyTorch from the
folder: at spans 4, 8 and L a layer-0 previous-token head and a layer-1 induction head of at least
0.8, accuracy at least 0.9 on the copy), their heads also named so by the detector; and the
built-in models listed, opened by name and saved (docs/MODELS.md).
Usage: train_cli_test.py ATTNLAB TRAIN_TOOL WORKDIR"""
import json
import os
import random
import re
import shutil
import subprocess
import sys

import head_scores
from model_checks import bad_input_check, check, finish, runner

ATTNLAB, TOOL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
run = runner(ATTNLAB)
refused = bad_input_check(run)


def leftovers():
    return sorted(n for n in os.listdir(WORK) if n.startswith("."))


def bad(args, *needles, out=None, after_progress=False):
    """Refused as model_checks.bad_input_check says, and nothing written: not `out`, no temporary files."""
    refused(args, *needles, after_progress=after_progress)
    if out:
        check(not os.path.exists(out), f"{args}: left {out} behind")
    check(not leftovers(), f"{args}: left temporary files {leftovers()}")


# A short run: the summary, the folder.
out = os.path.join(WORK, "short")
p = run("train", "--steps", "40", "--batch", "8", "--out", out, "--format", "json", "--timing")
summary = json.loads(p.stdout) if p.returncode == 0 else {}
check(set(summary) == {"task", "steps", "batch", "seconds", "final_loss", "accuracy", "out"}, f"summary keys: {sorted(summary)}")
check(summary.get("task") == "induction" and summary.get("steps") == 40 and summary.get("batch") == 8, f"summary: {summary}")
check(summary.get("out") == out and 0 <= summary.get("accuracy", -1) <= 1 and summary.get("final_loss", 0) > 0, f"summary: {summary}")
check("step 40/40" in p.stderr and "steps/s" in p.stderr, f"no progress on stderr: {p.stderr!r}")
# --timing: the median step, and when a batch first reached 90% (within the run's steps and seconds;
# the line rounds to 0.1 s, hence the 0.05 beyond the summary's unrounded seconds).
check(re.search(r"timing: 40 steps, median [0-9.]+ ms a step on \d+ threads", p.stderr), f"no step timing: {p.stderr!r}")
at_90 = re.search(r"timing: 90% accuracy on a step's batch (?:first at step (\d+), ([0-9.]+) s|never reached)\n", p.stderr)
check(at_90 and (at_90.group(1) is None or (1 <= int(at_90.group(1)) <= 40 and float(at_90.group(2)) <= summary.get("seconds", 0) + 0.05)),
      f"no 90% line, or one outside the run: {p.stderr!r}")
check(sorted(os.listdir(out)) == ["config.json", "model.safetensors", "vocab.json"], f"folder: {os.listdir(out)}")
config = json.load(open(os.path.join(out, "config.json")))
check(config["attnlab_task"]["name"] == "induction" and config["n_layer"] == 2 and config["n_head"] == 2 and config["n_embd"] == 64,
      f"config.json: {config}")

# --force: refused without it (nothing changed), replaced with it.
before = open(os.path.join(out, "model.safetensors"), "rb").read()
bad(["train", "--steps", "5", "--out", out], "--out", "--force")
check(open(os.path.join(out, "model.safetensors"), "rb").read() == before, "a refused run changed the folder")
run("train", "--steps", "5", "--seed", "2", "--out", out, "--force")
check(open(os.path.join(out, "model.safetensors"), "rb").read() != before, "--force did not replace the folder")
check(not leftovers(), f"temporary files left: {leftovers()}")

nothing = os.path.join(WORK, "never")

# The grammar task with a start token: its task in config.json, and a model that opens.
grammar = os.path.join(WORK, "grammar")
p = run("train", "--task", "grammar", "--start-token", "--family", "llama", "--steps", "20", "--batch", "8", "--out", grammar,
        "--format", "json")
check(p.returncode == 0 and json.loads(p.stdout)["task"] == "grammar", f"train --task grammar: {p.stderr!r}")
if p.returncode == 0:
    task = json.load(open(os.path.join(grammar, "config.json")))["attnlab_task"]
    check(task == {"name": "grammar", "half_length": 16, "symbols": 64, "start_token": True}, f"grammar's attnlab_task: {task}")
    check(run("model", grammar, "--ids", "0,5,6,7").returncode == 0, "the grammar model does not open")

# A Llama: the summary, a Llama's folder that `attnlab model` opens as one.
llama = os.path.join(WORK, "llama")
p = run("train", "--family", "llama", "--heads", "4", "--steps", "20", "--batch", "8", "--out", llama, "--format", "json")
summary = json.loads(p.stdout) if p.returncode == 0 else {}
check(set(summary) == {"task", "steps", "batch", "seconds", "final_loss", "accuracy", "out"} and summary.get("steps") == 20,
      f"llama summary: {summary}")
config = json.load(open(os.path.join(llama, "config.json"))) if p.returncode == 0 else {}
check(config.get("model_type") == "llama" and config.get("num_attention_heads") == 4 and config.get("num_key_value_heads") == 2
      and config.get("attnlab_task", {}).get("name") == "induction", f"llama config.json: {config}")
q = run("model", llama, "--ids", "1,2,3", "--format", "json")
m = json.loads(q.stdout)["model"] if q.returncode == 0 else {}
check(m.get("positions") == "rope" and m.get("n_kv_head") == 2 and m.get("rope_theta") == 10000 and m.get("task") == config.get("attnlab_task"),
      f"attnlab model on the llama folder: {m}")
bad(["train", "--family", "llama", "--heads", "4", "--kv-heads", "3", "--out", nothing], "--kv-heads 3", "divides", out=nothing)
bad(["train", "--kv-heads", "1", "--out", nothing], "--kv-heads 1", "a GPT-2", out=nothing)
# A family the trainer does not write is refused by the flag's choices (CLI11's message and usage).
p = run("train", "--family", "qwen3", "--out", nothing, expect=2)
check("--family" in p.stderr and "qwen3" in p.stderr and not os.path.exists(nothing), f"--family qwen3: {p.stderr!r}")

# The saved folder through `attnlab model` predicts what the trainer predicts, at every prefix.
for family in ("gpt2", "llama"):
    folder = os.path.join(WORK, "predict_" + family)
    p = subprocess.run([TOOL, "predict", family, "induction", "2", "2", "0", "64", "3", "7", "0", "0", "30", folder], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"train tool: {p.stderr}")
    if p.returncode != 0:
        continue
    worst = 0.0
    for seq in json.loads(p.stdout):
        ids = seq["ids"]
        for n in (1, len(ids) // 2, len(ids) - 1, len(ids)):
            mine = seq["next"][n - 1]
            q = run("model", folder, "--ids", ",".join(map(str, ids[:n])), "--top", "1", "--format", "json")
            if q.returncode != 0:
                continue
            top = json.loads(q.stdout)["next_token"][0]
            # The same bytes through the same forward: the same token, the same probability.
            check(top["id"] == mine["id"], f"{family}, prefix {ids[:n]}: attnlab model predicts {top['id']}, the trainer {mine['id']}")
            worst = max(worst, abs(top["prob"] - mine["prob"]))
    check(worst <= 1e-6, f"{family}: probabilities differ by {worst}")

# Bad input: exit 2, one sentence, nothing written.
bad(["train", "--heads", "5", "--out", nothing], "--heads", "not divisible by 5 heads", out=nothing)
bad(["train", "--task", "copy", "--out", nothing], "--task", "copy", out=nothing)
bad(["train", "--layers", "0", "--out", nothing], "--layers 0", out=nothing)
bad(["train", "--layers", "99", "--out", nothing], "--layers 99", "12", out=nothing)
bad(["train", "--d-model", "4096", "--out", nothing], "--d-model 4096", "1024", out=nothing)
bad(["train", "--symbols", "1", "--out", nothing], "--symbols 1", out=nothing)
bad(["train", "--task", "sort", "--length", "1", "--out", nothing], "--length 1", out=nothing)
bad(["train", "--steps", "0", "--out", nothing], "--steps", out=nothing)
bad(["train", "--batch", "100000", "--out", nothing], "--batch 100000", "4096", out=nothing)
bad(["train", "--d-model", "1024", "--layers", "12", "--batch", "4096", "--length", "512", "--out", nothing], "lower --batch", out=nothing)
bad(["train", "--lr", "-1", "--out", nothing], "--lr", out=nothing)
bad(["train", "--out", os.path.join(WORK, "no", "such", "parent")], "does not exist")
# A learning rate that makes the loss NaN: training stops and says what to lower; nothing written.
bad(["train", "--lr", "1e30", "--steps", "50", "--out", nothing], "at step", "lower --lr", out=nothing, after_progress=True)

# The built-in models.
p = run("models", "--format", "json")
models = {m["name"]: m for m in json.loads(p.stdout)["models"]} if p.returncode == 0 else {}
check(set(models) >= {"induction", "sort"}, f"attnlab models lists {sorted(models)}")
text = run("models").stdout
check("induction" in text and "sort" in text, f"attnlab models (text): {text!r}")
for name, m in models.items():
    # A model's name starts with its task's ("grammar-bos": the grammar task with a start token).
    check(name.startswith(m["task"]) and m["n_layer"] >= 1 and m["parameters"] > 0, f"models: {m}")



def judge_heads(folder, what):
    """The induction task's bar (docs/MODELS.md, "The induction task"), scored in PyTorch from the
    folder alone at spans 4, 8 and L: some layer-0 head's mean weight on the previous token ≥ 0.8
    over every row i ≥ 1, some layer-1 head's mean weight on the token after the earlier
    occurrence ≥ 0.8 over the copy, and accuracy ≥ 0.9 on the copy's positions after its first."""
    config, P = head_scores.load(folder)
    for span in head_scores.spans(config):
        r = head_scores.score(config, P, span)
        prev, ind = max(r["previous"][0]), max(r["induction"][1])
        check(prev >= 0.8, f"{what}, span {span}: no previous-token head in layer 0 (best {prev:.3f}: {r['previous'][0]})")
        check(ind >= 0.8, f"{what}, span {span}: no induction head in layer 1 (best {ind:.3f}: {r['induction'][1]})")
        check(r["accuracy"] >= 0.9, f"{what}, span {span}: accuracy {r['accuracy']:.4f} on the copy")
        print(f"{what}, span {span}: layer 0 previous-token {prev:.3f}, layer 1 induction {ind:.3f} "
              f"(first occurrence {max(r['induction_first'][1]):.3f}), accuracy {r['accuracy']:.4f}")


# The default run of each family, as `attnlab train` makes it: both heads and the accuracy, and the
# 90% line. The sanitized build leaves them to the release build (its CMakeLists.txt says why).
for family in ("gpt2", "llama"):
    default = os.path.join(WORK, "default_" + family)
    what = f"default {family} run"
    if os.environ.get("ATTNLAB_SANITIZED") == "1":
        print(f"{what}: left to the release build (ATTNLAB_SANITIZED=1)")
    elif (p := run("train", "--family", family, "--out", default, "--format", "json", "--timing")).returncode == 0:
        print(f"{what}:", json.loads(p.stdout), *[l for l in p.stderr.splitlines() if l.startswith("timing:")], sep="\n  ")
        check(json.loads(p.stdout)["accuracy"] >= 0.9, f"{what}: held-out accuracy {json.loads(p.stdout)['accuracy']}")
        check(re.search(r"90% accuracy on a step's batch first at step \d+", p.stderr), f"{what} never reached 90%: {p.stderr[-300:]!r}")
        judge_heads(default, what)

if "induction" in models:
    saved = os.path.join(WORK, "saved_induction")
    run("model", "induction", "--save", saved, "--ids", "1")
    judge_heads(saved, "built-in induction")
    # The detector names them so on a span of L and its copy (the probe's kind of sequence).
    info = json.loads(run("model", "induction", "--ids", "1,2", "--format", "json").stdout)["model"]
    L, V = info["task"]["half_length"], info["task"]["symbols"]
    rng = random.Random(18)
    half = [rng.randrange(V) for _ in range(L)]
    kinds = json.loads(run("model", "induction", "--ids", ",".join(map(str, half + half)), "--format", "json").stdout)["heads"]
    check(any(k["kind"] == "previous-token" for k in kinds[0]), f"detector: layer 0 kinds {kinds[0]}")
    check(any(k["kind"] == "induction" for k in kinds[1]), f"detector: layer 1 kinds {kinds[1]}")

    # --save writes the folder, which opens with the same output.
    a = run("model", "induction", "--ids", "3,1,4,1,5", "--save", saved, "--force", "--format", "json").stdout
    b = run("model", saved, "--ids", "3,1,4,1,5", "--format", "json").stdout
    check(sorted(os.listdir(saved)) == ["config.json", "model.safetensors", "vocab.json"], f"--save wrote {os.listdir(saved)}")
    strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "model"} if s else {}  # noqa: E731
    check(strip(a) == strip(b), "the saved built-in model gives other output")
    bad(["model", "induction", "--ids", "3,1", "--save", saved], "--force")

if "sort" in models:
    info = json.loads(run("model", "sort", "--ids", "1", "--format", "json").stdout)["model"]
    N, V = info["task"]["length"], info["task"]["symbols"]
    rng = random.Random(5)
    right = total = 0
    for _ in range(6):
        first = [rng.randrange(V) for _ in range(N)]
        ids = first + sorted(first)
        for n in range(N, 2 * N):
            q = json.loads(run("model", "sort", "--ids", ",".join(map(str, ids[:n])), "--top", "1", "--format", "json").stdout)
            right += q["next_token"][0]["id"] == ids[n]
            total += 1
    check(right >= 0.9 * total, f"built-in sort sorts {right} of {total} tokens right")
    print(f"built-in sort: {right} of {total} sorted tokens right")

finish("ok")
