"""Random models of every architecture as GGUF files, as llama.cpp's converter lays them out, each
with the same model as a Hugging Face folder; toy tokenizers of both GGUF kinds; and the
float64 PyTorch forward over the weights as stored (docs/MODELS.md, "GGUF files"). Shared by
tests/model/gguf_reference_test.py (against llama.cpp) and the GGUF reader's tests.

What llama.cpp expects, and this writes (from its converter, convert_hf_to_gguf.py, and loader):
- general.architecture `llama` (Llama and Mistral: llama.cpp has no `mistral` architecture, its
  converter writes Mistral as `llama` and drops the sliding window), `qwen2`, `qwen3`, `gpt2`;
  `{arch}.context_length`, `.embedding_length`, `.block_count`, `.feed_forward_length`,
  `.attention.head_count`, `.attention.head_count_kv`, `.attention.layer_norm_rms_epsilon`
  (`.layer_norm_epsilon` for gpt2), `.rope.freq_base`, `.rope.dimension_count` (llama),
  `.attention.key_length`/`.value_length` when the head width is not d_model / heads, `.vocab_size`,
  `.rope.scaling.type` and `.rope.scaling.factor` for linear scaling; llama3 scaling is a
  `rope_freqs.weight` tensor of per-frequency divisors instead.
- tensors `token_embd`, `output_norm`, `output` (absent when tied), and per layer `blk.N.`
  `attn_norm`, `attn_q`, `attn_k`, `attn_v`, `attn_output`, `ffn_norm`, `ffn_gate`, `ffn_up`,
  `ffn_down` (`.weight`, `.bias` where the family has them), qwen3's `attn_q_norm`/`attn_k_norm`;
  gpt2: `position_embd`, the fused `attn_qkv`, `output_norm.bias`, `ffn_up`/`ffn_down` with biases.
  Linear weights are [out, in] as numpy sees them (GGUF dims [in, out]); gpt2's Conv1D [in, out]
  are transposed.
- `llama`'s q and k rows permuted within each head for GGML's rotation of neighbouring pairs: row
  i·2 + j of a head holds the Hugging Face row j·d/2 + i (permute_rows); the reader must undo it.
- 1-D tensors (norms, biases, rope_freqs) stay F32, as llama.cpp's quantizer leaves them;
  position_embd too. A "Q4_K_M" scheme mixes as llama.cpp's does: Q6_K for `output` and for
  attn_v/ffn_down in the first and last eighth of the layers and every third one between, Q4_K
  for the rest.
- the tokenizer in the metadata: `tokenizer.ggml.model` "gpt2" (tokens as byte-level strings,
  token_type, merges "a b", `tokenizer.ggml.pre`) or "llama" (SentencePiece pieces, scores,
  token_type with byte tokens <0xXX>), bos/eos ids and add_bos_token.

API: random_model(arch, seed, tokenizer, **sizes) → (hf_config, hf_tensors);
gguf_model(arch, hf_config, hf_tensors, scheme, tokenizer, name, seed, extra_metadata) → (metadata,
tensors, stored, types): `stored` the Hugging Face tensors the file holds (dequantized,
un-permuted), `types` each one's ggml type;
write_model_pair(folder, arch, seed, scheme, tokenizer=None, version=3, extra_metadata=(), **sizes)
→ ModelPair (gguf: the file; hf: the Hugging Face folder holding `stored` as F32; config, stored,
types, tokenizer, metadata); toy_bpe(pre), toy_spm(), tokenizer_metadata(tok),
vocab_only_metadata(tok), tokenizer_from_json(tokenizer.json, tokenizer_config.json, pre) for real
files, write_hf_tokenizer(folder, tok); reference(pair, ids, errors) → logits, sigma, f32_bound;
reference_logits(pair, ids) → next-token logits (float64) from the PyTorch forward."""
import json
import math
import os
from collections import namedtuple

import numpy as np

import family_fixture as ff
import gguf_quants as gq
import gguf_writer as gw
import gpt2_fixture as fx

ARCHS = ["llama", "mistral", "qwen2", "qwen3", "gpt2"]
SCHEMES = ["F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "Q4_K_M"]
# llama.cpp's file types (general.file_type, enum llama_ftype): the type most tensors have.
FILE_TYPES = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q8_0": 7, "Q5_0": 8, "Q5_1": 9, "Q2_K": 10, "Q3_K": 12,
              "Q4_K": 14, "Q4_K_M": 15, "Q5_K": 16, "Q6_K": 18, "BF16": 32}
QUANTIZABLE = {"Q8_0", "Q4_0", "Q4_K", "Q6_K", "F16", "BF16", "F32"}  # the others are random blocks

