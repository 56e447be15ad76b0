"""The GGUF files bench/gguf_vs_llama_cpp.py and bench/gguf_memory.py measure: a SmolLM2-135M-shaped
random llama (30 layers, 9 query and 3 K/V heads, d_model 576, intermediate 1536, tied, 49 152
tokens) written by tests/model/gguf_fixture.py as F32, Q8_0 or Q4_K_M (K types fall back for
576-wide rows as llama.cpp's quantizer does), once into FOLDER ($MODEL_DIR, default
/tmp/attnlab-smollm2-135m-gguf) and reused while the files are there."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "model"))
import gguf_fixture as gf  # noqa: E402
import gguf_writer as gw  # noqa: E402

FOLDER = os.environ.get("MODEL_DIR", "/tmp/attnlab-smollm2-135m-gguf")
SIZES = dict(n_layer=30, n_head=9, n_kv_head=3, d_model=576, d_ff=1536, head_dim=64, n_ctx=2048, tied=True, rope_theta=100000.0)
VOCAB = 49152


def tokenizer():
    """The toy SentencePiece vocabulary grown to SmolLM2's 49 152 tokens (pieces no text makes)."""
    t = gf.toy_spm()
    extra = VOCAB - len(t.tokens)
    tokens = t.tokens + [f"\u2581w{i}" for i in range(extra)]
    return t._replace(tokens=tokens, types=t.types + [1] * extra, scores=t.scores + [-float(len(t.tokens) + i) for i in range(extra)])


def write_models(types):
    """{type: path} for each of `types` ("F32", "Q8_0", "Q4_K_M"), written when missing."""
    paths = {}
    tok = tokenizer()
    config = tensors = None
    for scheme in types:
        path = os.path.join(FOLDER, f"smollm2-135m-{scheme}.gguf")
        if not os.path.exists(path):
            if config is None:
                config, tensors = gf.random_model("llama", 135, tok, **SIZES)
            md, tens, _, _ = gf.gguf_model("llama", config, tensors, scheme, tok, name=f"SmolLM2-135M-shaped {scheme}")
            os.makedirs(FOLDER, exist_ok=True)
            gw.write_gguf(path, md, tens)
        paths[scheme] = path
    return paths
