"""Peak memory of `attnlab model` on GGUF files against the file's size (issue 72, item 2;
docs/PERFORMANCE.md, "GGUF files: memory"): the SmolLM2-135M-shaped model of bench/smollm2_gguf.py
as F32, Q8_0 and Q4_K_M, one fresh process per run (`model FILE --ids … --top 1 --format text`, so
the printout is small; every head's weights are still kept, as the app keeps them), its peak
resident memory from the kernel (wait4's ru_maxrss), for a 1-token and an N-token prompt. The
program's own footprint R0 is `attnlab presets`'s peak (code, libraries, OpenMP and OpenBLAS); the
activations A(n) are counted from the model's sizes (the formula in docs/PERFORMANCE.md). Prints
per file: size S, peak P, P − R0, A(n), and P / (S + A(n)) and (P − R0 − A(n)) / S.
Usage: bench/gguf_memory.py [ATTNLAB] [N] [TYPES]  (defaults build/app/attnlab, 256, F32,Q8_0,Q4_K_M)"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
from smollm2_gguf import SIZES, VOCAB, write_models  # noqa: E402

ATTNLAB = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "app", "attnlab"))
N = int(sys.argv[2]) if len(sys.argv) > 2 else 256
TYPES = (sys.argv[3] if len(sys.argv) > 3 else "F32,Q8_0,Q4_K_M").split(",")
MIB = 1024.0 * 1024.0


def peak_rss(cmd):
    """The process's peak resident memory in bytes (Linux's ru_maxrss is in KiB)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    p.stderr.close()
    if status != 0:
        sys.exit(f"{' '.join(cmd[:3])} failed: {err[-2000:]}")
    return usage.ru_maxrss * 1024


def activations(n):
    """A(n) in bytes: every head's causal weights kept (L·H·n(n+1)/2: the cells the mask blocks are not
    kept), the layer's buffers (the residual and
    normed rows, q/k/v, the heads' outputs, the MLP's gate and up: n·(2d + q + 2kv + q + 2·d_ff)), the
    K/V cache (L·n·2·kv), the logits (V) and each thread's conversion buffer (512 KiB, 128 Ki floats),
    all float32."""
    L, H, d, ff = SIZES["n_layer"], SIZES["n_head"], SIZES["d_model"], SIZES["d_ff"]
    q, kv = H * SIZES["head_dim"], SIZES["n_kv_head"] * SIZES["head_dim"]
    floats = L * H * n * (n + 1) // 2 + n * (2 * d + 2 * q + 2 * kv + 2 * ff) + L * n * 2 * kv + VOCAB
    return 4 * floats + os.cpu_count() * (512 << 10)


def main():
    paths = write_models(TYPES)
    r0 = peak_rss([ATTNLAB, "presets"])
    print(f"R0 (attnlab presets) {r0 / MIB:.1f} MiB; {os.cpu_count()} CPUs")
    print(f"{'file':8s} {'n':>5s} {'S MiB':>8s} {'P MiB':>8s} {'P-R0':>8s} {'A(n)':>7s} {'P/(S+A)':>8s} {'(P-R0-A)/S':>11s}")
    for scheme, path in paths.items():
        size = os.path.getsize(path)
        for n in (1, N):
            ids = ",".join(str((i * 7919) % VOCAB) for i in range(n))
            p = peak_rss([ATTNLAB, "model", path, "--ids", ids, "--top", "1", "--format", "text"])
            a = activations(n)
            print(f"{scheme:8s} {n:5d} {size / MIB:8.1f} {p / MIB:8.1f} {(p - r0) / MIB:8.1f} {a / MIB:7.1f} {p / (size + a):8.2f} "
                  f"{(p - r0 - a) / size:11.2f}", flush=True)


if __name__ == "__main__":
    main()
