#!/usr/bin/python3
"""The README's pictures (issue 36): every image README.md shows is in the repository, is one that
scripts/screenshots makes with the app's own --screenshot (so it stays true), has alt text, and is
not blank: a real window, not one flat colour (many distinct colours, no colour covering nearly all
of it). Together they stay small, as pictures committed to a repository should.

Usage: readme_images_test.py SOURCE_DIR   (run with /usr/bin/python3)
"""
import os
import re
import sys
from collections import Counter

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
finish()
