#!/usr/bin/python3
"""Opening files as a file manager does (docs/INSTALL.md): the .desktop entry's Exec line (the file
cmake --install copies as is), with %f replaced by a scenario, opens the window on that scenario;
with a .npy it opens and offers the matrix as Q, K or V; a missing or broken file exits 2 with one
sentence before any window.
Each run writes a --screenshot and the layout file (ATTNLAB_LAYOUT_OUT) that says what was open.

Usage: desktop_open_test.py ATTNLAB DESKTOP_FILE WORK_DIR   (under a display: xvfb-run)
"""
import json
import os
import shlex
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402

EXE, DESKTOP, WORK = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])


def exec_line(path):
    """The entry's Exec command for one file: %f becomes the path, the program is this build's."""
    entry = dict(line.rstrip("\n").split("=", 1) for line in open(DESKTOP) if "=" in line and not line.startswith("#"))
    words = shlex.split(entry["Exec"])
    return [EXE if w == "attnlab" else path if w == "%f" else w for w in words]


def open_like_a_file_manager(path, name):
    shot, layout = os.path.join(WORK, name + ".png"), os.path.join(WORK, name + ".json")
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(WORK, "config"), ATTNLAB_LAYOUT_OUT=layout,
               ATTNLAB_GUI_SIZE="1024x768")
    cmd = exec_line(path) + ["--screenshot", shot]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=WORK)
    doc = json.load(open(layout))["document"] if os.path.exists(layout) else {}
    return proc, doc, os.path.exists(shot)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
# A rectangular scenario (5 queries, 7 keys) that no built-in lesson has, so the window must have read it.
rng = np.random.default_rng(20)
scenario = {"format": "attnlab-scenario", "version": 1, "title": "Opened from the file manager",
            "Q": rng.normal(size=(5, 4)).round(3).tolist(), "K": rng.normal(size=(7, 4)).round(3).tolist(),
            "V": rng.normal(size=(7, 2)).round(3).tolist(), "mask": {"kind": "none"}}
path = os.path.join(WORK, "from file manager.json")  # a space, as file names have
with open(path, "w") as f:
    json.dump(scenario, f)
proc, doc, shot = open_like_a_file_manager(path, "scenario")
check(proc.returncode == 0 and shot, "the Exec line opens a window on a scenario", proc.stdout + proc.stderr)
check(doc.get("title") == scenario["title"] and (doc.get("n"), doc.get("m")) == (5, 7) and doc.get("path") == path,
      "the window holds that scenario (its title, 5 × 7)", json.dumps(doc))

q = os.path.join(WORK, "Q.npy")
np.save(q, rng.normal(size=(3, 2)).astype(np.float32))
proc, doc, shot = open_like_a_file_manager(q, "matrix")
check(proc.returncode == 0 and shot, "the Exec line opens a window for a .npy", proc.stdout + proc.stderr)
check(doc.get("matrix_offered") == q, "the window offers the .npy as Q, K or V", json.dumps(doc))

for name, content in (("missing.json", None), ("broken.npy", b"\x93NUMPY not really")):
    bad = os.path.join(WORK, name)
    if content is not None:
        open(bad, "wb").write(content)
    proc, doc, shot = open_like_a_file_manager(bad, "bad")
    lines = proc.stderr.splitlines()
    check(proc.returncode == 2 and len(lines) == 1 and name in lines[0] and not shot,
          f"a {name} exits 2 with one sentence naming it, before any window", proc.stderr)
finish()
