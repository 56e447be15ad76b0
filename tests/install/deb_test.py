#!/usr/bin/python3
"""The .deb (docs/INSTALL.md): `cpack -G DEB` from the build tree, its control fields (Depends
from dpkg-shlibdeps, plus fonts and Mesa), the files of the installing contract under /usr, and
the packaged binary itself, extracted with dpkg-deb and run: --version, --help and `compute`; and the
licence: /usr/share/doc/attnlab/copyright in Debian's machine-readable format (DEP-5) says LICENSE.

Usage: deb_test.py BUILD_DIR WORK_DIR SOURCE_DIR   (run with /usr/bin/python3)
"""
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, failures, finish  # noqa: E402

BUILD, WORK, SOURCE = (os.path.abspath(a) for a in sys.argv[1:4])


def run(*args, cwd=None):
    proc = subprocess.run(list(args), capture_output=True, text=True, timeout=600, cwd=cwd)
    return proc.returncode, proc.stdout, proc.stderr


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
code, out, err = run("cpack", "-G", "DEB", "--config", os.path.join(BUILD, "CPackConfig.cmake"), "-B", WORK, cwd=WORK)
debs = glob.glob(os.path.join(WORK, "attnlab_*.deb"))
check(code == 0 and len(debs) == 1, "cpack -G DEB makes one attnlab_VERSION_ARCH.deb", out + err)
if failures:
    sys.exit(1)
deb = debs[0]

code, info, err = run("dpkg-deb", "-f", deb, "Package", "Version", "Architecture", "Depends", "Recommends", "Maintainer")
fields = dict(line.split(": ", 1) for line in info.splitlines() if ": " in line)
depends = [d.strip().split()[0] for d in fields.get("Depends", "").split(",")]
check(fields.get("Package") == "attnlab", "Package: attnlab", info)
# From dpkg-shlibdeps: the C library and the window system's library, which no one typed in.
for lib in ("libc6", "libglfw3", "libepoxy0", "libcairo2"):
    check(lib in depends, f"Depends has {lib} (from the binary's shared libraries)", fields.get("Depends", ""))
# What the binary loads with dlopen, which dpkg-shlibdeps cannot see: libglvnd's libEGL.so.1 and
# libGL.so.1 (epoxy and GLFW), Mesa behind them, and the font.
for need in ("fonts-dejavu-core", "libegl1", "libgl1", "libgl1-mesa-dri", "libegl-mesa0"):
    check(need in depends, f"Depends has {need} (fonts and GL are dependencies, not bundled)", fields.get("Depends", ""))
# The CJK font the app merges in when a text needs it: recommended, the app runs without it.
check("fonts-droid-fallback" in fields.get("Recommends", ""), "Recommends has fonts-droid-fallback", info)

code, listing, err = run("dpkg-deb", "-c", deb)
for rel in ("usr/bin/attnlab", "usr/share/applications/attnlab.desktop",
            "usr/share/icons/hicolor/scalable/apps/attnlab.svg", "usr/share/metainfo/attnlab.metainfo.xml",
            "usr/share/man/man1/attnlab.1", "usr/share/bash-completion/completions/attnlab",
            "usr/share/doc/attnlab/copyright"):
    check(f"./{rel}\n" in listing, f"the package holds /{rel}")
check(".ttf" not in listing and "libGL" not in listing, "no fonts or GL drivers are bundled")

root = os.path.join(WORK, "root")
code, out, err = run("dpkg-deb", "-x", deb, root)
exe = os.path.join(root, "usr/bin/attnlab")
check(code == 0 and os.access(exe, os.X_OK), "dpkg-deb -x extracts an executable attnlab", err)
code, out, err = run(exe, "--version")
check(code == 0 and out.splitlines()[0].endswith(" " + fields.get("Version", "?")),
      "the packaged binary's --version is the package's", f"{out!r} vs {fields.get('Version')}")
code, out, err = run(exe, "--help")
check(code == 0 and "compute" in out and "gui" in out, "the packaged binary prints --help", err)
code, out, err = run(exe, "compute", "--preset", "three-tokens", "--format", "json")
ok = code == 0
if ok:
    r = json.loads(out)
    # The weights are a softmax over the keys: each row sums to 1 within float32 rounding of m terms.
    tol = 4 * r["m"] * 2.0 ** -24
    ok = all(abs(sum(row) - 1) <= tol for row in r["weights"]) and len(r["output"]) == r["n"]
check(ok, "the packaged binary computes a scenario (weights rows sum to 1)", out[:200] + err)


def paragraphs(text):
    """DEP-5 (deb822) paragraphs as {field: [first line, continuation lines…]}."""
    out = []
    for block in text.strip("\n").split("\n\n"):
        fields, key = {}, None
        for line in block.splitlines():
            if line.startswith((" ", "\t")):
                fields[key].append(line[1:])
            else:
                key, value = line.split(":", 1)
                fields[key] = [value.strip()]
        out.append(fields)
    return out


# The copyright file (Debian policy 12.5) in the machine-readable format, saying what LICENSE says:
# the format's address first, a `Files: *` paragraph with LICENSE's copyright line and the SPDX name,
# and the licence's text line for line (" ." stands for an empty line).
copyright_path = os.path.join(root, "usr/share/doc/attnlab/copyright")
text = open(copyright_path).read() if os.path.exists(copyright_path) else ""
paras = paragraphs(text) if text else [{}]
license_lines = open(os.path.join(SOURCE, "LICENSE")).read().strip("\n").splitlines()
check(paras[0].get("Format") == ["https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"],
      "the copyright file is in DEP-5 (its Format field)", text[:200])
files = [p for p in paras if p.get("Files") == ["*"]]
check(len(files) == 1, "the copyright file has one `Files: *` paragraph", text[:400])
if files:
    holder = license_lines[2].replace("Copyright (c) ", "")
    check(files[0].get("Copyright") == [holder], f"its Copyright is LICENSE's ({holder})", str(files[0].get("Copyright")))
    licence = files[0].get("License", [""])
    body = [("" if line == "." else line) for line in licence[1:]]
    check(licence[0] == "MIT" and license_lines[0] == "MIT License", "its License is MIT, as LICENSE's title says",
          licence[0])
    check(body == license_lines[4:], "its licence text is LICENSE's, line for line",
          f"{len(body)} lines vs {len(license_lines[4:])}")
finish()
