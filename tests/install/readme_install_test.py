#!/usr/bin/python3
"""The README's install path, exactly as written (issue 36): `scripts/run`, then `cmake --install
build`, from a clean build folder. scripts/run builds the attnlab target alone; the install must
then find everything it copies (the man page and the completion are written by building attnlab).
The commands are read from README.md, so the test follows the README; the build folder is BUILD_DIR,
emptied first (ATTNLAB_BUILD_DIR), there is no display (so scripts/run prints the default lesson
and returns instead of opening the window), and the install goes to a staging folder (DESTDIR)
rather than through sudo.

Usage: readme_install_test.py SOURCE_DIR BUILD_DIR   (run with /usr/bin/python3)
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import checks  # noqa: E402
from checks import failures, finish  # noqa: E402

SOURCE, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
STAGE = os.path.join(BUILD, "stage")


def check(ok, label, detail=""):
    checks.check(ok, label, detail[-3000:])  # a build's output: its end says what went wrong


def readme_commands():
    """The shell lines of README.md's code blocks, comments dropped."""
    text = open(os.path.join(SOURCE, "README.md"), encoding="utf-8").read()
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        lines += [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]
    return lines


commands = readme_commands()
check(commands[:1] == ["scripts/run"], "the README's first command is scripts/run", str(commands))
check("sudo cmake --install build" in commands, "the README installs with `sudo cmake --install build`", str(commands))
if failures:
    sys.exit(1)

shutil.rmtree(BUILD, ignore_errors=True)
env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
env["ATTNLAB_BUILD_DIR"] = BUILD
p = subprocess.run(["scripts/run"], cwd=SOURCE, env=env, capture_output=True, text=True, timeout=3000)
check(p.returncode == 0 and "weights  A = softmax(L)" in p.stdout,
      "scripts/run in a clean build folder builds attnlab and prints the default lesson", p.stdout + p.stderr)
cache = open(os.path.join(BUILD, "CMakeCache.txt")).read() if os.path.exists(os.path.join(BUILD, "CMakeCache.txt")) else ""
check("ATTNLAB_BUILD_TESTS:BOOL=OFF" in cache, "a first scripts/run leaves the tests out of the build")

# `sudo cmake --install build`, into a staging folder.
p = subprocess.run(["cmake", "--install", BUILD], env=dict(os.environ, DESTDIR=STAGE),
                   capture_output=True, text=True, timeout=300)
check(p.returncode == 0, "then `cmake --install build` installs without an error", p.stdout + p.stderr)
installed = sorted(os.path.relpath(os.path.join(d, f), STAGE) for d, _, fs in os.walk(STAGE) for f in fs)
prefix = "usr/local/"
for rel in ("bin/attnlab", "share/applications/attnlab.desktop", "share/icons/hicolor/scalable/apps/attnlab.svg",
            "share/metainfo/attnlab.metainfo.xml", "share/man/man1/attnlab.1",
            "share/bash-completion/completions/attnlab", "share/mime/packages/attnlab.xml",
            "share/doc/attnlab/copyright"):
    check(prefix + rel in installed, f"it installs {prefix}{rel}", "\n".join(installed))
man = os.path.join(STAGE, prefix, "share/man/man1/attnlab.1")
check(os.path.exists(man) and os.path.getsize(man) > 1000 and ".TH" in open(man).read(), "the man page is a man page")
p = subprocess.run([os.path.join(STAGE, prefix, "bin/attnlab"), "--version"], capture_output=True, text=True, timeout=60)
check(p.returncode == 0 and p.stdout.startswith("attnlab ") and "MIT" in p.stdout,
      "the installed attnlab says its version and licence", p.stdout + p.stderr)
finish()
