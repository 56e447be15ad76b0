"""Writes the cases of tests/unit/model/tensor_types_test.cpp: for each of the 13 tensor types, blocks
and the float32 values tests/model/gguf_quants.py (bit-exact with ggml's own dequantizers, checked
by model_gguf_reference against libggml-base.so) reads from them. Two sets per type: random blocks
of a given spread (gguf_quants.random_blocks) and any bytes (every field random; float16 scales
and values with their exponent all ones cleared of its top bit, so that every value is finite).
Usage: tensor_types_cases.py OUT_DIR → OUT_DIR/cases.txt (lines "NAME SET COUNT") and for each
case OUT_DIR/NAME.SET.raw (the blocks) and OUT_DIR/NAME.SET.f32 (little-endian float32 values)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model"))
import gguf_quants as gq  # noqa: E402


def any_bytes(name, blocks, rng):
    t = gq.TYPES[name]
    raw = rng.integers(0, 256, size=(blocks, t.bytes), dtype=np.uint8)
    halves = [at for at, _ in gq._SCALE_FIELDS.get(name, [])] if t.block > 1 else list(range(0, t.bytes, 2))
    if name == "F32":
        return raw.tobytes(), []
    for at in halves:
        h = raw[:, at:at + 2].copy().view("<u2")[:, 0]
        mask = 0x7F80 if name == "BF16" else 0x7C00
        h = np.where((h & mask) == mask, h & 0xBFFF, h).astype("<u2")
        raw[:, at:at + 2] = h.view(np.uint8).reshape(blocks, 2)
    return raw.tobytes(), halves


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7272)
    lines = []
    for name, t in gq.TYPES.items():
        blocks = 96 if t.block > 1 else 96 * 64
        sets = [("random", gq.random_blocks(name, blocks, rng, std=0.7))]
        raw, _ = any_bytes(name, blocks, rng)
        if name == "F32":  # any bytes of a float32 may be NaN: keep to finite values
            raw = rng.standard_normal(blocks).astype("<f4").tobytes()
        sets.append(("any", raw))
        for label, data in sets:
            count = blocks * t.block
            values = gq.dequantize(name, data, count).astype("<f4")
            with open(os.path.join(out, f"{name}.{label}.raw"), "wb") as f:
                f.write(bytes(data))
            with open(os.path.join(out, f"{name}.{label}.f32"), "wb") as f:
                f.write(values.tobytes())
            lines.append(f"{name} {label} {count}")
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
