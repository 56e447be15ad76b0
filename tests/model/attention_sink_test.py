"""The built-in grammar-bos model has an attention sink, and a cache that evicts it loses the thread
(issue 71, docs/MODELS.md "A cache that forgets"). The model learned the grammar task: count up, or
repeat what followed a token seen before. Its heads park most of their weight on the start token on
the rows whose token is new (nothing to copy), far above what even weights give. On seeded texts of
the task (the start token and 16 tokens, the continuation 12 tokens of the rule, judged where the
window holds all the rule needs), greedy generation with --cache-window W --cache-sinks 1 writes
what the whole cache writes on most; the same number of positions without the sink
(--cache-window W+1 --cache-sinks 0) on few.
Usage: attention_sink_test.py ATTNLAB"""
import json
import sys

import numpy as np

from model_checks import check, finish, runner

ATTNLAB = sys.argv[1]
run = runner(ATTNLAB)
MODEL, TEXT, WRITE, WINDOW, TEXTS = "grammar-bos", 16, 12, 8, 60
info = json.loads(run("model", MODEL, "--ids", "0", "--format", "json").stdout)["model"]["task"]
SYMBOLS = info["symbols"] - 1  # the task's own symbols, 1 … V − 1 after the start token


def rule_next(text, since=0):
    """The grammar's next token after `text` (the task's symbols 0 … V − 2), looking back to `since`."""
    last = len(text) - 1
    for j in range(last - 1, since - 1, -1):
        if text[j] == text[last]:
            return text[j + 1]
    return (text[last] + 1) % SYMBOLS


def continuation(text, count, window=None):
    out = list(text)
    for _ in range(count):
        out.append(rule_next(out, 0 if window is None else max(0, len(out) - window - 1)))
    return out[len(text):]


def model_json(*args):
    return json.loads(run("model", MODEL, *args, "--format", "json").stdout)


def written(ids, *bound):
    out = model_json("--ids", ",".join(map(str, ids)), "--generate", str(WRITE), "--temperature", "0", *bound)
    return [t["id"] for t in out["generated"]]


rng = np.random.default_rng(71)
judged = kept_same = evicted_same = kept_tokens = evicted_tokens = 0
sink_shares, chance = [], []
while judged < TEXTS:
    text = [int(rng.integers(SYMBOLS))]
    while len(text) < TEXT:
        text.append(int(rng.integers(SYMBOLS)) if rng.integers(4) == 0 else rule_next(text))
    if continuation(text, WRITE) != continuation(text, WRITE, WINDOW):
        continue  # the window forgets what the continuation needs: a bounded cache may rightly differ
    judged += 1
    prompt = [0] + [x + 1 for x in text]
    full = written(prompt)
    kept = written(prompt, "--cache-window", str(WINDOW), "--cache-sinks", "1")
    evicted = written(prompt, "--cache-window", str(WINDOW + 1), "--cache-sinks", "0")
    kept_same += kept == full
    evicted_same += evicted == full
    kept_tokens += sum(a == b for a, b in zip(kept, full))
    evicted_tokens += sum(a == b for a, b in zip(evicted, full))
    if judged <= 12:
        # The first-token share on the idle rows (a new token) of the text and the rule's continuation.
        ids = prompt + [x + 1 for x in continuation(text, WRITE)]
        idle = [i for i in range(1, len(ids)) if ids[i] not in ids[:i]]
        attention = model_json("--ids", ",".join(map(str, ids)))["attention"]
        sink_shares.append(max(float(np.mean([np.array(w)[i][0] for i in idle])) for layer in attention for w in layer))
        chance.append(float(np.mean([1 / (i + 1) for i in idle])))

print(f"{judged} texts: the sink kept, {kept_same} continuations as the whole cache's ({kept_tokens}/{judged * WRITE} tokens); "
      f"the sink evicted, {evicted_same} ({evicted_tokens}/{judged * WRITE}); sink head's idle-row share "
      f"{np.mean(sink_shares):.3f} (even weights: {np.mean(chance):.3f})")
check(kept_same >= 0.8 * judged, f"keeping the sink: {kept_same}/{judged} continuations as the whole cache's")
check(evicted_same <= kept_same / 2, f"evicting the sink: {evicted_same}/{judged} continuations as the whole cache's, "
                                     f"against {kept_same}/{judged} keeping it")
check(np.mean(sink_shares) >= 0.5 and np.mean(sink_shares) >= 3 * np.mean(chance), f"sink share {np.mean(sink_shares):.3f}")
finish("ok: the sink, a cache that keeps it writes what the whole cache writes, and one that evicts it loses the thread")
