#!/usr/bin/python3
"""The command line contract through the real executable: every bad input of issue 2 exits 2
with one line on stderr naming the file, field or flag, prints nothing on stdout and never
crashes; usage errors add the usage line; and the success paths print what the command-line contract says (docs/ARCHITECTURE.md).

Usage: cli_test.py ATTNLAB WORK_DIR   (run with /usr/bin/python3, which has Debian's numpy)
"""
import json
import math
import os
import shutil
import stat
import sys

import numpy as np

from cli_checks import Checks, error_lines

ATTNLAB, WORK = os.path.abspath(sys.argv[1]), sys.argv[2]
checks = Checks(ATTNLAB, WORK)
run, report, skip = checks.run, checks.report, checks.skip


def expect_bad(label, args, *needles, usage=False):
    """Exit 2, nothing on stdout, one line `attnlab: ...` naming every needle (plus the usage line
    for usage errors), and no crash."""
    code, out, err = run("compute", *args)
    lines = error_lines(err)
    problems = []
    if code < 0 or code >= 128:
        problems.append(f"crashed (exit {code})")
    elif code != 2:
        problems.append(f"exit code {code}, expected 2")
    if out:
        problems.append(f"stdout is not empty: {out[:120]!r}")
    if len(lines) != 1:
        problems.append(f"{len(lines)} line(s) on stderr besides the usage line, expected 1: {err!r}")
    if not lines or not lines[0].startswith("attnlab: "):
        problems.append(f"stderr does not start with 'attnlab: ': {err!r}")
    else:
        for needle in needles:
            if needle not in lines[0]:
                problems.append(f"the message does not name {needle!r}: {lines[0]!r}")
    if usage and not err.strip().splitlines()[-1].startswith("usage: attnlab"):
        problems.append(f"no usage line: {err!r}")
    report(not problems, f"{label}: exit 2, one sentence naming {', '.join(map(repr, needles))}",
           "; ".join(problems) + f"\n     args: compute {' '.join(args)}")


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return name


def write_bytes(name, data):
    with open(os.path.join(WORK, name), "wb") as f:
        f.write(data)
    return name


