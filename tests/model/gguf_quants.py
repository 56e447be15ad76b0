"""ggml's tensor types in numpy, for the GGUF tests (docs/MODELS.md, "GGUF files"): the block
layouts of F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K and Q6_K,
written here from ggml's block structs (ggml-common.h) and the formulas of its reference
dequantizers. Quantizers for Q8_0, Q4_0, Q4_K and Q6_K (simple round-to-nearest ones: any
bytes in a valid layout are a valid file, so they need not choose the blocks ggml's own quantizer
would); dequantizers for every type; random valid blocks of every type.

Bit-exact by construction: every dequantized value is a product of a float16 scale and small
integers (at most 23 significant bits: Q6_K's 11-bit scale times |sc·q| ≤ 127·31 < 2¹²), minus or
plus another such product, so the only rounding is the final float32 one. Computed here in float64
and rounded once, it is the float32 that ggml's dequantizer gives in any order of evaluation, with
or without fused multiply-adds: a C++ dequantizer must match these values bit for bit.

API: TYPES (name → GgmlType: id, block elements, block bytes), dequantize(type, raw, count),
quantize(type, array), random_blocks(type, n_blocks, rng, std), row_bytes(type, n)."""
from collections import namedtuple

import numpy as np

GgmlType = namedtuple("GgmlType", "name id block bytes")
TYPES = {t.name: t for t in [
    GgmlType("F32", 0, 1, 4), GgmlType("F16", 1, 1, 2), GgmlType("Q4_0", 2, 32, 18), GgmlType("Q4_1", 3, 32, 20),
    GgmlType("Q5_0", 6, 32, 22), GgmlType("Q5_1", 7, 32, 24), GgmlType("Q8_0", 8, 32, 34),
    GgmlType("Q2_K", 10, 256, 84), GgmlType("Q3_K", 11, 256, 110), GgmlType("Q4_K", 12, 256, 144),
    GgmlType("Q5_K", 13, 256, 176), GgmlType("Q6_K", 14, 256, 210), GgmlType("BF16", 30, 1, 2)]}
# Types a GGUF may hold that the contract leaves out (they exit 2 naming type and tensor): ggml's ids,
# with their block sizes so a file of them is well formed.
UNSUPPORTED = {t.name: t for t in [
    GgmlType("Q8_1", 9, 32, 36), GgmlType("Q8_K", 15, 256, 292), GgmlType("IQ2_XXS", 16, 256, 66),
    GgmlType("IQ4_NL", 20, 32, 18), GgmlType("IQ4_XS", 23, 256, 136), GgmlType("I8", 24, 1, 1),
    GgmlType("I32", 26, 1, 4), GgmlType("F64", 28, 1, 8), GgmlType("TQ2_0", 35, 256, 66)]}
BY_ID = {t.id: t for t in list(TYPES.values()) + list(UNSUPPORTED.values())}
QK_K = 256


def row_bytes(type_name, n):
    """Bytes of n elements of the type (n a multiple of its block)."""
    t = TYPES[type_name]
    assert n % t.block == 0, f"{type_name} needs a multiple of {t.block} elements, not {n}"
    return n // t.block * t.bytes


def _blocks(type_name, raw, count):
    t = TYPES[type_name]
    assert count % t.block == 0, f"{type_name}: {count} elements is not a whole number of {t.block}-element blocks"
    b = np.frombuffer(bytes(raw), np.uint8)
    assert b.size == count // t.block * t.bytes, f"{type_name}: {b.size} bytes for {count} elements"
    return b.reshape(-1, t.bytes)


def _half(b, at):
    """The float16 at byte `at` of every block, as float64 (exact)."""
    return b[:, at:at + 2].copy().view("<f2")[:, 0].astype(np.float64)


def _nibbles(qs):
    """qs: blocks × 16 bytes of a 32-element block → blocks × 32: element j is the low nibble of
    byte j, element j + 16 the high nibble of byte j (ggml's Q4_0/Q4_1/Q5_x order)."""
    return np.concatenate([qs & 0xF, qs >> 4], axis=1).astype(np.int64)


