"""The heads of a trained toy model scored in PyTorch from the model folder alone, as the
literature scores them (docs/MODELS.md, "Head kinds" and "The induction task"), and its accuracy
on the task's judged sequences: a random span of S tokens followed by its copy.

For each span length S and each head, over `count` such sequences (positions 0 … 2S − 1):
- previous-token: the mean weight on key i − 1 over every row i ≥ 1 (the whole sequence);
- induction: the mean, over the copy's rows i = S … 2S − 1, of the weight on key i − S + 1, the
  token after the earlier occurrence (the diagonal the head must follow);
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
    """(config.json as a dict, name → float64 tensor) of a GPT-2 model folder in F32."""
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


def score(config, P, span, count=64, seed=35):
    """{"previous": [layer][head], "induction": [layer][head], "accuracy": float} at one span length."""
    L, H = config["n_layer"], config["n_head"]
    seqs = judged_sequences(span, config["vocab_size"], count, random.Random(seed * 1000 + span))
    att = []
    with torch.no_grad():
        out = ref.logits(P, seqs, L, H, attention=att)
    n = 2 * span
    rows = torch.arange(1, n)
    copy = torch.arange(span, n)
    previous = [[float(a[:, h, rows, rows - 1].mean()) for h in range(H)] for a in att]
    induction = [[float(a[:, h, copy, copy - span + 1].mean()) for h in range(H)] for a in att]
    predicted = out[:, span:n - 1].argmax(-1)
    accuracy = float((predicted == seqs[:, span + 1:n]).double().mean())
    return {"previous": previous, "induction": induction, "accuracy": accuracy}


def main():
    folder = sys.argv[1]
    config, P = load(folder)
    task = config.get("attnlab_task", {})
    half = task.get("half_length", config["n_positions"] // 2)
    spans = [int(s) for s in sys.argv[2:]] or sorted({4, 8, half})
    for s in spans:
        r = score(config, P, s)
        fmt = lambda grid: " | ".join(" ".join(f"{v:.3f}" for v in layer) for layer in grid)  # noqa: E731
        print(f"span {s:3d}: previous-token {fmt(r['previous'])}   induction {fmt(r['induction'])}   accuracy {r['accuracy']:.4f}")


if __name__ == "__main__":
    main()
