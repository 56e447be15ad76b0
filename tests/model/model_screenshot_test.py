"""The Model window in the real executable under Xvfb, presenter mode, at a projector's 1280 × 720
and 1024 × 768 (docs/MODELS.md): the grid of a model written here, one head enlarged (its key
labels, colour scale and evidence), one lifted into the lab, and the grid with two tokens linked
(the ranking beside it, the top heads outlined). Each run must exit 0 and write a PNG of the window's size that is not one
flat colour (what was drawn is looked at by people; docs/MODELS.md).
Usage: model_screenshot_test.py ATTNLAB WORKDIR"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt2_fixture as fx  # noqa: E402

ATTNLAB, WORK = sys.argv[1], sys.argv[2]


def png_size_and_colours(path):
    """(width, height, distinct byte values in the first rows): enough to tell a drawn window from a blank one."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    w, h = struct.unpack(">II", data[16:24])
    idat, at = b"", 8
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + n]
        at += 12 + n
    raw = zlib.decompress(idat)
    return w, h, len(set(raw[: min(len(raw), w * 3 * 200)]))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    folder = os.path.join(WORK, "gpt2")
    fx.write_model(folder, seed=5, n_layer=4, n_head=6, n_embd=48, n_positions=64)
    text = "the cat sat on the mat. the cat sat on the mat."
    failures = 0
    for size in ("1280x720", "1024x768"):
        for name, extra in (("grid", []), ("enlarged", ["--layer", "2", "--head", "3"]), ("lifted", ["--layer", "2", "--head", "3", "--lift"]),
                            ("linked", ["--link", "12,3"])):
            out = os.path.join(WORK, f"{name}_{size}.png")
            env = dict(os.environ, ATTNLAB_GUI_SIZE=size)
            p = subprocess.run([ATTNLAB, "gui", "--presenter", "--model", folder, "--text", text, *extra, "--screenshot", out, "--frames", "3"],
                               capture_output=True, text=True, env=env, timeout=120)
            if p.returncode != 0 or not os.path.exists(out):
                print(f"FAIL: {name} at {size}: exit {p.returncode}: {p.stderr.strip()}")
                failures += 1
                continue
            w, h, colours = png_size_and_colours(out)
            want = tuple(int(x) for x in size.split("x"))
            if (w, h) != want or colours < 8:
                print(f"FAIL: {name} at {size}: {w}x{h}, {colours} distinct values")
                failures += 1
            else:
                print(f"{name} at {size}: ok ({out})")
    p = subprocess.run([ATTNLAB, "gui", "--model", os.path.join(WORK, "missing"), "--screenshot", os.path.join(WORK, "x.png")],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 2 or "missing" not in p.stderr:
        print(f"FAIL: a missing model: exit {p.returncode}, {p.stderr!r}")
        failures += 1
    # A --link the text cannot have: refused before any window opens, with the flag named.
    p = subprocess.run([ATTNLAB, "gui", "--model", folder, "--text", text, "--link", "3,99", "--screenshot", os.path.join(WORK, "y.png")],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 2 or "--link 99,3" not in p.stderr or os.path.exists(os.path.join(WORK, "y.png")):
        print(f"FAIL: --link 3,99 (query 99, key 3, past the text): exit {p.returncode}, {p.stderr!r}")
        failures += 1
    # A folder without its tokenizer opens on token ids, as `attnlab model --ids` runs it (the dry
    # run's `gui --model DIR` exited instead).
    bare = os.path.join(WORK, "gpt2-no-tokenizer")
    shutil.copytree(folder, bare)
    for name in ("vocab.json", "merges.txt", "tokenizer.json"):
        if os.path.exists(os.path.join(bare, name)):
            os.remove(os.path.join(bare, name))
    for name, extra in (("ids", ["--ids", "5,17,42,8,5,17"]), ("no text", [])):
        out = os.path.join(WORK, f"no_tokenizer_{name.replace(' ', '_')}.png")
        p = subprocess.run([ATTNLAB, "gui", "--presenter", "--model", bare, *extra, "--screenshot", out], capture_output=True, text=True,
                           timeout=120)
        if p.returncode != 0 or not os.path.exists(out):
            print(f"FAIL: a folder without a tokenizer, {name}: exit {p.returncode}: {p.stderr.strip()}")
            failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