def _scale_min_k4(scales):
    """Q4_K/Q5_K: 12 bytes → 8 six-bit scales and 8 six-bit mins (ggml's get_scale_min_k4): the first
    four pairs are the low six bits of bytes 0–3 and 4–7; the last four take their low four bits from
    bytes 8–11 (scale: low nibble, min: high nibble) and their top two from the top bits of bytes 0–3
    (scale) and 4–7 (min)."""
    s = scales.astype(np.int64)
    sc = np.empty((s.shape[0], 8), np.int64)
    mn = np.empty_like(sc)
    sc[:, :4], mn[:, :4] = s[:, 0:4] & 63, s[:, 4:8] & 63
    sc[:, 4:] = (s[:, 8:12] & 0xF) | ((s[:, 0:4] >> 6) << 4)
    mn[:, 4:] = (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)
    return sc, mn


def _pack_scale_min_k4(sc, mn):
    """The inverse of _scale_min_k4 (sc, mn: blocks × 8, each 0…63)."""
    out = np.zeros((sc.shape[0], 12), np.uint8)
    out[:, 0:4] = (sc[:, :4] & 63) | ((sc[:, 4:] >> 4) << 6)
    out[:, 4:8] = (mn[:, :4] & 63) | ((mn[:, 4:] >> 4) << 6)
    out[:, 8:12] = (sc[:, 4:] & 0xF) | ((mn[:, 4:] & 0xF) << 4)
    return out


