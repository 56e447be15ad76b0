#!/usr/bin/python3
"""The README's pictures (issue 36): every image README.md shows is in the repository, is one that
scripts/screenshots makes with the app's own --screenshot (so it stays true), has alt text, and is
not blank: a real window, not one flat colour (many distinct colours, no colour covering nearly all
of it). Together they stay small, as pictures committed to a repository should.

Given ATTNLAB, also that they are still what the app draws: scripts/screenshots makes the pipeline,
the lesson and the Model window again with that executable, into a temporary folder, and each must
match its picture in docs/images/ but for the status bar, whose timings change from run to run (and
whose BLAS kernels' name from machine to machine). A change to what those views show then fails here
until scripts/screenshots is run again. The Training window's picture is left out: it trains 4000
steps before it is taken, nearly two minutes on two cores.

Usage: readme_images_test.py SOURCE_DIR [ATTNLAB]   (run with /usr/bin/python3)
"""
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402
from png_read import read_png  # noqa: E402

SOURCE = os.path.abspath(sys.argv[1])
MAX_TOTAL_BYTES = 1 << 20   # all of them, in the repository


def readme_images(text):
    """(path, alt text) of each image: Markdown ![alt](path) and HTML <img src=… alt=…>."""
    found = [(m.group(2), m.group(1)) for m in re.finditer(r"!\[([^\]]*)\]\(([^)\s]+)[^)]*\)", text)]
    for tag in re.findall(r"<img\b[^>]*>", text, re.S):
        src = re.search(r'\bsrc="([^"]+)"', tag)
        alt = re.search(r'\balt="([^"]*)"', tag)
        found.append((src.group(1) if src else "", alt.group(1) if alt else ""))
    return found


readme = open(os.path.join(SOURCE, "README.md"), encoding="utf-8").read()
screenshots_script = open(os.path.join(SOURCE, "scripts/screenshots"), encoding="utf-8").read()
images = readme_images(readme)
# The picture of the pipeline, then a strip of three: a lesson, the Model window, the Training window.
check(len(images) >= 4, "README.md shows at least four pictures", str(images))
first = readme.find(images[0][0]) if images else -1
check(0 <= first < readme.find("scripts/run"), "the first picture comes before the commands")
total = 0
for path, alt in images:
    local = os.path.normpath(os.path.join(SOURCE, path))
    check(not re.match(r"^[a-z]+://", path) and os.path.isfile(local), f"{path} is a file in the repository")
    check(len(alt.split()) >= 3, f"{path} has alt text that says what it shows", repr(alt))
    made = os.path.dirname(path) == "docs/images" and re.search(
        rf"^shot {re.escape(os.path.splitext(os.path.basename(path))[0])} ", screenshots_script, re.M)
    check(made is not None, f"{path} is made by scripts/screenshots (a `shot` line writing docs/images/)")
    if not os.path.isfile(local):
        continue
    total += os.path.getsize(local)
    width, height, rows = read_png(local)
    counts = Counter(px for row in rows for px in row)
    commonest = counts.most_common(1)[0][1] / (width * height)
    check(width >= 640 and height >= 360, f"{path} is at least 640×360", f"{width}×{height}")
    check(len(counts) >= 256 and commonest < 0.9, f"{path} is not blank",
          f"{len(counts)} distinct colours, the commonest covers {commonest:.0%}")
check(total < MAX_TOTAL_BYTES, f"the pictures take {total // 1024} KiB, under {MAX_TOTAL_BYTES // 1024} KiB")

# Drawn again. The status bar is one line of text at the window's bottom, its font size and 8 pixels
# high (app/gui/shell/frame_layout.cpp): 25 of scripts/screenshots' 720 at the normal size, 36 in
# presenter mode, so the last twelfth (60) holds it with room to spare. A pixel counts as changed when
# a channel moved by more than 24 of 255: llvmpipe's vector widths and other BLAS kernels gave no
# such pixel above the status bar, a moved label or heatmap gives thousands.
STATUS_BAR_SHARE = 1 / 12
TOLERANCE = 24


def pixels(path):
    width, height, rows = read_png(path)
    return np.array(rows, dtype=np.int16)[:, :, :3].reshape(height, width, 3)


if len(sys.argv) > 2:
    attnlab = os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as fresh:
        names = ["pipeline", "lesson", "model"]
        made = subprocess.run([os.path.join(SOURCE, "scripts/screenshots"), "--out", fresh, attnlab, *names],
                              capture_output=True, text=True)
        check(made.returncode == 0, "scripts/screenshots draws the pipeline, the lesson and the Model window again",
              made.stdout[-2000:] + made.stderr[-2000:])
        for name in names:
            committed, drawn = os.path.join(SOURCE, "docs/images", name + ".png"), os.path.join(fresh, name + ".png")
            if made.returncode != 0 or not os.path.isfile(committed):
                continue
            a, b = pixels(committed), pixels(drawn)
            same_size = a.shape == b.shape
            check(same_size, f"docs/images/{name}.png has the size the app draws it at", f"{a.shape} against {b.shape}")
            if not same_size:
                continue
            above = a.shape[0] - int(np.ceil(a.shape[0] * STATUS_BAR_SHARE))
            changed = np.abs(a[:above] - b[:above]).max(axis=2) > TOLERANCE
            rows = np.nonzero(changed.any(axis=1))[0]
            check(not changed.any(), f"docs/images/{name}.png is what the app draws now (above the status bar)",
                  f"{changed.sum()} pixels ({changed.mean():.2%}) differ, in rows {rows.min() if len(rows) else 0}"
                  f"-{rows.max() if len(rows) else 0}: run scripts/screenshots and look at the pictures")
finish()
