"""The kv-cache lesson (issue 40) through `attnlab lesson kv-cache --format json`, each number
against another path through the real executable or a formula written here from config.json:
the cached tokens against a whole forward per step (`attnlab model --ids … --top 1`), the logit
difference within float32's rounding bound, the FLOPs per token against the decoder's products,
the cache's bytes per token per shape, exposure bias's teacher-forced tokens against whole
forwards, its draws against `attnlab model --generate` with the same temperature and seed, the
greedy tokens after the first wrong draw against `--generate --temperature 0`; and bad lesson
fields, each one sentence with exit 2.
Usage: kv_cache_cli_test.py ATTNLAB PRESET WORKDIR"""
import json
import math
import os
import subprocess
import sys

from cli_checks import error_lines

ATTNLAB, PRESET, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def report(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + (f": {detail}" if detail and not ok else ""))
    if not ok:
        failures.append(what)


def run(*args):
    p = subprocess.run([ATTNLAB, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"attnlab {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return p.stdout


def ids_arg(ids):
    return ",".join(str(i) for i in ids)


def whole_forward_best(model, ids):
    """The most probable next token by one forward over the whole text (no cache, no sampling)."""
    return json.loads(run("model", model, "--ids", ids_arg(ids), "--top", "1", "--format", "json"))["next_token"][0]["id"]


def generated(model, ids, count, temperature, seed):
    out = json.loads(run("model", model, "--ids", ids_arg(ids), "--generate", str(count), "--temperature", str(temperature),
                         "--seed", str(seed), "--format", "json"))
    return [g["id"] for g in out["generated"]]


def projection_flops(c, n):
    """GPT-2's matrix products besides attention (docs/PERFORMANCE.md): per layer q, k, v and o
    (4·n·d² · 2) and the MLP (2 · 2·n·d·4d); the last position's logits."""
    d = c["n_embd"]
    return c["n_layer"] * (2 * n * d * 3 * d + 2 * n * d * d + 2 * 2 * n * d * 4 * d) + 2 * d * c["vocab_size"]


def with_and_without_cache(j, lesson, model, config):
    """The cached tokens against a whole forward per step, the logits' difference within float32's
    rounding bound. `j`: the lesson's JSON; `config`: `attnlab model`'s model object."""
    ids, prompt = lesson["ids"], lesson["prompt"]
    check = j["check"]
    report(check["prompt"] == ids[:prompt], "the check starts from the lesson's prompt")
    text = list(check["prompt"])
    refs = []
    for t in check["tokens_cached"]:
        refs.append(whole_forward_best(model, text))
        text.append(t)
    report(check["tokens_cached"] == refs, "each cached token is a whole forward's most probable", f"{check['tokens_cached']} vs {refs}")
    report(check["tokens_whole"] == refs and check["same_tokens"], "the lesson's own whole-forward tokens agree")
    widest = max(config["d_model"], 4 * config["d_model"], config["n_head"] * config["d_head"])
    bound = 8 * 2.0 ** -24 * math.sqrt(widest) * (config["n_layer"] + 1) * (1 + check["largest_logit"])
    report(abs(check["bound"] - bound) <= 1e-9 * bound, "the bound is float32's rounding at the logits' size", f"{check['bound']} vs {bound}")
    report(0 <= check["largest_difference"] <= bound, "the logits differ within the bound", check["largest_difference"])
    report(check["largest_logit"] > 1, "the logits are not all near 0 (the bound means something)", check["largest_logit"])


def cost_per_token(j, config):
    """The cost per token, from the decoder's products.
    QKᵀ and AV take 2·d FLOPs per (query, key) pair each, in every layer: a cached token's one row
    runs over all n + 1 keys; the whole text over at least the causal triangle's pairs and at
    most every pair (the products run on blocks of query rows)."""
    c = {"n_layer": config["n_layer"], "n_embd": config["d_model"], "vocab_size": config["vocab_size"]}
    cost = j["cost"]
    n = cost["prompt"]
    d, layers = c["n_embd"], c["n_layer"]
    cached = projection_flops(c, 1) + layers * 4 * d * (n + 1)
    report(cost["flops_cached"] == cached, "a cached token's FLOPs: one position over the cache", f"{cost['flops_cached']} vs {cached}")
    pairs = (cost["flops_whole"] - projection_flops(c, n + 1)) / (layers * 4 * d)
    report(pairs == int(pairs) and (n + 1) * (n + 2) / 2 <= pairs <= (n + 1) ** 2, "the whole text's FLOPs: its causal pairs, at most all",
           pairs)
    report(cost["flops_ratio"] > 5, "the cache saves most of the work", cost["flops_ratio"])
    measured = cost.get("measured", {})
    report(measured.get("ms_cached", 0) > 0 and measured.get("ms_whole", 0) > 0, "both ways are timed", measured)


def cache_bytes(j, lesson, model, config):
    """The cache's bytes: K and V, every layer, every K/V head, 2 bytes a number (bfloat16)."""
    context = lesson["context"]
    report(j["context_tokens"] == context, "the caches are sized for the lesson's context")
    configs = [{"name": model, "layers": config["n_layer"], "heads": config["n_head"], "kv_heads": config["n_head"],
                "head_dim": config["d_head"]}] + lesson["kv_configs"]
    report(len(j["kv_cache"]) == len(configs), "a cache for the model and each named config")
    for got, s in zip(j["kv_cache"], configs):
        per_token = 2 * s["layers"] * s["kv_heads"] * s["head_dim"] * 2
        ok = (got["name"] == s["name"] and got["bytes_per_token"] == per_token
              and got["mha_bytes_per_token"] == per_token * s["heads"] // s["kv_heads"]
              and got["context_bytes"] == per_token * context and got["kib_per_token"] == per_token / 1024
              and got["saving"] == s["heads"] / s["kv_heads"])
        report(ok, f"{s['name']}: the cache's bytes", got)
    by_name = {s["name"]: s for s in j["kv_cache"]}
    report(by_name["Llama 3 8B"]["bytes_per_token"] * 4 == by_name["Llama 2 7B"]["bytes_per_token"],
           "grouped-query Llama 3 8B (8 K/V heads for 32) keeps a quarter of multi-head Llama 2 7B's")


def exposure_bias(j, lesson, model):
    """Teacher forcing's tokens against whole forwards over the true text, the draws against
    `model --generate` with the same temperature and seed, the greedy tokens after the first
    wrong draw against `--generate --temperature 0`."""
    ids, prompt = lesson["ids"], lesson["prompt"]
    e = j["exposure"]
    truth = ids[prompt:]
    report(e["prompt"] == ids[:prompt] and e["truth"] == truth and e["steps"] == len(truth), "exposure bias's text is the lesson's")
    teacher = [whole_forward_best(model, ids[:prompt + i]) for i in range(len(truth))]
    report(e["teacher"] == teacher, "teacher forcing's tokens are whole forwards over the true text", f"{e['teacher']} vs {teacher}")
    drawn = generated(model, ids[:prompt], len(truth), lesson["sample_temperature"], lesson["seed"])
    report(e["drawn"] == drawn, "the draws are `model --generate`'s with the same temperature and seed", f"{e['drawn']} vs {drawn}")
    fm = e["first_mistake"]
    wrong = [i for i in range(len(truth)) if drawn[i] != truth[i]]
    report(fm == (wrong[0] if wrong else -1), "the first mistake is the first draw off the true text", fm)
    report(fm >= 0, "the lesson's seed draws a mistake (the demonstration needs one)")
    if fm >= 0:
        rest = len(truth) - fm - 1
        greedy = generated(model, ids[:prompt] + drawn[:fm + 1], rest, 0, 0) if rest else []
        report(e["greedy_after"] == greedy, "after the mistake: `--generate --temperature 0` from the text with it", f"{e['greedy_after']} vs {greedy}")
        report(e["greedy_after_correct"] == sum(g == t for g, t in zip(greedy, truth[fm + 1:])), "the greedy tokens' count")
        # Against the truth shifted: the shift from −2 to 2 (not 0) with the most agreeing tokens,
        # kept only where it beats in place (a model that skipped a token writes the truth early).
        def agreeing(shift):
            pairs = [(g, truth[fm + 1 + i + shift]) for i, g in enumerate(greedy) if 0 <= fm + 1 + i + shift < len(truth)]
            return sum(a == b for a, b in pairs), len(pairs)
        best = {"shift": 0, "matches": 0, "compared": 0}
        for shift in (1, -1, 2, -2):
            matches, compared = agreeing(shift)
            if matches > agreeing(0)[0] and matches > best["matches"]:
                best = {"shift": shift, "matches": matches, "compared": compared}
        report(e["greedy_after_shifted"] == best, "the greedy tokens against the truth shifted", f"{e['greedy_after_shifted']} vs {best}")
        report(e["drawn_model_prob"][fm] < 0.5, "the wrong draw was one the model itself found unlikely", e["drawn_model_prob"][fm])
    report(e["teacher_correct"] == sum(a == b for a, b in zip(teacher, truth)), "teacher forcing's count")
    report(e["drawn_correct"] == sum(a == b for a, b in zip(drawn, truth)), "the draws' count")
    report(e["teacher_correct"] > e["drawn_correct"], "fed its own draws the model does worse than fed the truth (exposure bias)")


def bad_lesson_fields():
    """Bad lesson fields: exit 2, one sentence naming the field."""
    base = json.load(open(PRESET))

    def bad(label, change, *needles):
        s = json.loads(json.dumps(base))
        change(s["lesson"])
        path = os.path.join(WORK, "bad.json")
        json.dump(s, open(path, "w"))
        p = subprocess.run([ATTNLAB, "lesson", path, "--format", "json"], capture_output=True, text=True)
        lines = error_lines(p.stderr)
        ok = p.returncode == 2 and len(lines) == 1 and all(x in p.stderr for x in needles)
        report(ok, f"bad lesson field refused: {label}", f"{p.returncode} {p.stderr.strip()}")

    bad("prompt past the ids", lambda l: l.update(prompt=len(l["ids"])), "lesson.prompt")
    bad("a token past the vocabulary", lambda l: l.update(ids=l["ids"][:-1] + [99]), "lesson.ids", "99")
    bad("a negative token", lambda l: l.update(ids=[-1] + l["ids"][1:]), "lesson.ids[0]")
    bad("an unknown model", lambda l: l.update(model="no-such-model"), "no-such-model")
    bad("heads not a multiple of the K/V heads", lambda l: l["kv_configs"].append(
        {"name": "x", "layers": 1, "heads": 6, "kv_heads": 4, "head_dim": 8}), "lesson.kv_configs[3]", "evenly")
    bad("a config without layers", lambda l: l["kv_configs"].append({"name": "x", "heads": 1, "kv_heads": 1, "head_dim": 8}),
        "lesson.kv_configs[3]", "layers")
    bad("a temperature of 0", lambda l: l.update(sample_temperature=0), "lesson.sample_temperature")
    bad("more tokens than the model's positions", lambda l: l.update(ids=l["ids"] * 2), "positions")


def main():
    os.makedirs(WORK, exist_ok=True)
    lesson = json.load(open(PRESET))["lesson"]
    j = json.loads(run("lesson", "kv-cache", "--format", "json"))
    model = j["model"]
    report(model == lesson["model"], "the lesson runs on its own model", model)
    config = json.loads(run("model", model, "--ids", "0", "--format", "json"))["model"]
    # The pipeline's last row from K and V alone is the whole computation's.
    report(j["last_row_difference"] <= 1e-6, "the last row from the kept K and V is the whole computation's", j["last_row_difference"])
    with_and_without_cache(j, lesson, model, config)
    cost_per_token(j, config)
    cache_bytes(j, lesson, model, config)
    exposure_bias(j, lesson, model)
    report(j["see_also"] == "gqa", "the lesson points at the gqa lesson")
    # The text quotes these numbers, filled.
    e = j["exposure"]
    text_out = run("lesson", "kv-cache")
    report(f"{e['teacher_correct']} of {e['steps']} tokens right" in text_out, "the text quotes teacher forcing's count")
    bad_lesson_fields()
    print(f"{len(failures)} failure(s)" if failures else "kv-cache lesson: all checks passed")
    sys.exit(1 if failures else 0)


main()
