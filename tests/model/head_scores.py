"""The heads of a trained toy model scored in PyTorch from the model folder alone, as the
literature scores them (docs/MODELS.md, "Head kinds" and "The induction task"), and its accuracy
on the task's judged sequences: a random span of S tokens followed by its copy.

For each span length S and each head, over `count` such sequences (positions 0 … 2S − 1):
- previous-token: the mean weight on key i − 1 over every row i ≥ 1 (the whole sequence);
- induction: over the copy's rows i = S … 2S − 1 (the repeat), the mean weight on the keys just
  after every earlier occurrence of row i's token (TransformerLens's induction pattern: key
  i − S + 1, and one more for each symbol the span repeats);
- induction_first: the same on key i − S + 1 alone (the token after the first copy's occurrence);
- accuracy: the most probable next token against the copy's tokens after its first, predicted at
  positions S … 2S − 2.
Used by train_cli_test.py; also a command: head_scores.py FOLDER [SPAN …] prints the table."""
import json
import os
import random
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_reference as ref  # noqa: E402


def load(folder):
    """(config.json as a dict, name → float64 tensor) of a GPT-2's or a Llama's model folder in F32."""
    config = json.load(open(os.path.join(folder, "config.json")))
    tensors, _ = ref.read_safetensors(os.path.join(folder, "model.safetensors"))
    return config, {n: torch.tensor(np.array(t), dtype=torch.float64) for n, t in tensors.items()}


def judged_sequences(span, symbols, count, rng):
    """count × 2·span ids: a span drawn uniformly (with repeats) from the symbols, then its copy."""
    rows = []
    for _ in range(count):
        half = [rng.randrange(symbols) for _ in range(span)]
        rows.append(half + half)
    return torch.tensor(rows, dtype=torch.int64)


def induction_pattern(ids):
    """B × n × n booleans: (i, j + 1) for every j < i with ids[j] == ids[i] (TransformerLens's
    get_induction_head_detection_pattern, per row of the batch)."""
    n = ids.shape[1]
    earlier = (ids[:, :, None] == ids[:, None, :]) & torch.ones(n, n, dtype=torch.bool).tril(-1)
    pattern = torch.zeros_like(earlier)
    pattern[:, :, 1:] = earlier[:, :, :-1]
    return pattern


def score(config, P, span, count=256, seed=35):
    """{"previous", "induction", "induction_first": [layer][head], "accuracy": float} at one span."""
    H = ref.shape(config)[1]
    seqs = judged_sequences(span, config["vocab_size"], count, random.Random(seed * 1000 + span))
    att = []
    with torch.no_grad():
        out = ref.model_logits(config, P, seqs, attention=att)
    n = 2 * span
    rows = torch.arange(1, n)
    copy = torch.arange(span, n)
    pattern = induction_pattern(seqs)[:, copy].double()
    previous = [[float(a[:, h, rows, rows - 1].mean()) for h in range(H)] for a in att]
    induction = [[float((a[:, h, copy] * pattern).sum(-1).mean()) for h in range(H)] for a in att]
    first = [[float(a[:, h, copy, copy - span + 1].mean()) for h in range(H)] for a in att]
    predicted = out[:, span:n - 1].argmax(-1)
    accuracy = float((predicted == seqs[:, span + 1:n]).double().mean())
    return {"previous": previous, "induction": induction, "induction_first": first, "accuracy": accuracy}


def spans(config):
    """4, 8 and the task's half length (the spans the tests judge at), those that fit."""
    half = config["attnlab_task"]["half_length"]
    return sorted({s for s in (4, 8, half) if s <= half})


def main():
    folder = sys.argv[1]
    config, P = load(folder)
    for s in [int(s) for s in sys.argv[2:]] or spans(config):
        r = score(config, P, s)
        grid = lambda g: " | ".join(" ".join(f"{v:.3f}" for v in layer) for layer in g)  # noqa: E731
        print(f"span {s:3d}: previous-token {grid(r['previous'])}   induction {grid(r['induction'])} "
              f"(first occurrence {grid(r['induction_first'])})   accuracy {r['accuracy']:.4f}")


if __name__ == "__main__":
    main()
