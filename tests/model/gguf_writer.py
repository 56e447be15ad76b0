"""GGUF files for the tests (docs/MODELS.md, "GGUF files"), written here from the format's
documentation (ggml's docs/gguf.md): little-endian; "GGUF", uint32 version, uint64 tensor count,
uint64 key count; each key a string (uint64 length, bytes) with a uint32 value type and the value
(arrays: uint32 element type, uint64 count, the elements); each tensor info a name, uint32 n_dims,
n_dims uint64 sizes (ne[0], the contiguous one, first), uint32 ggml type, uint64 offset into the
data; padding to `general.alignment` (default 32); the data, each tensor at an aligned offset.
Versions 2 and 3 share this layout (3 only allowed big-endian files, which this writer never
writes); version 1's 32-bit counts are not written.

API:
  write_gguf(path, metadata, tensors, version=3) — metadata: (key, value) pairs or a dict; a value
    is a Python str/bool/int/float/list (str → string, bool → bool, int → uint32, float → float32,
    list → an array of the first element's kind: int → int32) or a typed value made with u8(), i8(),
    u16(), i16(), u32(), i32(), u64(), i64(), f32(), f64(), boolean(), string(), array(TYPE, items).
    tensors: Tensor(name, type_name, dims, data) from tensor(name, array, type_name) (quantized
    with gguf_quants; dims are the array's shape reversed) or made by hand. general.alignment in
    metadata (a u32) sets the alignment.
  read_gguf(path) → (version, metadata {key: (type, value)}, [(name, type_id, dims, offset)], data
    start, alignment): a plain reader for the tests' own checks.
  hostile_cases(base_metadata=None, base_tensors=None) → [Case(name, data, expect, what, mentions)]:
    a file per failure mode of llama.cpp's own GGUF tests and of the contract (issue 72, 6), each
    one change from a valid file (by default a small one holding every value type, a Q8_0 and a
    256-wide tensor; or the given model, so that llama.cpp itself can be asked); `expect` is
    "refuse" (exit 2 with one sentence) or "open" (the valid controls), `mentions` words the
    refusal should contain.
CLI: gguf_writer.py hostile DIR — writes DIR/NAME.gguf for each case and DIR/cases.json
     ([{"name", "file", "expect", "what", "mentions"}]), for the C++ tests' generator."""
import json
import os
import struct
import sys
from collections import namedtuple

import numpy as np

import gguf_quants as gq

UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)
TYPE_NAMES = ["UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY", "UINT64", "INT64",
              "FLOAT64"]
_SCALAR = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i", FLOAT32: "<f", BOOL: "<?",
           UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}
MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32

Typed = namedtuple("Typed", "type value")
Tensor = namedtuple("Tensor", "name type_name dims data")


def u8(v): return Typed(UINT8, v)
def i8(v): return Typed(INT8, v)
def u16(v): return Typed(UINT16, v)
def i16(v): return Typed(INT16, v)
def u32(v): return Typed(UINT32, v)
def i32(v): return Typed(INT32, v)
def u64(v): return Typed(UINT64, v)
def i64(v): return Typed(INT64, v)
def f32(v): return Typed(FLOAT32, v)
def f64(v): return Typed(FLOAT64, v)
def boolean(v): return Typed(BOOL, bool(v))
def string(v): return Typed(STRING, v)
def array(elem_type, items): return Typed(ARRAY, (elem_type, list(items)))


def typed(value):
    """A Python value as a typed GGUF value (see the module's docstring for the defaults)."""
    if isinstance(value, Typed):
        return value
    if isinstance(value, bool):
        return boolean(value)
    if isinstance(value, str):
        return string(value)
    if isinstance(value, int):
        return u32(value)
    if isinstance(value, float):
        return f32(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        items = list(value)
        first = items[0] if items else ""
        kind = (STRING if isinstance(first, str) else BOOL if isinstance(first, (bool, np.bool_))
                else INT32 if isinstance(first, (int, np.integer)) else FLOAT32)
        return array(kind, items)
    raise TypeError(f"no GGUF type for {value!r}")


def encode_string(s):
    raw = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(raw)) + raw