def scenario(**fields):
    base = {"format": "attnlab-scenario", "version": 1, "title": "t",
            "Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[10, 0], [0, 10], [5, 5]]}
    base.update(fields)
    return json.dumps(base)


def npy_with_header(header, data):
    header = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data


def bad_inputs():
    good = write("good.json", scenario())
    # --- scenario JSON
    full = scenario()
    expect_bad("truncated JSON", [write("truncated.json", full[: len(full) // 2])], "truncated.json", "malformed JSON")
    expect_bad("malformed JSON", [write("malformed.json", '{"Q": [[1, 2]] "K": []}')], "malformed.json", "line 1")
    expect_bad("empty file", [write("empty.json", "")], "empty.json", "malformed JSON")
    expect_bad("not an object", [write("list.json", "[[1, 2]]")], "list.json", "object")
    expect_bad("ragged matrix", [write("ragged.json", scenario(Q=[[1, 0], [0], [1, 1]]))], "ragged.json", "Q row 2")
    expect_bad("not a list of rows", [write("flat.json", scenario(K=[1, 0, 1]))], "flat.json", "K row 1")
    expect_bad("NaN in a matrix", [write("nan.json", full.replace("10", "NaN", 1))], "nan.json", "NaN")
    expect_bad("Infinity in a matrix", [write("inf.json", full.replace("10", "Infinity", 1))], "inf.json", "Infinity")
    expect_bad("-Infinity in a matrix", [write("ninf.json", full.replace("10", "-Infinity", 1))], "ninf.json")
    expect_bad("number beyond double", [write("e400.json", full.replace("10", "1e400", 1))], "e400.json")
    expect_bad("number beyond float32", [write("e39.json", scenario(V=[[1e39, 0], [0, 1], [1, 1]]))], "e39.json", "V[0][0]")
    expect_bad("string in a matrix", [write("str.json", scenario(Q=[[1, "0"], [0, 1], [1, 1]]))], "str.json", "Q[0][1]")
    expect_bad("null in a matrix", [write("null.json", scenario(V=[[1, None], [0, 1], [1, 1]]))], "null.json", "V[0][1]")
    expect_bad("boolean in a matrix", [write("bool.json", scenario(K=[[True, 0], [0, 1], [1, 1]]))], "bool.json", "K[0][0]")
    expect_bad("empty matrix", [write("emptym.json", scenario(V=[]))], "emptym.json", "V is empty")
    expect_bad("empty row", [write("emptyr.json", scenario(Q=[[]]))], "emptyr.json", "Q row 1 is empty")
    expect_bad("missing matrix", [write("noq.json", json.dumps({"K": [[1]], "V": [[1]]}))], "noq.json", "\"Q\"")
    expect_bad("Q and K widths differ", [write("dk.json", scenario(K=[[1, 0, 0], [0, 1, 0], [1, 1, 0]]))], "dk.json", "d_k")
    expect_bad("K and V row counts differ", [write("kv.json", scenario(V=[[1, 0], [0, 1]]))], "kv.json", "K and V")
    for t in (0, -1, -0.0):
        expect_bad(f"temperature {t}", [write(f"t{t}.json", scenario(temperature=t))], f"t{t}.json", "temperature")
    expect_bad("temperature null", [write("tnull.json", scenario(temperature=None))], "tnull.json", "temperature")
    expect_bad("temperature string", [write("tstr.json", scenario(temperature="1"))], "tstr.json", "temperature")
    expect_bad("scale not a boolean", [write("scale.json", scenario(scale=1))], "scale.json", "scale")
    expect_bad("unknown mask kind", [write("mk.json", scenario(mask={"kind": "diagonal"}))], "mk.json", "mask.kind", "diagonal")
    expect_bad("mask without kind", [write("mnk.json", scenario(mask={}))], "mnk.json", "kind")
    for kind, key in (("padding", "valid"), ("prefix", "prefix"), ("window", "size")):
        expect_bad(f"{kind} negative", [write(f"{kind}neg.json", scenario(mask={"kind": kind, key: -1}))],
                   f"{kind}neg.json", f"mask.{key}")
        expect_bad(f"{kind} too large", [write(f"{kind}big.json", scenario(mask={"kind": kind, key: 4}))],
                   f"{kind}big.json", "4", "larger")
        expect_bad(f"{kind} missing parameter", [write(f"{kind}none.json", scenario(mask={"kind": kind}))],
                   f"{kind}none.json", key)
        expect_bad(f"{kind} parameter not whole", [write(f"{kind}frac.json", scenario(mask={"kind": kind, key: 1.5}))],
                   f"{kind}frac.json", f"mask.{key}")
    expect_bad("custom mask wrong shape", [write("cshape.json", scenario(mask={"kind": "custom", "blocked": [[0, 1, 0], [0, 0, 1]]}))],
               "cshape.json", "2×3")
    expect_bad("custom mask value 2", [write("cval.json", scenario(mask={"kind": "custom", "blocked": [[0, 1, 0], [0, 2, 1], [0, 0, 0]]}))],
               "cval.json", "mask.blocked[1][1]")
    expect_bad("custom mask value -1", [write("cneg.json", scenario(mask={"kind": "custom", "blocked": [[0, 1, 0], [0, 0, 1], [-1, 0, 0]]}))],
               "cneg.json", "mask.blocked[2][0]")
    expect_bad("custom mask without grid", [write("cnone.json", scenario(mask={"kind": "custom"}))], "cnone.json", "blocked")
    expect_bad("query tokens wrong length", [write("qt.json", scenario(query_tokens=["a", "b"]))], "qt.json", "query_tokens")
    expect_bad("key tokens wrong length", [write("kt.json", scenario(key_tokens=["a", "b", "c", "d"]))], "kt.json", "key_tokens")
    expect_bad("tokens not strings", [write("kts.json", scenario(key_tokens=["a", 2, "c"]))], "kts.json", "key_tokens[1]")
    expect_bad("unknown normalizer", [write("norm.json", scenario(normalizer="softermax"))], "norm.json", "normalizer")
    expect_bad("future field that changes the numbers", [write("v2.json", scenario(version=2, bias=1))], "v2.json", "bias")
    # --- flags
    expect_bad("--temperature 0", [good, "--temperature", "0"], "--temperature")
    expect_bad("--temperature -2", [good, "--temperature=-2"], "--temperature")
    expect_bad("--temperature nan", [good, "--temperature", "nan"], "--temperature")
    expect_bad("--temperature inf", [good, "--temperature", "inf"], "--temperature")
    expect_bad("--temperature not a number", [good, "--temperature", "warm"], "--temperature", "warm")
    expect_bad("--temperature 1e-400 underflows", [good, "--temperature", "1e-400"], "--temperature", "range")
    expect_bad("--temperature 1e400 overflows", [good, "--temperature", "1e400"], "--temperature", "range")
    expect_bad("--mask unknown kind", [good, "--mask", "diagonal"], "--mask", "diagonal")
    expect_bad("--mask custom", [good, "--mask", "custom"], "--mask")
    expect_bad("--mask padding negative", [good, "--mask", "padding:-1"], "--mask", "negative")
    expect_bad("--mask prefix too large", [good, "--mask", "prefix:4"], "--mask", "4")
    expect_bad("--mask window too large", [good, "--mask", "window:9"], "--mask", "9")
    expect_bad("--mask padding without size", [good, "--mask", "padding"], "--mask")
    expect_bad("--mask size not a number", [good, "--mask", "window:two"], "--mask", "window:two")
    expect_bad("--normalizer unknown", [good, "--normalizer", "softermax"], "--normalizer", "softermax")
    expect_bad("--backend unknown", [good, "--backend", "tpu"], "--backend", "tpu")
    expect_bad("--preset unknown", ["--preset", "no-such-lesson"], "--preset", "no-such-lesson")
    expect_bad("two inputs", [good, "--preset", "three-tokens"], "one input")
    expect_bad("--scale with --no-scale", [good, "--scale", "--no-scale"], "--scale", "--no-scale")
    expect_bad("--q without --k and --v", ["--q", "q.csv"], "--q", "--k", "--v")
    # --- usage errors: the flag named, then the usage line
    for args, needle in ((["--bogus"], "--bogus"), (["--temperature"], "--temperature"), (["--mask"], "--mask"),
                         (["--q"], "--q"), (["--preset"], "--preset"), (["--format"], "--format"),
                         (["--format", "xml"], "--format"), ([good, "extra.json"], "extra.json")):
        expect_bad(f"usage: {' '.join(args)}", args, needle, usage=True)
    code, out, err = run("frobnicate")
    report(code == 2 and not out and "frobnicate" in err and err.splitlines()[-1].startswith("usage: attnlab"),
           "usage: unknown subcommand names it and prints the usage line", f"exit {code}, stderr {err!r}")


def parse_errors():
    """A value the option parser refuses is named in the house's words, not CLI11's ("Could not
    convert: --n = abc"), with the subcommand's usage line, on every subcommand."""
    png = os.path.join(WORK, "never.png")
    cases = (
        (["bench", "--n", "abc"], "--n: 'abc' is not a whole number"),
        (["bench", "--dk", "1.5"], "--dk: '1.5' is not a whole number"),
        (["scaling", "--trials", "1e12"], "--trials: '1e12' is not a whole number"),
        (["model", "induction", "--text", "1 2", "--top", "x"], "--top: 'x' is not a whole number"),
        (["train", "--task", "induction", "--lr", "fast", "--out", os.path.join(WORK, "never")], "--lr: 'fast' is not a number"),
        (["export", "--preset", "three-tokens", "--decimals", "two", "--out", png], "--decimals: 'two' is not a whole number"),
        (["gui", "--screenshot", png, "--frames", "x"], "--frames: 'x' is not a whole number"),
        (["gui", "--screenshot", png, "--frames", "1.5"], "--frames: '1.5' is not a whole number"),
        (["gui", "--screenshot", png, "--frames", "0"], "--frames: 0 is out of range; it must be between 1 and 100000"),
        (["compute", "--format", "xml"], "--format: 'xml' is not one of json, text"),
        (["compute", "--temperature"], "--temperature needs a value"),
    )
    for args, sentence in cases:
        code, out, err = run(*args)
        lines = err.splitlines()
        ok = (code == 2 and not out and len(lines) == 2 and lines[0].startswith("attnlab: " + sentence)
              and lines[1].startswith(f"usage: attnlab {args[0]} ") and not os.path.exists(png))
        report(ok, f"parse error: {' '.join(args)} says {sentence!r}", f"exit {code}, stderr {err!r}")


def bad_matrix_files():
    ok = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.save(os.path.join(WORK, "K.npy"), ok)
    np.save(os.path.join(WORK, "V.npy"), ok)
    common = ["--k", "K.npy", "--v", "V.npy"]

    def bad_q(label, name, *needles):
        expect_bad(label, ["--q", name, *common], name, *needles)

    np.save(os.path.join(WORK, "int.npy"), np.arange(6, dtype=np.int32).reshape(3, 2))
    bad_q("npy int32", "int.npy", "dtype", "<i4")
    np.save(os.path.join(WORK, "half.npy"), ok.astype(np.float16))
    bad_q("npy float16", "half.npy", "dtype", "<f2")
    np.save(os.path.join(WORK, "big_endian.npy"), ok.astype(">f4"))
    bad_q("npy big-endian", "big_endian.npy", "dtype", ">f4")
    np.save(os.path.join(WORK, "complex.npy"), ok.astype(np.complex64))
    bad_q("npy complex", "complex.npy", "dtype")
    np.save(os.path.join(WORK, "one_d.npy"), np.ones(2, np.float32))
    bad_q("npy 1-D", "one_d.npy", "1-D")
    np.save(os.path.join(WORK, "three_d.npy"), np.ones((3, 2, 1), np.float32))
    bad_q("npy 3-D", "three_d.npy", "3-D")
    np.save(os.path.join(WORK, "zero_rows.npy"), np.ones((0, 2), np.float32))
    bad_q("npy empty", "zero_rows.npy", "empty")
    np.save(os.path.join(WORK, "nan.npy"), np.array([[1, np.nan], [0, 1], [1, 1]], np.float64))
    bad_q("npy NaN", "nan.npy", "[0][1]", "NaN")
    np.save(os.path.join(WORK, "objects.npy"), np.array([[1, "a"]], dtype=object), allow_pickle=True)
    bad_q("npy pickled objects", "objects.npy", "dtype")
    write_bytes("bad_magic.npy", b"PK\x03\x04 definitely a zip")
    bad_q("npy bad magic", "bad_magic.npy", "not a .npy file")
    write_bytes("bad_header.npy", npy_with_header("this is no dictionary", b"\0" * 24))
    bad_q("npy bad header", "bad_header.npy", "header")
    write_bytes("bad_shape.npy", npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (three, 2), }", b"\0" * 24))
    bad_q("npy bad shape", "bad_shape.npy", "shape")
    write_bytes("short_header.npy", b"\x93NUMPY\x01\x00\xff\x00{'descr': '<f4'")
    bad_q("npy truncated header", "short_header.npy", "header")
    full = open(os.path.join(WORK, "K.npy"), "rb").read()
    write_bytes("truncated.npy", full[:-5])
    bad_q("npy truncated data", "truncated.npy", "24 bytes", "19")
    write_bytes("huge_header.npy", npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }", b"\0" * 64))
    bad_q("npy header promising 40 GB", "huge_header.npy", "bytes")
    # Q/K mismatch through files names the files.
    np.save(os.path.join(WORK, "wide.npy"), np.ones((3, 5), np.float32))
    expect_bad("files: Q and K widths differ", ["--q", "wide.npy", *common], "wide.npy", "K.npy")
    np.save(os.path.join(WORK, "V4.npy"), np.ones((4, 2), np.float32))
    expect_bad("files: K and V rows differ", ["--q", "K.npy", "--k", "K.npy", "--v", "V4.npy"], "K.npy", "V4.npy")
    # CSV
    bad_q("csv ragged", write("ragged.csv", "1,2\n3\n4,5\n"), "line 2")
    bad_q("csv non-number", write("word.csv", "1,2\n3,four\n5,6\n"), "line 2, column 2", "four")
    bad_q("csv empty", write("empty.csv", ""), "no numbers")
    bad_q("csv NaN", write("nan.csv", "1,2\nnan,4\n5,6\n"), "line 2, column 1")
    bad_q("csv semicolons", write("semi.csv", "1;2\n3;4\n5;6\n"), "line 1")
    bad_q("unknown extension", write("q.txt", "1,2\n"), ".txt")
    # Files that are not there or not files.
    bad_q("missing file", "missing.npy", "no such file")
    expect_bad("missing scenario file", ["missing.json"], "missing.json", "no such file")
    os.makedirs(os.path.join(WORK, "folder.npy"), exist_ok=True)
    bad_q("directory", "folder.npy", "folder")
    os.makedirs(os.path.join(WORK, "folder.json"), exist_ok=True)
    expect_bad("directory as scenario", ["folder.json"], "folder.json", "folder")
    locked = write("locked.json", scenario())
    os.chmod(os.path.join(WORK, locked), 0)
    if os.geteuid() == 0:
        skip("unreadable file", "running as root, where chmod 000 does not stop reads")
    else:
        expect_bad("unreadable file", [locked], "locked.json", "cannot be read")
    os.chmod(os.path.join(WORK, locked), stat.S_IRUSR | stat.S_IWUSR)
    # Sizes whose dense n × m stages cannot fit: 400000 × 400000 cells need terabytes.
    tall = np.ones((400_000, 1), np.float32)
    for name in ("tallQ.npy", "tallK.npy", "tallV.npy"):
        np.save(os.path.join(WORK, name), tall)
    expect_bad("dense stages that would not fit", ["--q", "tallQ.npy", "--k", "tallK.npy", "--v", "tallV.npy", "--format", "json"],
               "400000", "limit")


def presets():
    """`attnlab presets` lists every preset, and each one's JSON has every key of the contract."""
    code, out, err = run("presets")
    lines = out.splitlines()
    names = [line.split()[0] for line in lines if line.strip()]
    report(code == 0 and not err and names[:1] == ["three-tokens"] and
           {"three-tokens", "three-tokens-basis", "causal-six"} <= set(names) and
           all("  " in line and line.split("  ", 1)[1].strip() for line in lines),
           "presets: one a line, NAME, spaces, title; three-tokens first", out)
    for name in names:
        code, out, err = run("compute", "--preset", name, "--format", "json", "--backend", "cpu")
        ok = code == 0 and not err
        if ok:
            doc = json.loads(out)
            ok = all(k in doc for k in ("n", "m", "d_k", "d_v", "scale", "temperature", "effective_temperature", "mask",
                                        "scores", "logits", "weights", "output", "saturation", "rows", "stats"))
        report(ok, f"compute --preset {name} --format json has every contract key", err)


def compute_json(*args, backend="cpu"):
    """`attnlab compute --format json` parsed. The CPU engine, so that this stays fast where the GL
    backend runs on llvmpipe; the numpy reference test covers both backends."""
    code, out, err = run("compute", "--format", "json", "--backend", backend, *args)
    if code != 0:
        raise AssertionError(f"exit {code}: {err}")
    return json.loads(out)


def gpu_bench(auto):
    """`auto`: compute --backend auto's JSON. A software GL renderer (Mesa's llvmpipe, what CI has)
    is slower than the CPU engine: auto takes the CPU without a notice; --backend gpu still uses it."""
    code, bench_text, _ = run("bench", "--backend", "gpu", "--n", "4", "--runs", "1", "--warmup", "0")
    if code == 0 and "llvmpipe" in bench_text.splitlines()[0]:
        code_auto, _, auto_err = run("compute", "--backend", "auto", "--summary")
        report(auto["backend"] == "cpu" and code_auto == 0 and auto_err == "",
               "--backend auto takes the CPU engine over llvmpipe, silently", auto_err)
    if code != 0:
        return
    # On the GPU the peak is the GPU's own, probed by a compute shader in the same run (not the
    # CPU's), and every fraction is a GFLOP/s figure over it.
    code_json, bench_json, _ = run("bench", "--backend", "gpu", "--n", "4", "--runs", "1", "--warmup", "0",
                                  "--format", "json")
    ok = code_json == 0 and "this GPU's FP32 FMA peak over" in bench_text
    if ok:
        g = json.loads(bench_json)
        ok = g["peak_gflops"] > 0 and g["peak_probe"]["isa"] == "GL compute" and g["peak_probe"]["threads"] >= 256
        ok = ok and math.isclose(g["fraction_of_peak"], g["gflops"] / g["peak_gflops"], rel_tol=1e-9)
        for stage in ("scores", "output"):
            st = g["stages"][stage]
            ok = ok and math.isclose(st["fraction_of_peak"], st["gflops"] / g["peak_gflops"], rel_tol=1e-9)
    report(ok, "bench --backend gpu gives fractions of the GPU's own FMA peak", bench_json + bench_text)
    # The products' kernels: the renderer's default (texture tiles on llvmpipe), or those asked for.
    code_shared, shared_bench, _ = run("bench", "--backend", "gpu", "--gpu-tiles", "shared", "--n", "70", "--runs",
                                       "1", "--warmup", "0", "--format", "json")
    code_bad, _, bad_err = run("bench", "--backend", "gpu", "--gpu-tiles", "wide")
    ok = code_json == 0 and code_shared == 0 and code_bad == 2 and "--gpu-tiles" in bad_err
    if ok:
        expected = "texture tiles" if "llvmpipe" in bench_text.splitlines()[0] else "shared-memory tiles"
        ok = g["kernels"] == expected and json.loads(shared_bench)["kernels"] == "shared-memory tiles"
    report(ok, "bench --gpu-tiles picks the GPU's product kernels and says which ran", shared_bench + bad_err)
    # The streaming kernels: the renderer's default (the per-row kernels on llvmpipe, blocks of rows
    # on a card), or those asked for; and the clock, which only an NVIDIA card reports.
    streamed = {}
    for kind in ("auto", "rows", "blocks"):
        code_s, out_s, _ = run("bench", "--backend", "gpu", "--gpu-stream", kind, "--streaming", "--n", "70",
                               "--mask", "causal", "--runs", "1", "--warmup", "0", "--format", "json")
        streamed[kind] = json.loads(out_s) if code_s == 0 else {}
    code_bad, _, bad_err = run("bench", "--backend", "gpu", "--gpu-stream", "tiles", "--streaming")
    software = "llvmpipe" in bench_text.splitlines()[0]
    ok = code_bad == 2 and "--gpu-stream" in bad_err and all(streamed.values())
    if ok:
        rows, blocks = streamed["rows"]["kernels"], streamed["blocks"]["kernels"]
        ok = (rows.startswith("a row per invocation (stream_update.comp)") and
              blocks == "blocks of 64 rows, 32 keys a tile (stream_block.comp)" and
              streamed["auto"]["kernels"] == (rows if software else blocks) and
              all(s["streaming"] for s in streamed.values()))
        ok = ok and (g["clock"] is None) == ("NVIDIA" not in bench_text.splitlines()[0])
    report(ok, "bench --gpu-stream picks the GPU's streaming kernels and says which ran; the clock is a card's",
           json.dumps({k: v.get("kernels") for k, v in streamed.items()}) + bad_err)


def worked_examples(default):
    """`default`: compute's JSON with no input. Section 2.3's numbers, and the basis example's."""
    w = np.array(default["weights"])
    report(np.allclose(w, [[0.401, 0.198, 0.401], [0.198, 0.401, 0.401], [0.248, 0.248, 0.503]], atol=5e-4) and
           np.allclose(default["output"], [[6.02, 3.99], [3.99, 6.02], [5, 5]], atol=1e-2),
           "default lesson: Section 2.3's true weights and output", str(default["weights"]))
    basis = compute_json("--preset", "three-tokens-basis")
    report(np.allclose(basis["output"], [[0.4011, 0.1978], [0.1978, 0.4011], [0.2483, 0.2483]], atol=1e-4),
           "three-tokens-basis: the worked example's output to four decimals", str(basis["output"]))


def overrides():
    """Each flag changes what it names, over the preset's and over a scenario file's own fields."""
    unscaled = compute_json("--no-scale")
    report(unscaled["scale"] is False and unscaled["effective_temperature"] == 1 and
           np.allclose(unscaled["weights"][2], [0.21, 0.21, 0.58], atol=5e-3), "--no-scale: row 3 sharpens to (0.21 0.21 0.58)")
    hot = compute_json("--temperature", "2")
    report(hot["temperature"] == 2 and abs(hot["effective_temperature"] - 2 * 2 ** 0.5) < 1e-12, "--temperature 2 doubles s·T")
    causal = compute_json("--mask", "causal")
    report(causal["mask"] == {"kind": "causal"} and causal["logits"][0][1] is None and causal["weights"][0] == [1, 0, 0],
           "--mask causal: blocked logits are null, weights 0")
    padded = compute_json("--mask", "padding:2")
    report(padded["mask"] == {"kind": "padding", "valid": 2} and padded["rows"][2]["padding"] is True and
           padded["rows"][1]["padding"] is False, "--mask padding:2 marks query rows past 2 as padding rows")
    win = compute_json("--preset", "causal-six", "--mask", "window:0")
    report(all(r["fully_masked"] for r in win["rows"]) and all(v == 0 for row in win["weights"] for v in row) and
           all(v == 0 for row in win["output"] for v in row), "--mask window:0: every row fully masked, zeros, no NaN")
    sparse = compute_json("--normalizer", "sparsemax")
    report(sparse["normalizer"] == "sparsemax", "--normalizer sparsemax is applied")
    write("unscaled.json", scenario(scale=False, mask={"kind": "causal"}))
    rescaled = compute_json("unscaled.json", "--scale", "--mask", "none")
    report(rescaled["scale"] is True and rescaled["mask"] == {"kind": "none"}, "--scale and --mask override the scenario file")


def matrix_files(preset):
    """--q/--k/--v from npy and csv give the same numbers as the scenario (`preset`: three-tokens' JSON)."""
    M = {"Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[10, 0], [0, 10], [5, 5]]}
    for name, rows in M.items():
        np.save(os.path.join(WORK, f"s{name}.npy"), np.asfortranarray(np.array(rows, np.float64)))
        write(f"s{name}.csv", "\n".join(",".join(str(v) for v in r) for r in rows) + "\n")
    from_npy = compute_json("--q", "sQ.npy", "--k", "sK.npy", "--v", "sV.npy")
    from_csv = compute_json("--q", "sQ.csv", "--k", "sK.csv", "--v", "sV.csv")
    report(from_npy["weights"] == preset["weights"] and from_csv["output"] == preset["output"],
           "--q/--k/--v (.npy float64 Fortran order, .csv) match the scenario")


def text_format():
    """The text format for people: every stage titled, tokens labelled, matrix rows aligned."""
    code, out, err = run("compute", "--preset", "causal-six")
    problems = []
    for word in ("Exercise 2.3.2", "scores", "logits", "weights", "output", "saturation", "rows", "stats", "-inf",
                 "The", "cat", "mat", "effective temperature"):
        if word not in out:
            problems.append(f"no {word!r}")
    if "nan" in out.lower().replace("nans", ""):
        problems.append("prints nan")
    if any(line != line.rstrip() for line in out.splitlines()):
        problems.append("trailing spaces")
    # Matrix rows within a block line up: equal widths.
    blocks, current = [], []
    for line in out.splitlines():
        if line.startswith("  ") and not line.strip().startswith("query"):
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    for block in blocks[:5]:
        if len({len(line) for line in block}) != 1:
            problems.append(f"ragged block: {block}")
    report(code == 0 and not err and not problems, "compute --format text: titled stages, token labels, aligned",
           "; ".join(problems) + "\n" + out)
    code, out, err = run("compute", "--preset", "three-tokens", "--format", "text", "--summary")
    report(code == 0 and "output" in out and "scores  S" not in out, "compute --summary --format text leaves out n×m stages")


def overflow_notes():
    """Every ∞ printed comes with its reason, as in the GUI: a score past float32 in row 1, and
    logits that overflow only after the division (a small temperature) in row 1 of another."""
    write("overflow.json", scenario(Q=[[1e20, 1e20], [1, 0]], K=[[1e20, 1e20], [0, 1]], V=[[1, 2], [3, 4]]))
    code, out, err = run("compute", "overflow.json", "--backend", "cpu")
    notes = out.split("\nnotes\n", 1)[1] if "\nnotes\n" in out else ""
    report(code == 0 and not err and "scores overflow float32 at row 1 (t1)" in notes and "scores +inf" in out and
           "e+" not in notes, "compute --format text: a +inf score is flagged in its row and explained under notes", out)
    write("logits_overflow.json", scenario(Q=[[1e19, 1e19], [1, 0]], K=[[1e19, 1e19], [0, 1]], V=[[1, 2], [3, 4]],
                                           temperature=0.05))
    code, out, err = run("compute", "logits_overflow.json", "--backend", "cpu")
    stats = out.split("\nstats\n", 1)[1] if "\nstats\n" in out else ""
    report(code == 0 and "logits overflow float32 at row 1 (t1)" in out and "logits overflow" in out.split("\nrows\n")[1]
           and max(len(w) for w in stats.split()) < 16,
           "compute --format text: overflowing logits explained; huge stats in scientific notation", out)
    code, out, err = run("compute", "--preset", "three-tokens")
    report(code == 0 and "notes" not in out, "compute --format text: no notes section when nothing overflows")


def inf_minus_inf():
    """1e30·1e30 + 1e30·(−1e30): ∞ − ∞ = NaN one way in float32, +∞ with a fused multiply-add. The
    exact score, 0, on every backend and BLAS kernel, said in the text notes and in the JSON."""
    write("inf_minus_inf.json", scenario(Q=[[1e30, 1e30], [1, 0]], K=[[1e30, -1e30], [0, 1]], V=[[1], [2]]))
    for backend in ("cpu", "auto"):
        code, out, err = run("compute", "inf_minus_inf.json", "--backend", backend, "--format", "json")
        res = json.loads(out) if code == 0 else {}
        report(code == 0 and res["scores"][0] == [0, 1e30] and res["weights"][0] == [0, 1] and
               res["rows"][0]["scores_recomputed"] is True and res["rows"][1]["scores_recomputed"] is False and
               any("double precision at row 1 (t1)" in n for n in res["notes"]),
               f"compute --backend {backend}: a score whose float32 sum is inf - inf is the exact 0, flagged and noted",
               out + err)
    code, out, err = run("compute", "inf_minus_inf.json", "--backend", "cpu")
    report(code == 0 and "scores recomputed" in out.split("\nrows\n")[1] and
           "computed in double precision at row 1 (t1)" in out.split("\nnotes\n")[-1],
           "compute --format text: recomputed scores flagged in their row and explained under notes", out)


def good_paths():
    presets()
    default = compute_json()
    preset = compute_json("--preset", "three-tokens")
    report(default == preset, "compute with no input is the default lesson (three-tokens)")
    auto = compute_json(backend="auto")
    report(np.allclose(auto["weights"], default["weights"], atol=1e-6) and auto["backend"] in ("cpu", "gpu"),
           f"--backend auto ({auto['backend']}) gives the CPU engine's weights")
    gpu_bench(auto)
    worked_examples(default)
    overrides()
    matrix_files(preset)
    text_format()
    overflow_notes()
    inf_minus_inf()


def fuzz(count=300):
    """Seeded random damage to a scenario file and a .npy file: the answer is always either a
    result (exit 0, valid JSON) or one `attnlab:` line with exit 2; never a crash or exit 1."""
    rng = np.random.default_rng(7)
    text = scenario(mask={"kind": "custom", "blocked": [[0, 1, 1], [0, 0, 1], [0, 0, 0]]}, query_tokens=["a", "b", "c"],
                    temperature=0.5, normalizer="sparsemax")
    tokens = ["NaN", "-1", "1e999", "1e39", "\"x\"", "[]", "{}", "null", "true", "[[", "]]", ",", ":", "0", "1.5",
              "\"window\"", "\"padding\"", "99999999999999999999", "-0", "\\u0000"]
    npy_ok = open(os.path.join(WORK, "K.npy"), "rb").read()
    bad = []
    for k in range(count):
        if k % 3 == 2:
            data = bytearray(npy_ok)
            for _ in range(int(rng.integers(1, 4))):
                data[int(rng.integers(0, len(data)))] = int(rng.integers(0, 256))
            if rng.random() < 0.3:
                data = data[: int(rng.integers(0, len(data)))]
            write_bytes("fuzz.npy", bytes(data))
            args = ["compute", "--format", "json", "--backend", "cpu", "--q", "fuzz.npy", "--k", "K.npy", "--v", "V.npy"]
        else:
            t = text
            for _ in range(int(rng.integers(1, 4))):
                at = int(rng.integers(0, len(t)))
                op = rng.integers(0, 3)
                if op == 0:
                    t = t[:at] + tokens[int(rng.integers(0, len(tokens)))] + t[at:]
                elif op == 1:
                    t = t[:at] + t[at + int(rng.integers(1, 6)):]
                else:
                    t = t[:at] + chr(int(rng.integers(32, 127))) + t[at + 1:]
            write("fuzz.json", t)
            args = ["compute", "--format", "json", "--backend", "cpu", "fuzz.json"]
        code, out, err = run(*args)
        if code == 0:
            try:
                json.loads(out)
                ok = not err
            except json.JSONDecodeError:
                ok = False
        else:
            ok = code == 2 and not out and len(error_lines(err)) == 1 and err.startswith("attnlab: ")
        if not ok:
            bad.append(f"case {k}: exit {code}, stderr {err[:200]!r}")
    report(not bad, f"fuzz: {count} damaged scenario/.npy files give a result or one attnlab: line, exit 2",
           "\n     ".join(bad[:5]))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    bad_inputs()
    parse_errors()
    bad_matrix_files()
    good_paths()
    fuzz()
    total = checks.passed + checks.failed
    print(f"{checks.passed} of {total} command line checks passed, {checks.skipped} skipped")
    if checks.failed:
        return 1
    shutil.rmtree(WORK, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