def _q3k_scales(scales):
    """Q3_K: 12 bytes → 16 six-bit scales. Scale s (group g = s // 4, b = s % 4) takes its low four
    bits from byte (g % 2)·4 + b (low nibble for g < 2, high for g ≥ 2) and its top two from bits
    2g, 2g + 1 of byte 8 + b."""
    s = scales.astype(np.int64)
    out = np.empty((s.shape[0], 16), np.int64)
    for g in range(4):
        for b in range(4):
            low = (s[:, (g % 2) * 4 + b] >> (4 * (g // 2))) & 0xF
            high = (s[:, 8 + b] >> (2 * g)) & 3
            out[:, g * 4 + b] = low | (high << 4)
    return out


def _k_positions():
    """Q2_K and Q3_K: element e of a 256-block is half n (128 each), shift j, sub-block h (16 each),
    l: e = 128n + 32j + 16h + l. Returns for every e its qs byte (32n + 16h + l), bit shift (2j),
    scale index (8n + 2j + h) and Q3_K's hmask byte (16h + l) and bit (4n + j)."""
    e = np.arange(QK_K)
    n, j, h, l = e // 128, (e % 128) // 32, (e % 32) // 16, e % 16
    return 32 * n + 16 * h + l, 2 * j, 8 * n + 2 * j + h, 16 * h + l, 4 * n + j


def dequantize(type_name, raw, count):
    """The `count` float32 values that `raw` (bytes of type `type_name`) holds, in file order."""
    if type_name == "F32":
        return np.frombuffer(bytes(raw), "<f4", count).astype(np.float32)
    if type_name == "F16":
        return np.frombuffer(bytes(raw), "<f2", count).astype(np.float32)
    if type_name == "BF16":
        return (np.frombuffer(bytes(raw), "<u2", count).astype(np.uint32) << 16).view(np.float32)
    b = _blocks(type_name, raw, count)
    if type_name == "Q8_0":
        y = _half(b, 0)[:, None] * b[:, 2:].view(np.int8).astype(np.float64)
    elif type_name == "Q4_0":
        y = _half(b, 0)[:, None] * (_nibbles(b[:, 2:]) - 8)
    elif type_name == "Q4_1":
        y = _half(b, 0)[:, None] * _nibbles(b[:, 4:]) + _half(b, 2)[:, None]
    elif type_name in ("Q5_0", "Q5_1"):
        at = 2 if type_name == "Q5_0" else 4
        qh = b[:, at:at + 4].copy().view("<u4")[:, 0].astype(np.int64)
        high = (qh[:, None] >> np.arange(32)[None, :]) & 1  # element j's fifth bit is bit j of qh
        q = _nibbles(b[:, at + 4:]) | (high << 4)
        y = _half(b, 0)[:, None] * (q - 16) if type_name == "Q5_0" else _half(b, 0)[:, None] * q + _half(b, 2)[:, None]
    elif type_name == "Q2_K":
        byte, shift, si, _, _ = _k_positions()
        sc = b[:, 0:16].astype(np.int64)
        q = (b[:, 16:80].astype(np.int64)[:, byte] >> shift) & 3
        d, dmin = _half(b, 80)[:, None], _half(b, 82)[:, None]
        y = d * (sc[:, si] & 0xF) * q - dmin * (sc[:, si] >> 4)
    elif type_name == "Q3_K":
        byte, shift, si, hbyte, hbit = _k_positions()
        hm = (b[:, 0:32].astype(np.int64)[:, hbyte] >> hbit) & 1
        q = ((b[:, 32:96].astype(np.int64)[:, byte] >> shift) & 3) - 4 * (1 - hm)
        y = _half(b, 108)[:, None] * (_q3k_scales(b[:, 96:108])[:, si] - 32) * q
    elif type_name in ("Q4_K", "Q5_K"):
        # e = 64j + 32h + l: qs byte 32j + l, its low (h = 0) or high nibble, scale/min 2j + h;
        # Q5_K's fifth bit is bit 2j + h of qh byte l.
        e = np.arange(QK_K)
        j, h, l = e // 64, (e % 64) // 32, e % 32
        qs_at = 16 if type_name == "Q4_K" else 48
        q = (b[:, qs_at:qs_at + 128].astype(np.int64)[:, 32 * j + l] >> (4 * h)) & 0xF
        if type_name == "Q5_K":
            q = q | (((b[:, 16:48].astype(np.int64)[:, l] >> (2 * j + h)) & 1) << 4)
        sc, mn = _scale_min_k4(b[:, 4:16])
        y = _half(b, 0)[:, None] * sc[:, 2 * j + h] * q - _half(b, 2)[:, None] * mn[:, 2 * j + h]
    elif type_name == "Q6_K":
        # e = 128n + 32p + l: low nibble from ql byte 64n + 32(p % 2) + l (low for p < 2, high
        # after), top two bits from bits 2p of qh byte 32n + l, scale 8n + 2p + l // 16.
        e = np.arange(QK_K)
        n, p, l = e // 128, (e % 128) // 32, e % 32
        ql = (b[:, 0:128].astype(np.int64)[:, 64 * n + 32 * (p % 2) + l] >> (4 * (p // 2))) & 0xF
        qh = (b[:, 128:192].astype(np.int64)[:, 32 * n + l] >> (2 * p)) & 3
        sc = b[:, 192:208].view(np.int8).astype(np.int64)[:, 8 * n + 2 * p + l // 16]
        y = _half(b, 208)[:, None] * sc * ((ql | (qh << 4)) - 32)
    else:
        raise ValueError(f"no dequantizer for {type_name}")
    return y.reshape(-1).astype(np.float32)


def _f16(x):
    return np.asarray(x, np.float64).astype(np.float16)


def _round(x):
    return np.rint(x).astype(np.int64)


def quantize(type_name, array):
    """The bytes of `array` (float, any shape, rows contiguous) in type `type_name`: F32, F16, BF16
    (rounded to nearest even), Q8_0, Q4_0, Q4_K, Q6_K. Round to nearest per block; the scales are
    the block's largest magnitude over the largest code, as ggml's reference quantizers choose."""
    x = np.ascontiguousarray(array, np.float32).reshape(-1)
    if type_name == "F32":
        return x.astype("<f4").tobytes()
    if type_name == "F16":
        return x.astype("<f2").tobytes()
    if type_name == "BF16":
        u = x.view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2").tobytes()
    t = TYPES[type_name]
    assert x.size % t.block == 0, f"{type_name} needs a multiple of {t.block} values, not {x.size}"
    xb = x.reshape(-1, t.block).astype(np.float64)
    nb = xb.shape[0]
    out = np.zeros((nb, t.bytes), np.uint8)
    if type_name == "Q8_0":
        d = _f16(np.abs(xb).max(1) / 127)
        dd = d.astype(np.float64)
        q = np.clip(_round(np.divide(xb, dd[:, None], out=np.zeros_like(xb), where=dd[:, None] != 0)), -127, 127)
        out[:, 0:2] = d.astype("<f2").view(np.uint8).reshape(nb, 2)
        out[:, 2:] = q.astype(np.int8).view(np.uint8)
    elif type_name == "Q4_0":
        # The signed value of largest magnitude maps to −8, so the codes use the full −8…7.
        big = xb[np.arange(nb), np.abs(xb).argmax(1)]
        d = _f16(big / -8)
        dd = d.astype(np.float64)
        q = np.clip(_round(np.divide(xb, dd[:, None], out=np.zeros_like(xb), where=dd[:, None] != 0)) + 8, 0, 15)
        out[:, 0:2] = d.astype("<f2").view(np.uint8).reshape(nb, 2)
        out[:, 2:] = (q[:, :16] | (q[:, 16:] << 4)).astype(np.uint8)
    elif type_name == "Q4_K":
        # y = d·sc·q − dmin·m (m ≥ 0). The offsets dmin·m and steps d·sc are rounded up (ceil), so the
        # codes 0…15 always reach the sub-block's ends: no value is clipped.
        sub = xb.reshape(nb, 8, 32)
        lo = np.minimum(sub.min(2), 0.0)
        dmin = _f16(-lo.min(1) / 63 * (1 + 2.0 ** -10))
        dm = dmin.astype(np.float64)[:, None]
        mn = np.clip(np.ceil(np.divide(-lo, dm, out=np.zeros_like(lo), where=dm != 0)), 0, 63).astype(np.int64)
        scale = (sub.max(2) + dm * mn) / 15
        d = _f16(scale.max(1) / 63 * (1 + 2.0 ** -10))
        dd = d.astype(np.float64)[:, None]
        sc = np.clip(np.ceil(np.divide(scale, dd, out=np.zeros_like(scale), where=dd != 0)), 0, 63).astype(np.int64)
        step = dd * sc
        q = np.clip(_round(np.divide(sub + (dm * mn)[:, :, None], step[:, :, None], out=np.zeros_like(sub),
                                     where=step[:, :, None] != 0)), 0, 15).reshape(nb, 256)
        out[:, 0:2] = d.astype("<f2").view(np.uint8).reshape(nb, 2)
        out[:, 2:4] = dmin.astype("<f2").view(np.uint8).reshape(nb, 2)
        out[:, 4:16] = _pack_scale_min_k4(sc, mn)
        e = np.arange(QK_K)
        j, h, l = e // 64, (e % 64) // 32, e % 32
        qs = np.zeros((nb, 128), np.int64)
        np.add.at(qs, (slice(None), 32 * j + l), q << (4 * h))
        out[:, 16:] = qs.astype(np.uint8)
    elif type_name == "Q6_K":
        sub = xb.reshape(nb, 16, 16)
        big = np.take_along_axis(sub, np.abs(sub).argmax(2)[:, :, None], 2)[:, :, 0]
        scale = big / -32  # the signed largest maps to −32, the codes' end with one more step
        top = scale[np.arange(nb), np.abs(scale).argmax(1)]
        d = _f16(top / -128 * (1 + 2.0 ** -10))
        dd = d.astype(np.float64)[:, None]
        # Sub-scales rounded away from zero, so |x| / step never passes 32.
        ratio = np.divide(scale, dd, out=np.zeros_like(scale), where=dd != 0)
        sc = np.clip(np.sign(ratio) * np.ceil(np.abs(ratio)), -128, 127).astype(np.int64)
        step = dd * sc
        q = np.clip(_round(np.divide(sub, step[:, :, None], out=np.zeros_like(sub), where=step[:, :, None] != 0)), -32, 31)
        q = (q + 32).reshape(nb, 256)
        e = np.arange(QK_K)
        n, p, l = e // 128, (e % 128) // 32, e % 32
        ql = np.zeros((nb, 128), np.int64)
        qh = np.zeros((nb, 64), np.int64)
        np.add.at(ql, (slice(None), 64 * n + 32 * (p % 2) + l), (q & 0xF) << (4 * (p // 2)))
        np.add.at(qh, (slice(None), 32 * n + l), (q >> 4) << (2 * p))
        out[:, 0:128], out[:, 128:192] = ql.astype(np.uint8), qh.astype(np.uint8)
        out[:, 192:208] = sc.astype(np.int8).view(np.uint8)
        out[:, 208:210] = d.astype("<f2").view(np.uint8).reshape(nb, 2)
    else:
        raise ValueError(f"no quantizer for {type_name}: use random_blocks")
    return out.tobytes()


# Where each block type keeps its float16 scales: (byte offset, role). "d" fields scale the codes;
# "m" fields are Q4_1/Q5_1's added minimum; "dmin" the K types' subtracted minimum scale.
_SCALE_FIELDS = {"Q8_0": [(0, "d")], "Q4_0": [(0, "d")], "Q5_0": [(0, "d")], "Q4_1": [(0, "d"), (2, "m")],
                 "Q5_1": [(0, "d"), (2, "m")], "Q2_K": [(80, "d"), (82, "dmin")], "Q3_K": [(108, "d")],
                 "Q4_K": [(0, "d"), (2, "dmin")], "Q5_K": [(0, "d"), (2, "dmin")], "Q6_K": [(208, "d")]}


def random_blocks(type_name, n_blocks, rng, std=1.0):
    """n_blocks random blocks of a block type: random bytes for codes and sub-scales (every pattern
    is valid), and float16 scales set so each block's values have about `std` spread and little
    mean (Q4_1/Q5_1's added minimum and the K types' subtracted one put the block's middle near 0).
    For F32/F16/BF16, n_blocks values of that spread."""
    t = TYPES[type_name]
    if t.block == 1:
        return quantize(type_name, rng.standard_normal(n_blocks) * std)
    b = rng.integers(0, 256, size=(n_blocks, t.bytes), dtype=np.uint8)
    fields = _SCALE_FIELDS[type_name]
    for at, _ in fields:
        b[:, at:at + 2] = np.full(n_blocks, 1.0, "<f2").view(np.uint8).reshape(n_blocks, 2)
    for at, role in fields:
        if role == "m":  # added minimum: zero for now, set below from the codes' middle
            b[:, at:at + 2] = np.zeros(n_blocks, "<f2").view(np.uint8).reshape(n_blocks, 2)
    unit = dequantize(type_name, b.tobytes(), n_blocks * t.block).reshape(n_blocks, t.block).astype(np.float64)
    if type_name in ("Q2_K", "Q4_K", "Q5_K"):
        # A value is d·a − dmin·m (a = sc·q): with d = 1 and dmin = 0 the blocks give a, with both 1
        # they give a − m. dmin/d = mean(a)/mean(m) centres each block.
        a = dequantize(type_name, _with_half(b, fields, {"dmin": 0.0}), n_blocks * t.block)
        a = a.reshape(n_blocks, t.block).astype(np.float64)
        m = a - unit
        ratio = np.where(m.mean(1) > 0, a.mean(1) / np.maximum(m.mean(1), 1e-12), 0.0)
        scale = std / np.maximum((a - ratio[:, None] * m).std(1), 1e-12)
        return _with_half(b, fields, {"d": scale, "dmin": scale * ratio})
    spread = unit.std(1)
    scale = std / np.maximum(spread, 1e-12)
    values = {"d": scale}
    if type_name in ("Q4_1", "Q5_1"):
        values["m"] = -unit.mean(1) * scale
    return _with_half(b, fields, values)


def _with_half(b, fields, values):
    """A copy of blocks `b` with the float16 fields whose role is in `values` set (per block)."""
    c = b.copy()
    n = c.shape[0]
    for at, role in fields:
        if role in values:
            v = np.broadcast_to(np.asarray(values[role], np.float64), (n,))
            c[:, at:at + 2] = np.clip(v, -60000, 60000).astype("<f2").view(np.uint8).reshape(n, 2)
    return c.tobytes()