Tokenizer = namedtuple("Tokenizer", "kind pre tokens types scores merges bos eos unk add_bos hf")
ModelPair = namedtuple("ModelPair", "arch scheme gguf hf config stored types tokenizer metadata")

SPM = "\u2581"  # SentencePiece's visible space


# ---- tokenizers ---------------------------------------------------------------------------------

def toy_bpe(pre="gpt-2"):
    """gpt2_fixture's small byte-level BPE with <|endoftext|> as BOS and EOS (not added: GPT-2 and
    Qwen add none), under llama.cpp's pre-tokenizer `pre` ("gpt-2", "qwen2" or "llama-bpe")."""
    vocab, merges = fx.small_tokenizer()
    tokens = sorted(vocab, key=vocab.get)
    eot = vocab["<|endoftext|>"]
    types = [3 if i == eot else 1 for i in range(len(tokens))]
    return Tokenizer("gpt2", pre, tokens, types, None, [f"{a} {b}" for a, b in merges], eot, eot, None, False, None)


def _train_pieces(words, merges):
    """Character-level BPE over whitespace-split words (SentencePiece never merges across them)."""
    counts = {}
    for w in words:
        counts[tuple(w)] = counts.get(tuple(w), 0) + 1
    return [a + b for a, b in fx.merge_pairs(counts, merges)]


def toy_spm(merges=120):
    """A SentencePiece BPE vocabulary as Llama 2's is laid out: <unk>, <s>, </s>, the 256 byte tokens
    <0x00>…<0xFF>, then the pieces (the corpus's characters, then the merged ones), "▁" for a space.
    A piece's score is minus its id, so llama.cpp's SentencePiece tokenizer, which merges the
    best-scoring pair first, merges as the Hugging Face tokenizer.json's ranked merges do."""
    text = SPM + fx.CORPUS.strip().replace(" ", SPM)
    words = [SPM + w for w in text.split(SPM) if w]
    chars = sorted(set("".join(words)))
    pieces = chars + [p for p in _train_pieces(words, merges) if p not in chars]
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + pieces
    types = [2, 3, 3] + [6] * 256 + [1] * len(pieces)
    scores = [0.0] * 259 + [-float(i) for i in range(259, len(tokens))]
    return Tokenizer("llama", None, tokens, types, scores, None, 1, 2, 0, True, None)


def spm_merges(tokens, types):
    """Every split of every normal piece into two pieces, ordered as Hugging Face's converter from
    SentencePiece orders them (by the piece's score, here its id; then by the two halves' ids)."""
    ids = {t: i for i, t in enumerate(tokens) if types[i] == 1}
    out = []
    for t, i in sorted(ids.items(), key=lambda kv: kv[1]):
        local = [(ids[t[:k]], ids[t[k:]]) for k in range(1, len(t)) if t[:k] in ids and t[k:] in ids]
        out += [f"{tokens[a]} {tokens[b]}" for a, b in sorted(local)]
    return out


def tokenizer_metadata(tok):
    """The tokenizer.ggml.* keys llama.cpp reads."""
    md = [("tokenizer.ggml.model", tok.kind)]
    if tok.pre:
        md.append(("tokenizer.ggml.pre", tok.pre))
    md += [("tokenizer.ggml.tokens", gw.array(gw.STRING, tok.tokens)), ("tokenizer.ggml.token_type", gw.array(gw.INT32, tok.types))]
    if tok.scores is not None:
        md.append(("tokenizer.ggml.scores", gw.array(gw.FLOAT32, tok.scores)))
    if tok.merges is not None:
        md.append(("tokenizer.ggml.merges", gw.array(gw.STRING, tok.merges)))
    md += [("tokenizer.ggml.bos_token_id", gw.u32(tok.bos)), ("tokenizer.ggml.eos_token_id", gw.u32(tok.eos))]
    if tok.unk is not None:
        md.append(("tokenizer.ggml.unknown_token_id", gw.u32(tok.unk)))
    md += [("tokenizer.ggml.add_bos_token", gw.boolean(tok.add_bos)), ("tokenizer.ggml.add_eos_token", gw.boolean(False))]
    return md


def vocab_only_metadata(tok, arch="llama", name="tokenizer"):
    """A GGUF of a tokenizer alone (for llama.cpp's vocab_only loading): the architecture's sizes,
    which node-llama-cpp's own probe of the file reads, and the tokenizer."""
    A = arch + "."
    return [("general.architecture", arch), ("general.name", name), (A + "context_length", gw.u32(64)),
            (A + "embedding_length", gw.u32(64)), (A + "block_count", gw.u32(1)), (A + "feed_forward_length", gw.u32(64)),
            (A + "attention.head_count", gw.u32(1)), (A + "attention.layer_norm_rms_epsilon", gw.f32(1e-6))] + tokenizer_metadata(tok)


