"""The monkey's `family` scenario: a small random model of one of the Llama-style families, with
rotary positions, grouped-query heads and a byte-level tokenizer.json, so that the Model window's
head grid, its RoPE switch, head links and generation all have text to work on. The seed picks the
family: llama, mistral (a sliding window shorter than the context), qwen2 or qwen3.
Usage: family_model.py FOLDER SEED   (needs numpy)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model"))
import family_fixture as ff  # noqa: E402
import gpt2_fixture as fx  # noqa: E402


def main():
    folder, seed = sys.argv[1], int(sys.argv[2])
    family = ("llama", "mistral", "qwen2", "qwen3")[seed % 4]
    vocab, merges = fx.small_tokenizer(merges=120)
    config, tensors = ff.random_family(seed, family=family, n_layer=2, n_head=6, n_kv_head=2, d_model=48, d_ff=80,
                                       vocab=len(vocab), n_ctx=128, sliding_window=16 if family == "mistral" else None)
    ff.write_family_model(folder, config, tensors)
    ff.write_tokenizer_json(folder, vocab, merges)
    print(family)


if __name__ == "__main__":
    main()