def encode_value(t, value):
    """The bytes of a value of type t, without its type."""
    if t == STRING:
        return encode_string(value)
    if t == ARRAY:
        elem, items = value
        if elem in _SCALAR and elem != BOOL and not isinstance(items, list):
            items = list(items)
        if elem in _SCALAR:
            body = np.asarray(items, np.dtype(_SCALAR[elem])).tobytes() if items else b""
        else:
            body = b"".join(encode_value(elem, x) for x in items)
        return struct.pack("<IQ", elem, len(items)) + body
    return struct.pack(_SCALAR[t], value)


def encode_kv(key, value):
    v = typed(value)
    return encode_string(key) + struct.pack("<I", v.type) + encode_value(v.type, v.value)


def encode_tensor_info(name, dims, type_id, offset):
    return encode_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d & (2**64 - 1)) for d in dims) + \
        struct.pack("<IQ", type_id, offset)


def tensor(name, arr, type_name="F32"):
    """A tensor of the array's values in `type_name` (quantized row by row: the last axis must be a
    multiple of the type's block). GGUF lists sizes innermost first, so an [out, in] matrix has dims
    [in, out]."""
    a = np.asarray(arr, np.float32)
    return Tensor(name, type_name, list(reversed(a.shape)), gq.quantize(type_name, a))


def tensor_values(t):
    """The float32 values a Tensor holds, shaped as numpy sees them (dims reversed)."""
    n = int(np.prod(t.dims))
    return gq.dequantize(t.type_name, t.data, n).reshape(list(reversed(t.dims)))


def _pad(n, alignment):
    return (-n) % alignment


def _alignment_of(metadata):
    for key, value in metadata:
        if key == "general.alignment":
            v = typed(value)
            if v.type == UINT32 and v.value > 0:
                return v.value
    return DEFAULT_ALIGNMENT


def _pairs(metadata):
    return list(metadata.items()) if isinstance(metadata, dict) else list(metadata)


# A file as parts, so that the hostile cases can change any one of them.
Layout = namedtuple("Layout", "magic version n_tensors n_kv kvs infos alignment data")
Info = namedtuple("Info", "name dims type_id offset")


def layout(metadata, tensors, version=3):
    """The parts of a valid file: every tensor's data at the next aligned offset."""
    metadata = _pairs(metadata)
    alignment = _alignment_of(metadata)
    infos, data = [], bytearray()
    for t in tensors:
        type_id = gq.TYPES[t.type_name].id if t.type_name in gq.TYPES else gq.UNSUPPORTED[t.type_name].id
        data += b"\0" * _pad(len(data), alignment)
        infos.append(Info(t.name, list(t.dims), type_id, len(data)))
        data += t.data
    data += b"\0" * _pad(len(data), alignment)
    kvs = [encode_kv(k, v) for k, v in metadata]
    return Layout(MAGIC, version, len(infos), len(kvs), kvs, infos, alignment, bytes(data))


def assemble(lay):
    head = lay.magic + struct.pack("<IQQ", lay.version, lay.n_tensors & (2**64 - 1), lay.n_kv & (2**64 - 1))
    body = head + b"".join(lay.kvs) + b"".join(
        i if isinstance(i, bytes) else encode_tensor_info(i.name, i.dims, i.type_id, i.offset) for i in lay.infos)
    return body + b"\0" * _pad(len(body), lay.alignment) + lay.data


def gguf_bytes(metadata, tensors, version=3):
    return assemble(layout(metadata, tensors, version))


def write_gguf(path, metadata, tensors, version=3):
    """Writes the file (through a temporary name, renamed into place). Returns its size."""
    raw = gguf_bytes(metadata, tensors, version)
    tmp = str(path) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(raw)
    os.replace(tmp, path)
    return len(raw)