def tokenizer_from_json(tok_json, config_json, pre=None):
    """A real tokenizer.json (with its tokenizer_config.json) as GGUF metadata would hold it: byte-level
    BPE files as "gpt2" under llama.cpp's pre-tokenizer `pre`; SentencePiece-style BPE with byte
    fallback as "llama", each piece's score minus the rank of the first merge that makes it (what
    SentencePiece's own scores order the merges by). Added tokens: special ones CONTROL, the
    others USER_DEFINED, as the converter marks them; add_bos from the post-processor's template."""
    model = tok_json["model"]
    vocab = dict(model["vocab"])
    for a in tok_json["added_tokens"]:
        vocab[a["content"]] = a["id"]
    n = max(vocab.values()) + 1
    tokens = [f"[PAD{i}]" for i in range(n)]
    for t, i in vocab.items():
        tokens[i] = t
    added = {a["id"]: a for a in tok_json["added_tokens"]}
    merges = [m if isinstance(m, str) else f"{m[0]} {m[1]}" for m in model["merges"]]
    template = json.dumps(tok_json.get("post_processor"))
    bos_name = config_json.get("bos_token")
    bos_name = bos_name.get("content") if isinstance(bos_name, dict) else bos_name
    eos_name = config_json.get("eos_token")
    eos_name = eos_name.get("content") if isinstance(eos_name, dict) else eos_name
    bos = vocab.get(bos_name, vocab.get(eos_name, 0))
    eos = vocab.get(eos_name, bos)
    add_bos = bos_name is not None and f'"SpecialToken": {{"id": "{bos_name}"' in template
    if model.get("byte_fallback"):
        first = {}
        for r, m in enumerate(merges):
            first.setdefault(m.replace(" ", "", 1), r)
        types, scores = [], []
        for i, t in enumerate(tokens):
            if i in added:
                types.append(2 if t == model.get("unk_token") else 3 if added[i]["special"] else 4)
            elif len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
                types.append(6)
            else:
                types.append(1)
            scores.append(-float(first.get(t, 0)) if types[-1] == 1 else 0.0)
        unk = vocab.get(model.get("unk_token"))
        return Tokenizer("llama", None, tokens, types, scores, None, bos, eos, unk, add_bos, None)
    types = [(3 if added[i]["special"] else 4) if i in added else 1 for i in range(n)]
    return Tokenizer("gpt2", pre, tokens, types, None, merges, bos, eos, None, add_bos, None)


def _byte_level_bpe_json(tok, pre):
    """tokenizer.json for a toy byte-level BPE, with the pre-tokenizer of the files llama.cpp's `pre`
    stands for: GPT-2's (ByteLevel's own regex), Qwen2's (NFC, then a Split on its regex), or
    Llama 3's (a Split on its regex, and merges ignored for whole words)."""
    vocab = {t: i for i, t in enumerate(tok.tokens)}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": pre == "gpt-2"}
    words = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|"
    rest = r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
    regex = {"qwen2": words + r"\p{N}" + rest, "llama-bpe": words + r"\p{N}{1,3}" + rest}
    pre_tok = byte_level if pre == "gpt-2" else {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": regex[pre]}, "behavior": "Isolated", "invert": False}, byte_level]}
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
             for i, t in enumerate(tok.tokens) if tok.types[i] == 3]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "NFC"} if pre == "qwen2" else None, "pre_tokenizer": pre_tok, "post_processor": byte_level,
            "decoder": byte_level,
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "", "end_of_word_suffix": "",
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": pre == "llama-bpe", "vocab": vocab,
                      "merges": tok.merges}}


def _spm_json(tok):
    """tokenizer.json for a toy SentencePiece vocabulary, as Llama 2's: prepend "▁" and turn spaces
    into it, BPE with byte fallback over every split of every piece, <s> first."""
    vocab = {t: i for i, t in enumerate(tok.tokens)}
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
             for i, t in enumerate(tok.tokens) if tok.types[i] in (2, 3)]
    bos = tok.tokens[tok.bos]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": SPM},
                                                               {"type": "Replace", "pattern": {"String": " "}, "content": SPM}]},
            "pre_tokenizer": None,
            "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": bos, "type_id": 0}},
                                                                         {"Sequence": {"id": "A", "type_id": 0}}],
                               "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                        {"SpecialToken": {"id": bos, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
                               "special_tokens": {bos: {"id": bos, "ids": [tok.bos], "tokens": [bos]}}},
            "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": SPM}, "content": " "},
                                                         {"type": "ByteFallback"}, {"type": "Fuse"},
                                                         {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": tok.tokens[tok.unk], "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "vocab": vocab,
                      "merges": spm_merges(tok.tokens, tok.types)}}


