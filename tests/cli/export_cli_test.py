#!/usr/bin/env python3
# `attnlab export` through the real executable: every format read back by an independent reader
# (numpy, xml.etree, pdftotext), and every error ending in one sentence, exit 2, no file left.
# Usage: /usr/bin/python3 export_cli_test.py PATH/TO/attnlab
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import numpy as np

from cli_checks import error_lines

ATTNLAB = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else "attnlab"
SVG = "{http://www.w3.org/2000/svg}"


def run(*args, preexec=None):
    return subprocess.run([ATTNLAB, *args], capture_output=True, text=True, timeout=120, preexec_fn=preexec)


class ExportCli(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="attnlab-export-cli-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def export(self, *args):
        p = run("export", *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def compute(self, *args):
        p = run("compute", "--format", "json", "--backend", "cpu", *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def assert_refused(self, args, expect_in_message, target=None):
        before = sorted(os.listdir(self.dir))
        p = run("export", *args)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        lines = error_lines(p.stderr)
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("attnlab: "), p.stderr)
        self.assertIn(expect_in_message, lines[0])
        self.assertEqual(sorted(os.listdir(self.dir)), before, "no new or partial file")

    # ---- data ----
    def test_npy_csv_json_equal_compute(self):
        ref = self.compute("--preset", "causal-six")
        for stage in ["scores", "logits", "weights", "output", "saturation"]:
            want = np.array([[(-np.inf if v is None else v) for v in row] for row in ref[stage]], dtype=np.float32)
            self.export("--preset", "causal-six", "--backend", "cpu", "--stage", stage, "--out", self.path(stage + ".npy"))
            got = np.load(self.path(stage + ".npy"))
            self.assertEqual(got.dtype, np.float32)
            np.testing.assert_array_equal(got, want, err_msg=stage)
            self.export("--preset", "causal-six", "--backend", "cpu", "--stage", stage, "--out", self.path(stage + ".csv"))
            with open(self.path(stage + ".csv")) as f:
                rows = [line.split(",") for line in f.read().splitlines()]
            np.testing.assert_array_equal(np.array([[np.float32(float(x)) for x in r] for r in rows]), want, err_msg=stage)
            self.export("--preset", "causal-six", "--backend", "cpu", "--stage", stage, "--out", self.path(stage + ".json"))
            with open(self.path(stage + ".json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["stage"], stage)
            self.assertEqual(doc["values"], ref[stage])

    def test_latex_seed_000(self):
        out = self.path("w.tex")
        self.export("--stage", "weights", "--out", out, "--backend", "cpu")
        with open(out) as f:
            tex = f.read()
        self.assertEqual(tex,
                         "\\begin{bmatrix}0.401 & 0.198 & 0.401\\\\0.198 & 0.401 & 0.401\\\\"
                         "0.248 & 0.248 & 0.503\\end{bmatrix}\n")
        out = self.path("s.tex")
        self.export("--preset", "three-tokens", "--stage", "scores", "--decimals", "0", "--out", out)
        with open(out) as f:
            tex = f.read()
        self.assertEqual(tex, "\\begin{bmatrix}1 & 0 & 1\\\\0 & 1 & 1\\\\1 & 1 & 2\\end{bmatrix}\n")

    # ---- figures ----
    def test_svg_is_semantic(self):
        out = self.path("w.svg")
        self.export("--preset", "causal-six", "--stage", "weights", "--annotate", "--out", out, "--backend", "cpu")
        root = ET.parse(out).getroot()
        cells = [r for r in root.iter(SVG + "rect") if r.get("class", "").split()[0:1] == ["cell"]]
        self.assertEqual(len(cells), 36)
        self.assertEqual(sum("blocked" in r.get("class") for r in cells), 15)
        texts = [t.text for t in root.iter(SVG + "text")]
        for token in ["The", "cat", "sat", "on", "the", "mat", "queries", "keys"]:
            self.assertIn(token, texts)
        ref = self.compute("--preset", "causal-six")
        for i, row in enumerate(ref["weights"]):
            for j, v in enumerate(row[: i + 1]):
                self.assertIn("%.2f" % v, texts, (i, j))

    def test_pdf_has_text(self):
        out = self.path("p.pdf")
        self.export("--stage", "pipeline", "--out", out, "--annotate")
        text = subprocess.run(["pdftotext", out, "-"], capture_output=True, text=True, check=True).stdout
        for word in ["Attention by hand on three tokens", "scores", "logits", "weights", "output", "t1", "t3", "softmax"]:
            self.assertIn(word, text)

    def test_right_to_left_text_reads_in_order(self):
        # Cairo draws glyphs left to right, so the PDF must hold Hebrew in drawing order: pdftotext,
        # which reads right-to-left runs back into typed order, then gives the words as typed. The SVG
        # keeps typed order, since its viewer lays the text out.
        scenario = self.path("rtl.json")
        with open(scenario, "w", encoding="utf-8") as f:
            json.dump({"format": "attnlab-scenario", "version": 1, "title": "שלום עולם",
                       "Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1, 2], [3, 4]],
                       "query_tokens": ["חתול", "כלב"], "key_tokens": ["חתול", "כלב"]}, f, ensure_ascii=False)
        pdf = self.path("rtl.pdf")
        self.export(scenario, "--stage", "weights", "--out", pdf)
        text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
        for words in ["שלום עולם", "חתול", "כלב"]:
            self.assertIn(words, text)
        self.assertNotIn("םולש", text)
        svg = self.path("rtl.svg")
        self.export(scenario, "--stage", "weights", "--out", svg)
        texts = [t.text for t in ET.parse(svg).getroot().iter(SVG + "text")]
        self.assertIn("שלום עולם", texts)
        self.assertIn("חתול", texts)

    def test_png_width_and_options(self):
        out = self.path("w.png")
        self.export("--stage", "weights", "--out", out, "--width", "700", "--colormap", "cividis", "--range", "0:1")
        with open(out, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(int.from_bytes(head[16:20], "big"), 700)
        self.export("--stage", "logits", "--out", self.path("l.png"), "--range=-2:2")

    def test_force_overwrites(self):
        out = self.path("w.csv")
        self.export("--stage", "weights", "--out", out)
        self.assert_refused(["--stage", "scores", "--out", out], "--force")
        with open(out) as f:
            self.assertTrue(f.read().startswith("0.401"))
        self.export("--stage", "scores", "--out", out, "--force")
        with open(out) as f:
            self.assertTrue(f.read().startswith("1,0,1"))

    # ---- errors ----
    def test_bad_options(self):
        self.assert_refused(["--stage", "weights", "--out", self.path("w.bmp")], "unknown file type")
        self.assert_refused(["--stage", "weights", "--out", self.path("w")], "unknown file type")
        self.assert_refused(["--stage", "weights", "--out", self.path("nowhere/w.png")], "does not exist")
        self.assert_refused(["--stage", "attention", "--out", self.path("w.png")], "--stage")
        self.assert_refused(["--stage", "weights", "--out", self.path("w.png"), "--colormap", "jet"], "--colormap")
        self.assert_refused(["--stage", "weights", "--out", self.path("w.png"), "--range", "1:0"], "--range")
        self.assert_refused(["--stage", "weights", "--out", self.path("w.png"), "--width", "3"], "--width")
        self.assert_refused(["--stage", "pipeline", "--out", self.path("p.csv")], "pipeline")
        self.assert_refused(["--stage", "weights", "--out", self.path("w.png"), "--preset", "no-such-lesson"], "no-such-lesson")

    def test_unwritable_folder(self):
        locked = self.path("locked")
        os.mkdir(locked, 0o500)
        if os.access(locked, os.W_OK):  # root writes anywhere: use a folder no one can create files in
            target = "/proc/attnlab-export-test.png"
        else:
            target = os.path.join(locked, "w.png")
        p = run("export", "--stage", "weights", "--out", target)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(error_lines(p.stderr)), 1, p.stderr)
        self.assertFalse(os.path.exists(target))
        self.assertEqual(os.listdir(locked), [])

    def test_full_disk_leaves_no_partial_file(self):
        # A file-size limit makes writes fail with EFBIG past 4 KiB, as a full disk would.
        def limit():
            import resource
            import signal
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        target = self.path("big.png")
        p = run("export", "--stage", "pipeline", "--annotate", "--out", target, preexec=limit)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(error_lines(p.stderr)), 1, p.stderr)
        self.assertIn("big.png", p.stderr)
        self.assertEqual(os.listdir(self.dir), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