def read_gguf(path):
    """(version, {key: (type, value)}, [Info], data_start, alignment) of a well-formed file."""
    raw = open(path, "rb").read()
    at = 0

    def take(fmt):
        nonlocal at
        v = struct.unpack_from(fmt, raw, at)
        at += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def text():
        nonlocal at
        n = take("<Q")
        s = raw[at:at + n].decode("utf-8")
        at += n
        return s

    def value(t):
        if t == STRING:
            return text()
        if t == ARRAY:
            elem, n = take("<I"), take("<Q")
            return (elem, [value(elem) for _ in range(n)])
        return take(_SCALAR[t])

    assert raw[:4] == MAGIC, f"{path}: not a GGUF file"
    at = 4
    version, n_tensors, n_kv = take("<I"), take("<Q"), take("<Q")
    meta = {}
    for _ in range(n_kv):
        key = text()
        t = take("<I")
        meta[key] = (t, value(t))
    infos = []
    for _ in range(n_tensors):
        name = text()
        dims = [take("<Q") for _ in range(take("<I"))]
        infos.append(Info(name, dims, take("<I"), take("<Q")))
    alignment = meta["general.alignment"][1] if "general.alignment" in meta else DEFAULT_ALIGNMENT
    return version, meta, infos, at + _pad(at, alignment), alignment


# ---- hostile files ----------------------------------------------------------------------------

Case = namedtuple("Case", "name data expect what mentions")


def every_value_type():
    """Metadata holding one key of every value type and arrays of several, strings included."""
    return [("general.architecture", "test"), ("general.name", "every value type"), ("test.u8", u8(200)), ("test.i8", i8(-100)),
            ("test.u16", u16(60000)), ("test.i16", i16(-30000)), ("test.u32", u32(4000000000)), ("test.i32", i32(-2000000000)),
            ("test.f32", f32(0.5)), ("test.bool", boolean(True)), ("test.string", string("héllo wörld")),
            ("test.u64", u64(2**63 + 5)), ("test.i64", i64(-2**62)), ("test.f64", f64(-1.25e300)),
            ("test.array_i32", array(INT32, [1, -2, 3])), ("test.array_f32", array(FLOAT32, [0.25, -1.5])),
            ("test.array_strings", array(STRING, ["a", "", "ü", "with space"])), ("test.array_bool", array(BOOL, [True, False])),
            ("test.array_empty", array(UINT8, [])), ("test.array_u64", array(UINT64, [0, 2**64 - 1]))]


def small_tensors(rng=None):
    """Three small tensors: F32 [3, 5], Q8_0 [2, 64] and F32 [1, 256] (the last wide enough for any
    256-block type)."""
    rng = rng or np.random.default_rng(0)
    return [tensor("a.weight", rng.standard_normal((3, 5))), tensor("b.weight", rng.standard_normal((2, 64)), "Q8_0"),
            tensor("c.weight", rng.standard_normal((1, 256)))]