def write_hf_tokenizer(folder, tok):
    """The Hugging Face files of a toy tokenizer: tokenizer.json and tokenizer_config.json (and, for
    the GPT-2 pre-tokenizer, GPT-2's vocab.json and merges.txt too)."""
    os.makedirs(folder, exist_ok=True)
    if tok.kind == "llama":
        tj = _spm_json(tok)
        cfg = {"add_bos_token": True, "add_eos_token": False, "bos_token": tok.tokens[tok.bos], "eos_token": tok.tokens[tok.eos],
               "unk_token": tok.tokens[tok.unk], "legacy": True, "tokenizer_class": "LlamaTokenizer"}
    else:
        tj = _byte_level_bpe_json(tok, tok.pre)
        cfg = {"add_bos_token": False, "bos_token": None, "eos_token": tok.tokens[tok.eos], "tokenizer_class": "PreTrainedTokenizerFast"}
        if tok.pre == "gpt-2":
            with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
                json.dump({t: i for i, t in enumerate(tok.tokens)}, f, ensure_ascii=False)
            with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
                f.write("#version: 0.2\n" + "".join(m + "\n" for m in tok.merges))
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False)
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, ensure_ascii=False)


# ---- models ---------------------------------------------------------------------------------------

def default_tokenizer(arch):
    """Llama and Mistral files carry SentencePiece vocabularies, Qwen's and GPT-2's byte-level ones."""
    return toy_spm() if arch in ("llama", "mistral") else toy_bpe("qwen2" if arch.startswith("qwen") else "gpt-2")


def random_model(arch, seed, tokenizer, n_layer=2, n_head=4, n_kv_head=2, d_model=256, d_ff=512, head_dim=None, n_ctx=64,
                 tied=False, attention_bias=False, rope_theta=10000.0, rope_scaling=None):
    """(config, tensors) of a random model in the Hugging Face layout (family_fixture's and
    gpt2_fixture's generators) whose vocabulary is the tokenizer's. d_model 256 lets every tensor
    be any type (the K types quantize rows in 256-blocks). Mistral gets a sliding window as long
    as its context: a window the prompts never reach, since llama.cpp's `llama` ignores it."""
    vocab = len(tokenizer.tokens)
    if arch == "gpt2":
        v = {t: i for i, t in enumerate(tokenizer.tokens)}
        config, t = fx.random_gpt2(seed, n_layer=n_layer, n_head=n_head, n_embd=d_model, n_positions=n_ctx, vocab=v,
                                   weight_std=0.25 / math.sqrt(d_model / 32))
        # random_gpt2's sizes are for 32 wide: keep the tied output's logits of a few units at d_model.
        t["wte.weight"] = (t["wte.weight"] * math.sqrt(32 / d_model)).astype(np.float32)
        return config, t
    config, t = ff.random_family(seed, family=arch, n_layer=n_layer, n_head=n_head, n_kv_head=n_kv_head, d_model=d_model,
                                 head_dim=head_dim, d_ff=d_ff, vocab=vocab, n_ctx=n_ctx, tied=tied, attention_bias=attention_bias,
                                 rope_theta=rope_theta, rope_scaling=rope_scaling,
                                 sliding_window=n_ctx if arch == "mistral" else None)
    # random_family scales q/k/v for the width but not the rest; keep every product's output near 1.
    scale = math.sqrt(48 / d_model)
    for name in t:
        if any(s in name for s in ("o_proj", "mlp.", "lm_head")):
            t[name] = (t[name] * scale).astype(np.float32)
    return config, t


