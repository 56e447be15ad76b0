"""attnlab train end to end (docs/MODELS.md, "Training"): a short run's JSON summary and folder,
the folder reopened through `attnlab model` giving the trainer's own predictions, --force, every
bad input answered by exit 2 and one sentence with nothing written, a learning rate that makes the
loss NaN; and the built-in models: listed, opened by name, saved, and their heads on repeated
random sequences: layer 1 an induction head (mean attention ≥ 0.5 on the token after the earlier
occurrence) and layer 0 a previous-token head (mean weight ≥ 0.5 on the previous token), each also
named so by the detector (docs/MODELS.md, "Built-in models").
Usage: train_cli_test.py ATTNLAB TRAIN_TOOL WORKDIR"""
import json
import os
import random
import re
import shutil
import subprocess
import sys

from model_checks import check, failures, runner

ATTNLAB, TOOL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
run = runner(ATTNLAB)


def leftovers():
    return sorted(n for n in os.listdir(WORK) if n.startswith("."))


def bad(args, *needles, out=None, after_progress=False):
    """Exit 2, one line on stderr starting 'attnlab: ' and naming what is wrong; nothing written.
    after_progress: training had started, so progress lines ("step …") may come before it."""
    p = run(*args, expect=2)
    lines = p.stderr.strip().split("\n")
    if after_progress:
        lines = [l for l in lines if not l.startswith("step ")]
    check(len(lines) == 1 and lines[0].startswith("attnlab: "), f"{args}: not one 'attnlab: ' line: {p.stderr!r}")
    for n in needles:
        check(n in p.stderr, f"{args}: stderr lacks {n!r}: {p.stderr!r}")
    check(p.stdout == "", f"{args}: printed to stdout on error")
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

# The saved folder through `attnlab model` predicts what the trainer predicts, at every prefix.
folder = os.path.join(WORK, "predict")
p = subprocess.run([TOOL, "predict", "induction", "2", "2", "64", "3", "7", "0", "0", "30", folder], capture_output=True, text=True)
check(p.returncode == 0, f"train tool: {p.stderr}")
if p.returncode == 0:
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
            check(top["id"] == mine["id"], f"prefix {ids[:n]}: attnlab model predicts {top['id']}, the trainer {mine['id']}")
            worst = max(worst, abs(top["prob"] - mine["prob"]))
    check(worst <= 1e-6, f"probabilities differ by {worst}")

# Bad input: exit 2, one sentence, nothing written.
nothing = os.path.join(WORK, "never")
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
    check(m["task"] == name and m["n_layer"] >= 1 and m["parameters"] > 0, f"models: {m}")

if "induction" in models:
    rng = random.Random(18)
    info = json.loads(run("model", "induction", "--ids", "1,2", "--format", "json").stdout)["model"]
    L, V = info["task"]["half_length"], info["task"]["symbols"]
    prev0 = [0.0] * info["n_head"]
    ind1 = [0.0] * info["n_head"]
    trials = 8
    right = total = 0
    for _ in range(trials):
        half = [rng.randrange(V) for _ in range(L)]
        ids = half + half
        out = json.loads(run("model", "induction", "--ids", ",".join(map(str, ids)), "--format", "json").stdout)
        att = out["attention"]
        for h in range(info["n_head"]):
            # Mean weight on key i − 1 (layer 0) and on key i − L + 1, the token after the earlier
            # occurrence (layer 1), over the rows where each is defined.
            prev0[h] += sum(att[0][h][i][i - 1] for i in range(1, 2 * L)) / (2 * L - 1) / trials
            ind1[h] += sum(att[1][h][i][i - L + 1] for i in range(L, 2 * L)) / L / trials
        # The next token after the whole repeat's prefix is the repeat's next token.
        q = json.loads(run("model", "induction", "--ids", ",".join(map(str, ids[:-1])), "--top", "1", "--format", "json").stdout)
        right += q["next_token"][0]["id"] == ids[-1]
        total += 1
    check(max(prev0) >= 0.5, f"built-in induction: no previous-token head in layer 0 (best mean {max(prev0):.2f}: {prev0})")
    check(max(ind1) >= 0.5, f"built-in induction: no induction head in layer 1 (best mean {max(ind1):.2f}: {ind1})")
    check(right >= total - 1, f"built-in induction predicts the repeat's last token {right} of {total} times")
    kinds = json.loads(run("model", "induction", "--ids", ",".join(map(str, ids)), "--format", "json").stdout)["heads"]
    check(any(k["kind"] == "previous-token" for k in kinds[0]), f"detector: layer 0 kinds {kinds[0]}")
    check(any(k["kind"] == "induction" for k in kinds[1]), f"detector: layer 1 kinds {kinds[1]}")
    print(f"built-in induction: layer 0 previous-token {max(prev0):.2f}, layer 1 induction {max(ind1):.2f}")

    # --save writes the folder, which opens with the same output.
    saved = os.path.join(WORK, "saved_induction")
    a = run("model", "induction", "--ids", "3,1,4,1,5", "--save", saved, "--format", "json").stdout
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

for f in failures:
    print("FAIL:", f)
print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