def hostile_cases(base_metadata=None, base_tensors=None):
    """Each case is the valid base with one thing wrong (see the module docstring). The base needs
    at least two tensors and a key to duplicate; the unsupported-type case needs a 2-D tensor whose
    ne[0] is a multiple of 256, the partial-block case a block-quantized one (either is left out
    when the base has none). small_tensors() and every_value_type() are the default; a model's
    metadata and tensors (gguf_fixture.gguf_model) make files the whole reader must refuse."""
    meta = _pairs(base_metadata) if base_metadata is not None else every_value_type()
    tens = list(base_tensors) if base_tensors is not None else small_tensors()
    base = layout(meta, tens)
    good = assemble(base)
    cases = []

    def add(name, data, what, *mentions, expect="refuse"):
        cases.append(Case(name, data, expect, what, list(mentions)))

    def with_(**changes):
        return assemble(base._replace(**changes))

    def extra_kv(raw):
        return with_(n_kv=base.n_kv + 1, kvs=base.kvs + [raw])

    def kv_changed(index, raw):
        kvs = list(base.kvs)
        kvs[index] = raw
        return kvs

    def info_changed(index, **changes):
        infos = list(base.infos)
        infos[index] = infos[index]._replace(**changes)
        return infos

    first_key = meta[0][0]
    t0, t1 = base.infos[0], base.infos[1]
    wide = next((i for i, t in enumerate(tens) if len(t.dims) == 2 and t.dims[0] % 256 == 0), None)
    M = 2**64 - 1  # −1 as a uint64

    # Controls: what must open.
    add("valid_v3", good, "the valid base file, version 3", expect="open")
    add("valid_v2", with_(version=2), "the same file as version 2 (the same layout)", expect="open")
    aligned = layout(meta + [("general.alignment", u32(64))], tens)
    add("valid_alignment_64", assemble(aligned), "general.alignment 64, the data padded to it", expect="open")

    # The header.
    add("empty_file", b"", "an empty file", "GGUF")
    add("header_truncated", good[:12], "the file ends inside the header", "GGUF")
    add("bad_magic", b"FUGG" + good[4:], "the magic is FUGG, not GGUF", "GGUF")
    add("version_0", with_(version=0), "version 0", "version")
    add("version_1", with_(version=1), "version 1 (32-bit counts, no longer read)", "version")
    add("version_4", with_(version=4), "version 4, from the future", "version")
    add("version_big_endian", with_(version=3 << 24), "version 3 written big-endian (50331648 read little-endian)", "version")
    add("n_tensors_minus_1", with_(n_tensors=M), "a tensor count of −1 (2⁶⁴ − 1)", "tensor")
    add("n_kv_minus_1", with_(n_kv=M), "a key count of −1 (2⁶⁴ − 1)", "key")
    add("n_tensors_too_many", with_(n_tensors=2**40), "2⁴⁰ tensors in a small file", "tensor")
    add("n_kv_too_many", with_(n_kv=2**40), "2⁴⁰ keys in a small file", "key")

    # Keys and values.
    value_of_first = base.kvs[0][8 + len(first_key.encode()):]
    add("key_size_minus_1", with_(kvs=kv_changed(0, struct.pack("<Q", M) + first_key.encode() + value_of_first)),
        "the first key's length is −1", "key")
    add("key_size_past_end", with_(kvs=kv_changed(0, struct.pack("<Q", len(good) + 1) + first_key.encode() + value_of_first)),
        "the first key's length runs past the end of the file", "key")
    add("key_empty", with_(kvs=kv_changed(0, struct.pack("<Q", 0) + value_of_first)), "an empty key", "key")
    add("value_type_13", extra_kv(encode_string("test.bad_type") + struct.pack("<I", 13) + b"\0" * 8),
        "a value of type 13 (there are 13 types, 0–12)", "test.bad_type")
    add("value_type_minus_1", extra_kv(encode_string("test.bad_type") + struct.pack("<I", 2**32 - 1) + b"\0" * 8),
        "a value of type 2³² − 1", "test.bad_type")
    add("array_type_13", extra_kv(encode_string("test.bad_array") + struct.pack("<IIQ", ARRAY, 13, 1) + b"\0" * 8),
        "an array whose elements have type 13", "test.bad_array")
    add("array_of_arrays", extra_kv(encode_kv("test.nested", array(ARRAY, [(INT32, [1])]))),
        "an array of arrays (GGUF's readers take none)", "test.nested")
    add("array_count_huge", extra_kv(encode_string("test.huge") + struct.pack("<IIQ", ARRAY, UINT8, 2**62)),
        "a uint8 array of 2⁶² elements in a small file", "test.huge")
    add("string_array_count_huge",
        extra_kv(encode_string("test.huge") + struct.pack("<IIQ", ARRAY, STRING, 2**61)),
        "a string array of 2⁶¹ strings in a small file", "test.huge")
    add("string_size_huge", extra_kv(encode_string("test.long") + struct.pack("<IQ", STRING, 2**63)),
        "a string value of 2⁶³ bytes", "test.long")
    add("duplicate_key", extra_kv(base.kvs[0]), f"the key {first_key} twice", first_key)
    for name, value, what in [("alignment_13", u32(13), "general.alignment 13, not a power of two"),
                              ("alignment_0", u32(0), "general.alignment 0"),
                              ("alignment_wrong_type", string("32"), "general.alignment as a string, not a uint32")]:
        add(name, extra_kv(encode_kv("general.alignment", value)), what, "general.alignment")

    # Tensor infos.
    add("tensor_name_too_long", with_(infos=info_changed(0, name="n" * 64)),
        "a tensor name of 64 bytes (ggml's names hold 63 and a terminating zero)", "n" * 64)
    huge_name = struct.pack("<Q", 2**63) + encode_tensor_info(t0.name, t0.dims, t0.type_id, t0.offset)[8:]
    add("tensor_name_size_huge", with_(infos=[huge_name] + base.infos[1:]),
        "a tensor name's length of 2⁶³", "tensor")
    add("tensor_n_dims_5", with_(infos=info_changed(0, dims=list(t0.dims) + [1, 1, 1][:5 - len(t0.dims)])),
        "a tensor with 5 dimensions (ggml has 4)", t0.name)
    add("tensor_dim_negative", with_(infos=info_changed(0, dims=[t0.dims[0], -1] + list(t0.dims[2:]))),
        "a tensor size of −1", t0.name)
    add("tensor_shape_overflow", with_(infos=info_changed(0, dims=[2**32, 2**32, 4])),
        "sizes whose product, 2⁶⁶, overflows 64 bits", t0.name)
    add("tensor_bytes_overflow", with_(infos=info_changed(0, dims=[2**62, 1])),
        "2⁶² F32 elements: the element count fits 64 bits, the bytes do not", t0.name)
    add("tensor_type_bad", with_(infos=info_changed(0, type_id=9999)), "a tensor of ggml type 9999", t0.name)
    add("tensor_type_removed", with_(infos=info_changed(0, type_id=4)), "a tensor of ggml type 4 (Q4_2, removed)", t0.name)
    if wide is not None:
        w = base.infos[wide]
        iq_bytes = w.dims[0] // 256 * gq.UNSUPPORTED["IQ2_XXS"].bytes * int(np.prod(w.dims[1:]))
        iq = list(tens)
        iq[wide] = Tensor(tens[wide].name, "IQ2_XXS", w.dims, bytes(iq_bytes))
        add("tensor_type_unsupported", assemble(layout(meta, iq)),
            "a well-formed IQ2_XXS tensor: a GGUF type outside the contract's list", w.name, "IQ2_XXS")
    q = next(i for i, t in enumerate(base.infos) if gq.BY_ID[t.type_id].block > 1) if any(
        gq.BY_ID[t.type_id].block > 1 for t in base.infos) else None
    if q is not None:
        qi = base.infos[q]
        add("tensor_blocks_partial", with_(infos=info_changed(q, dims=[qi.dims[0] + 1] + list(qi.dims[1:]))),
            f"a {gq.BY_ID[qi.type_id].name} tensor whose rows are not whole blocks", qi.name)
    add("tensor_offset_unaligned", with_(infos=info_changed(1, offset=t1.offset + 1)),
        "a tensor's offset one byte past an aligned one", t1.name)
    last = len(base.infos) - 1
    add("tensor_offset_out_of_range", with_(infos=info_changed(last, offset=len(base.data) + base.alignment)),
        "a tensor that starts after the end of the data", base.infos[last].name)
    add("tensor_offset_huge", with_(infos=info_changed(last, offset=2**63)), "a tensor offset of 2⁶³", base.infos[last].name)
    add("tensor_offsets_overlap", with_(infos=info_changed(1, offset=t0.offset)),
        "two tensors at the same offset, overlapping", t1.name)
    add("duplicate_tensor_name", with_(infos=info_changed(1, name=t0.name)), f"the tensor name {t0.name} twice", t0.name)

    # The data.
    add("data_one_byte_short", good[:-1 - _trailing_padding(base, tens)], "the last tensor's data one byte short",
        base.infos[last].name)
    add("data_missing", assemble(base._replace(data=b""))[:len(good) - len(base.data)],
        "the file ends where the data should start", t0.name)
    return cases


def _trailing_padding(lay, tens):
    """Bytes of padding after the last tensor's data (the file ends with them)."""
    end = lay.infos[-1].offset + len(tens[-1].data)
    return len(lay.data) - end


def write_hostile(folder, cases=None):
    os.makedirs(folder, exist_ok=True)
    cases = cases if cases is not None else hostile_cases()
    listing = []
    for c in cases:
        path = os.path.join(folder, c.name + ".gguf")
        with open(path, "wb") as f:
            f.write(c.data)
        listing.append({"name": c.name, "file": c.name + ".gguf", "expect": c.expect, "what": c.what, "mentions": c.mentions})
    with open(os.path.join(folder, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(listing, f, indent=1, ensure_ascii=False)
    return listing


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "hostile":
        sys.exit("usage: gguf_writer.py hostile DIR")
    print(f"{len(write_hostile(sys.argv[2]))} files in {sys.argv[2]}")
