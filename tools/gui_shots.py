#!/usr/bin/python3
"""Screenshots of a fixed set of GUI views, and a pixel comparison of two such sets.

A refactoring of app/gui must not change one pixel. Take the set with the build before the change and
with the build after it, then compare:

    tools/gui_shots.py take build/app/attnlab /tmp/before      (under xvfb-run, or with DISPLAY set)
    tools/gui_shots.py take build/app/attnlab /tmp/after
    tools/gui_shots.py compare /tmp/before /tmp/after

The status bar is left out of the comparison: it prints the last recompute's and frame's milliseconds,
which differ from run to run. Everything above it must be identical, byte for byte of RGB. Needs Debian's python3-pil.
"""
import os
import subprocess
import sys
import tempfile

# (name, arguments to `attnlab gui`, window size, extra environment)
VIEWS = [
    ("default", [], "1920x1080", {}),
    ("default-presenter", ["--presenter"], "1280x720", {}),
    ("default-light", ["--theme", "light"], "1600x900", {}),
    ("model-grid", ["--model", "induction"], "1920x1080", {}),
    ("model-grid-presenter", ["--model", "induction", "--presenter"], "1280x720", {}),
    ("model-head", ["--model", "induction", "--layer", "1", "--head", "0"], "1920x1080", {}),
    ("model-lift", ["--model", "induction", "--layer", "0", "--head", "0", "--lift"], "1920x1080", {}),
    ("model-lift-presenter", ["--model", "induction", "--layer", "1", "--head", "0", "--lift", "--presenter"], "1280x720", {}),
    ("walkthrough-3", ["--preset", "three-tokens"], "1600x900", {"ATTNLAB_GUI_WALK": "3"}),
    ("online-softmax-tile-2", ["--preset", "online-softmax", "--presenter"], "1280x720", {"ATTNLAB_GUI_TILE": "2"}),
]


def large_scenario(path, n=96, d=16):
    """A scenario too big for immediate cells (the heatmaps' GL texture path), the same every time."""
    import json
    import random
    rng = random.Random(7)
    rows = lambda: [[round(rng.gauss(0, 1), 4) for _ in range(d)] for _ in range(n)]
    with open(path, "w") as f:
        json.dump({"format": "attnlab-scenario", "version": 1, "title": "large", "Q": rows(), "K": rows(),
                   "V": rows(), "mask": {"kind": "causal"}}, f)
    return path


def presets(attnlab):
    out = subprocess.run([attnlab, "presets"], check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def take(attnlab, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    views = list(VIEWS)
    big = large_scenario(os.path.join(out_dir, "large.json"))
    views.append(("large", [big], "1920x1080", {}))
    views.append(("large-presenter", [big, "--presenter"], "1280x720", {}))
    for p in presets(attnlab):
        views.append(("preset-" + p, ["--preset", p], "1920x1080", {}))
        views.append(("preset-" + p + "-presenter", ["--preset", p, "--presenter"], "1280x720", {}))
    failed = 0
    for name, args, size, extra in views:
        with tempfile.TemporaryDirectory() as config:
            env = dict(os.environ, XDG_CONFIG_HOME=config, ATTNLAB_GUI_SIZE=size, **extra)
            png = os.path.join(out_dir, name + ".png")
            r = subprocess.run([attnlab, "gui", *args, "--screenshot", png, "--frames", "4"], env=env,
                               capture_output=True, text=True)
            if r.returncode != 0:
                failed += 1
                print(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
    print(f"{len(views) - failed} of {len(views)} views in {out_dir}")
    return 1 if failed else 0


def read_png(path):
    from PIL import Image  # Debian's python3-pil
    im = Image.open(path).convert("RGB")
    return im.width, im.height, im.tobytes()


def compare(a_dir, b_dir, status_bar_px=48):
    names = sorted(n for n in os.listdir(a_dir) if n.endswith(".png"))
    differ = 0
    for n in names:
        b_path = os.path.join(b_dir, n)
        if not os.path.exists(b_path):
            print(f"{n}: missing in {b_dir}")
            differ += 1
            continue
        wa, ha, pa = read_png(os.path.join(a_dir, n))
        wb, hb, pb = read_png(b_path)
        if (wa, ha) != (wb, hb):
            print(f"{n}: size {wa}x{ha} against {wb}x{hb}")
            differ += 1
            continue
        keep = (ha - status_bar_px) * wa * 3
        if pa[:keep] != pb[:keep]:
            bad = [i // 3 for i in range(0, keep, 3) if pa[i:i + 3] != pb[i:i + 3]]
            ys = [i // wa for i in bad]
            xs = [i % wa for i in bad]
            print(f"{n}: {len(bad)} pixels differ, in x {min(xs)}..{max(xs)}, y {min(ys)}..{max(ys)}")
            differ += 1
    print(f"{len(names) - differ} of {len(names)} identical above the status bar")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "take":
        sys.exit(take(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)