def permute_rows(w, heads):
    """llama.cpp's converter's permutation of a q or k projection (rows heads·d, any trailing shape):
    within each head, row i·2 + j takes the Hugging Face row j·d/2 + i, so GGML's rotation of
    neighbouring pairs (x[2i], x[2i+1]) turns the pairs Hugging Face's rotate-half turns."""
    d = w.shape[0] // heads
    return w.reshape(heads, 2, d // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute_rows(w, heads):
    d = w.shape[0] // heads
    return w.reshape(heads, d // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def _more_bits(layer, n_layer):
    """llama.cpp's use_more_bits: the first and last eighth of the layers, and every third between."""
    return layer < n_layer // 8 or layer >= 7 * n_layer // 8 or (layer - n_layer // 8) % 3 == 2


# What llama.cpp's quantizer writes instead of a K type for rows that are not whole 256-blocks
# (SmolLM2's 576, narrow heads' 128): Q4_K → Q5_0, Q5_K → Q5_1, Q6_K → Q8_0; Q2_K and Q3_K go to
# IQ4_NL there, a type outside the contract, so Q4_0 here.
K_FALLBACK = {"Q2_K": "Q4_0", "Q3_K": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}


def type_for(scheme, gguf_name, shape, n_layer):
    """The ggml type a tensor gets under `scheme` (shape as numpy sees it)."""
    if len(shape) == 1 or gguf_name.startswith("position_embd") or gguf_name.startswith("rope_freqs"):
        return "F32"
    t = scheme
    if scheme == "Q4_K_M":
        layer = int(gguf_name.split(".")[1]) if gguf_name.startswith("blk.") else -1
        more = layer >= 0 and (".attn_v." in gguf_name or ".ffn_down." in gguf_name) and _more_bits(layer, n_layer)
        t = "Q6_K" if gguf_name == "output.weight" or more else "Q4_K"
    return K_FALLBACK[t] if t in K_FALLBACK and shape[-1] % 256 else t


def _encode(type_name, arr, rng):
    """The tensor's bytes: quantized from its values, or random blocks (of the values' spread) for the
    types this tests only dequantizes."""
    if type_name in QUANTIZABLE:
        return gq.quantize(type_name, arr)
    t = gq.TYPES[type_name]
    rows, width = (1, arr.size) if arr.ndim == 1 else (int(np.prod(arr.shape[:-1])), arr.shape[-1])
    return gq.random_blocks(type_name, rows * width // t.block, rng, std=float(arr.std()))


def tensor_map(arch, config):
    """[(hf_name, gguf_name, transform)]: transform is None, ("permute", heads) or "transpose"."""
    out = []
    if arch == "gpt2":
        out += [("wte.weight", "token_embd.weight", None), ("wpe.weight", "position_embd.weight", None)]
        for l in range(config["n_layer"]):
            h, b = f"h.{l}.", f"blk.{l}."
            out += [(h + "ln_1.weight", b + "attn_norm.weight", None), (h + "ln_1.bias", b + "attn_norm.bias", None),
                    (h + "attn.c_attn.weight", b + "attn_qkv.weight", "transpose"), (h + "attn.c_attn.bias", b + "attn_qkv.bias", None),
                    (h + "attn.c_proj.weight", b + "attn_output.weight", "transpose"),
                    (h + "attn.c_proj.bias", b + "attn_output.bias", None),
                    (h + "ln_2.weight", b + "ffn_norm.weight", None), (h + "ln_2.bias", b + "ffn_norm.bias", None),
                    (h + "mlp.c_fc.weight", b + "ffn_up.weight", "transpose"), (h + "mlp.c_fc.bias", b + "ffn_up.bias", None),
                    (h + "mlp.c_proj.weight", b + "ffn_down.weight", "transpose"), (h + "mlp.c_proj.bias", b + "ffn_down.bias", None)]
        return out + [("ln_f.weight", "output_norm.weight", None), ("ln_f.bias", "output_norm.bias", None)]
    H, Hkv = config["num_attention_heads"], config["num_key_value_heads"]
    permute = config["model_type"] in ("llama", "mistral")
    out.append(("model.embed_tokens.weight", "token_embd.weight", None))
    for l in range(config["num_hidden_layers"]):
        p, b = f"model.layers.{l}.", f"blk.{l}."
        out += [(p + "input_layernorm.weight", b + "attn_norm.weight", None)]
        for hf, gg, heads in (("q_proj", "attn_q", H), ("k_proj", "attn_k", Hkv), ("v_proj", "attn_v", None),
                              ("o_proj", "attn_output", None)):
            for part in ("weight", "bias"):
                out.append((p + f"self_attn.{hf}.{part}", b + f"{gg}.{part}", ("permute", heads) if permute and heads else None))
        out += [(p + "self_attn.q_norm.weight", b + "attn_q_norm.weight", None),
                (p + "self_attn.k_norm.weight", b + "attn_k_norm.weight", None),
                (p + "post_attention_layernorm.weight", b + "ffn_norm.weight", None)]
        for hf, gg in (("gate_proj", "ffn_gate"), ("up_proj", "ffn_up"), ("down_proj", "ffn_down")):
            out += [(p + f"mlp.{hf}.weight", b + f"{gg}.weight", None), (p + f"mlp.{hf}.bias", b + f"{gg}.bias", None)]
    return out + [("model.norm.weight", "output_norm.weight", None), ("lm_head.weight", "output.weight", None)]


def llama3_rope_divisors(config, dh):
    """The rope_freqs tensor llama.cpp's converter writes for llama3 scaling: f_i / f_i' per frequency."""
    theta = config.get("rope_theta", 10000.0)
    base = np.array([theta ** (-2.0 * i / dh) for i in range(dh // 2)])
    return (base / ff.inverse_frequencies(config, dh)).astype(np.float32)


def gguf_model(arch, config, tensors, scheme, tokenizer, name="attnlab test model", seed=0, extra_metadata=()):
    """(metadata, [gguf Tensor], stored, types): the GGUF file of a Hugging Face model (see the
    module's docstring), the Hugging Face tensors it holds (dequantized, un-permuted) and each one's
    ggml type. `extra_metadata` is appended (e.g. `llama.attention.sliding_window`, which the
    converter never writes and llama.cpp's `llama` ignores)."""
    rng = np.random.default_rng(seed + 1000)
    file_arch = "llama" if arch == "mistral" else arch
    A = file_arch + "."
    md = [("general.architecture", file_arch), ("general.name", name), ("general.file_type", gw.u32(FILE_TYPES[scheme]))]
    if scheme not in ("F32", "F16", "BF16"):
        md.append(("general.quantization_version", gw.u32(2)))
    if arch == "gpt2":
        d = config["n_embd"]
        md += [(A + "context_length", gw.u32(config["n_positions"])), (A + "embedding_length", gw.u32(d)),
               (A + "feed_forward_length", gw.u32(4 * d)), (A + "block_count", gw.u32(config["n_layer"])),
               (A + "attention.head_count", gw.u32(config["n_head"])),
               (A + "attention.layer_norm_epsilon", gw.f32(config["layer_norm_epsilon"]))]
        n_layer = config["n_layer"]
    else:
        d, H = config["hidden_size"], config["num_attention_heads"]
        dh = config.get("head_dim") or d // H
        md += [(A + "block_count", gw.u32(config["num_hidden_layers"])), (A + "context_length", gw.u32(config["max_position_embeddings"])),
               (A + "embedding_length", gw.u32(d)), (A + "feed_forward_length", gw.u32(config["intermediate_size"])),
               (A + "attention.head_count", gw.u32(H)), (A + "attention.head_count_kv", gw.u32(config["num_key_value_heads"])),
               (A + "rope.freq_base", gw.f32(config.get("rope_theta", 10000.0))),
               (A + "attention.layer_norm_rms_epsilon", gw.f32(config["rms_norm_eps"]))]
        if dh != d // H:
            md += [(A + "attention.key_length", gw.u32(dh)), (A + "attention.value_length", gw.u32(dh))]
        if file_arch == "llama":
            md += [(A + "vocab_size", gw.u32(config["vocab_size"])), (A + "rope.dimension_count", gw.u32(dh))]
        s = config.get("rope_scaling")
        if s and s.get("rope_type", s.get("type")) == "linear":
            md += [(A + "rope.scaling.type", "linear"), (A + "rope.scaling.factor", gw.f32(s["factor"]))]
        n_layer = config["num_hidden_layers"]
    md += tokenizer_metadata(tokenizer) + list(extra_metadata)

    out, stored, types = [], {}, {}
    for hf, gg, transform in tensor_map(arch, config):
        if hf not in tensors:
            continue
        arr = np.asarray(tensors[hf], np.float32)
        if transform == "transpose":
            arr = np.ascontiguousarray(arr.T)
        elif transform:
            arr = permute_rows(arr, transform[1])
        ty = type_for(scheme, gg, arr.shape, n_layer)
        t = gw.Tensor(gg, ty, list(reversed(arr.shape)), _encode(ty, arr, rng))
        out.append(t)
        back = gw.tensor_values(t)
        if transform == "transpose":
            back = np.ascontiguousarray(back.T)
        elif transform:
            back = unpermute_rows(back, transform[1])
        stored[hf] = back
        types[hf] = ty
    s = config.get("rope_scaling")
    if arch != "gpt2" and s and s.get("rope_type", s.get("type")) == "llama3":
        dh = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
        out.insert(1, gw.tensor("rope_freqs.weight", llama3_rope_divisors(config, dh)))
    return md, out, stored, types


def write_hf_model(folder, arch, config, stored, tokenizer):
    """The same model as a Hugging Face folder: config.json, model.safetensors (F32, the GGUF's
    values), the tokenizer's files."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    fx.write_safetensors(os.path.join(folder, "model.safetensors"), stored, metadata={"format": "pt"})
    write_hf_tokenizer(folder, tokenizer)


def write_model_pair(folder, arch, seed, scheme, tokenizer=None, version=3, extra_metadata=(), **sizes):
    """folder/model.gguf and folder/hf/, the same random model twice (sizes: random_model's). Returns
    a ModelPair."""
    tokenizer = tokenizer or default_tokenizer(arch)
    config, tensors = random_model(arch, seed, tokenizer, **sizes)
    md, tens, stored, types = gguf_model(arch, config, tensors, scheme, tokenizer, name=f"random {arch} {scheme}", seed=seed,
                                         extra_metadata=extra_metadata)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.gguf")
    gw.write_gguf(path, md, tens, version=version)
    write_hf_model(os.path.join(folder, "hf"), arch, config, stored, tokenizer)
    return ModelPair(arch, scheme, path, os.path.join(folder, "hf"), config, stored, types, tokenizer, md)


# ---- the reference ------------------------------------------------------------------------------------

# The type llama.cpp's CPU backend converts a product's activations to before the dot products, by the
# weight's type (ggml-cpu's type traits, vec_dot_type): none for F32.
VEC_DOT = {"F32": None, "F16": "F16", "BF16": "BF16", "Q4_0": "Q8_0", "Q5_0": "Q8_0", "Q8_0": "Q8_0", "Q4_1": "Q8_1",
           "Q5_1": "Q8_1", "Q2_K": "Q8_K", "Q3_K": "Q8_K", "Q4_K": "Q8_K", "Q5_K": "Q8_K", "Q6_K": "Q8_K"}
# Products that read the same activations (so llama.cpp rounds them once, the same way, for each).
_SHARED_INPUT = [(".self_attn.q_proj.", "attn_in"), (".self_attn.k_proj.", "attn_in"), (".self_attn.v_proj.", "attn_in"),
                 (".mlp.gate_proj.", "mlp_in"), (".mlp.up_proj.", "mlp_in")]



def write_planned_pairs(plan, folder, seed):
    """Each (name, arch, scheme, options) of `plan` written as write_model_pair writes it, into
    folder/NAME with seed + its index (`options` may name the GGUF `version` and the `tokenizer`
    beside the sizes): yields (name, arch, scheme, pair) one model at a time."""
    for i, (name, arch, scheme, options) in enumerate(plan):
        options = dict(options)
        version = options.pop("version", 3)
        tokenizer = options.pop("tokenizer", None)
        yield name, arch, scheme, write_model_pair(os.path.join(folder, name), arch, seed=seed + i, scheme=scheme, tokenizer=tokenizer,
                                                   version=version, **options)

def activation_rounding(vec_dot, x):
    """(e, delta) for activations x (… × width) converted to `vec_dot`: e the largest error of each
    element's own rounding, delta the largest relative error shared by a block through its scale.
    Q8_0/Q8_1: codes round(x·127/amax) over 32-blocks times the float16 of amax/127: half a step,
    and the float16 scale's 2⁻¹¹; Q8_K: 256-blocks with a float32 scale (2⁻²⁴); F16 and BF16:
    each element rounded to nearest, 2⁻¹¹ and 2⁻⁸ of itself (and half the smallest subnormal)."""
    x = np.asarray(x, np.float64)
    if vec_dot == "F16":
        return np.abs(x) * 2.0 ** -11 + 2.0 ** -25, 0.0, 1
    if vec_dot == "BF16":
        return np.abs(x) * 2.0 ** -8 + 2.0 ** -134, 0.0, 1
    block = 256 if vec_dot == "Q8_K" else 32
    xb = np.abs(x).reshape(*x.shape[:-1], x.shape[-1] // block, block)
    step = xb.max(-1, keepdims=True) / 127
    e = np.broadcast_to(step / 2, xb.shape).reshape(x.shape)
    return e, (2.0 ** -24 if vec_dot == "Q8_K" else 2.0 ** -11), block


def gelu_table_error(pre, out):
    """llama.cpp's CPU GELU (GGML_GELU_FP16): the tanh GELU of x rounded to float16, read from a
    table of float16 results (x ≤ −10 gives 0, x ≥ 10 gives x). Largest error per element: the
    input's rounding (2⁻¹¹|x|, 2⁻²⁵ below float16's normal range) times GELU's steepest slope (1.13)
    and the output's rounding (2⁻¹¹|g| + 2⁻²⁵)."""
    pre, out = np.abs(np.asarray(pre, np.float64)), np.abs(np.asarray(out, np.float64))
    e = 1.13 * (pre * 2.0 ** -11 + 2.0 ** -25) + out * 2.0 ** -11 + 2.0 ** -25
    return np.where(pre >= 10, 0.0, e)


Reference = namedtuple("Reference", "logits sigma f32_bound")


def reference(pair, ids, errors=False):
    """The float64 next-token logits after `ids` (family_fixture's and gpt2_fixture's decoders over
    the stored weights). With errors=True also `sigma` per logit: the spread of llama.cpp's CPU
    result around these from the roundings it makes on purpose, not float32's (activations converted
    for quantized, F16 and BF16 products; GPT-2's float16 GELU table). Each rounding error is
    modelled as independent and uniform within its largest value e (variance e²/3), the scale
    roundings as one relative error per block; to first order a logit moves by Σ J·error, J its
    derivative with respect to each product's input (autograd), so sigma² = Σ J²e²/3 over the
    elements plus Σ (Σ_block J·x)²·delta²/3 over the blocks. And `f32_bound`: model_checks.bound for
    float32 accumulation over the widest product, the layers and the logits' size."""
    import torch
    from model_checks import bound
    config, stored, types = pair.config, pair.stored, pair.types
    gpt2 = config.get("model_type") == "gpt2"
    out_name = "wte.weight" if gpt2 else ("lm_head.weight" if "lm_head.weight" in stored else "model.embed_tokens.weight")
    inputs, sites, captured = {}, {}, {}

    def product(x, name):
        inputs[name] = x.detach()
        gelu = gpt2 and name.endswith("mlp.c_proj.weight")
        vec_dot = VEC_DOT[types[name]]
        if errors and (vec_dot or gelu):
            group = next((name[:name.index(a)] + "." + g for a, g in _SHARED_INPUT if a in name), name)
            key = (group, vec_dot)
            if key not in sites:
                sites[key] = (torch.zeros_like(x, requires_grad=True), name, vec_dot, gelu)
            x = x + sites[key][0]
        if name == out_name:
            captured["last"] = x
        return x

    if gpt2:
        fx.reference_forward(config, stored, ids, product=product)
    else:
        ff.reference_forward(config, stored, ids, product=product)
    W = torch.from_numpy(np.asarray(stored[out_name], np.float64))
    logits = captured["last"] @ W.T
    values = logits.detach().numpy()
    if gpt2:
        width, layers = 4 * config["n_embd"], config["n_layer"]
    else:
        dh = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
        width = max(config["hidden_size"], config["intermediate_size"], config["num_attention_heads"] * dh)
        layers = config["num_hidden_layers"]
    f32 = bound(width, layers, float(np.abs(values).max()))
    if not errors:
        return Reference(values, None, f32)
    # The logits are W·last, so a logit's derivative is its row of W times G = ∂last/∂(site): one
    # backward pass per element of `last` (d_model of them) rather than per logit, and
    # sigma_k² = w_k·C·w_k with C = Σ G·diag(e²/3)·Gᵀ + Σ_blocks (G·x_block)(G·x_block)ᵀ·delta²/3.
    last = captured["last"]
    C = np.zeros((last.shape[-1], last.shape[-1]))
    if sites:
        keys = list(sites)
        grads = torch.autograd.grad(last, [sites[k][0] for k in keys], grad_outputs=torch.eye(last.shape[-1], dtype=last.dtype),
                                    is_grads_batched=True)
        for key, G in zip(keys, grads):
            _, name, vec_dot, gelu = sites[key]
            G = G.numpy()
            x = inputs[name].numpy()
            e2 = np.zeros_like(x)
            if vec_dot:
                e, delta, block = activation_rounding(vec_dot, x)
                e2 += e * e
                gb = (G * x[None]).reshape(G.shape[0], -1, block).sum(-1)
                C += gb @ gb.T * delta ** 2 / 3
            if gelu:
                fc = name.replace("mlp.c_proj.weight", "mlp.c_fc.")
                pre = inputs[fc + "weight"].numpy() @ stored[fc + "weight"].astype(np.float64) + stored[fc + "bias"]
                e2 += gelu_table_error(pre, x) ** 2
            Gf = G.reshape(G.shape[0], -1)
            C += (Gf * (e2.reshape(1, -1) / 3)) @ Gf.T
    Wn = W.numpy()
    var = np.maximum(((Wn @ C) * Wn).sum(1), 0.0)
    return Reference(values, np.sqrt(var), f32)


def reference_logits(pair, ids):
    """The float64 next-token logits after `ids`."""
    return reference(pair, ids).logits
