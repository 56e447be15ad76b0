"""Worksheets (issue 70) through the real attnlab: the answer key agrees with the grader.

`attnlab worksheet` for every built-in lesson and 6 students writes the sheet and the key as LaTeX;
the key is read back here (each student's seed, each part's answer as printed), every printed answer
is sent to `attnlab exercise LESSON --seed S --answer -` for that seed and the grader must accept
every part (score = of): the key's answers are the grader's expected values for each printed seed.
The sheet prints every seed; the PDF pair is written for 30 students (one page per student at
least); a bad extension, a missing --students and an unknown lesson exit 2 with one sentence naming
it (then the usage line where it names an option), leaving no file behind.

Usage: worksheet_cli_test.py ATTNLAB WORKDIR
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import Checks, error_lines  # noqa: E402

STUDENTS = 6
FIRST_SEED = 40


def key_number(text):
    """One printed entry: a number, or None for a blocked logit (−∞ as LaTeX writes it)."""
    t = text.strip().replace("$-$", "-").replace("$\\infty$", "inf").replace("\\,", "").replace(",", "")
    if t in ("-inf", "null"):
        return None
    return float(t)


def key_value(kind, printed):
    """The answer a student would send for the key's printed answer of a part of `kind`."""
    if kind == "argmax_key":
        return int(re.match(r"key (\d+)", printed).group(1))
    if kind == "blocked":
        cells = []
        for row in printed.split(";"):
            m = re.match(r"\s*row (\d+): keys ([\d ]+)", row)
            cells += [[int(m.group(1)), int(k)] for k in m.group(2).split()]
        return cells
    if kind == "matrix":
        return [[key_number(x) for x in r.split(", ")] for r in printed.strip("()").split("), (")]
    if printed.startswith("("):
        return [key_number(x) for x in printed.strip("()").split(", ")]
    return key_number(printed)


def read_key(tex):
    """{seed: [[printed answer of each part] for each lesson]} from the key's LaTeX."""
    out = {}
    for block in tex.split("\\paragraph{Seed ")[1:]:
        seed = int(block[: block.index("}")])
        out[seed] = [re.findall(r"\\item\[\(\w+\)\] (.*)", ex) for ex in block.split("\\begin{itemize}")[1:]]
    return out


def main():
    attnlab, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    c = Checks(attnlab, work)
    code, out, _ = c.run("presets")
    lessons = [line.split()[0] for line in out.splitlines() if line.strip()]
    c.report(code == 0 and len(lessons) >= 20, "attnlab presets lists the lessons")

    code, out, err = c.run("worksheet", ",".join(lessons), "--students", str(STUDENTS), "--seed", str(FIRST_SEED),
                           "--out", "sheet.tex", "--key", "key.tex")
    c.report(code == 0, "worksheet of every lesson as LaTeX", err)
    if code != 0:
        return c.exit_code()
    with open(os.path.join(work, "key.tex"), encoding="utf-8") as f:
        key = read_key(f.read())
    with open(os.path.join(work, "sheet.tex"), encoding="utf-8") as f:
        sheet = f.read()
    seeds = list(range(FIRST_SEED, FIRST_SEED + STUDENTS))
    c.report(sorted(key) == seeds, "the key has every student's seed", str(sorted(key)))
    c.report(all(f"Seed {s}" in sheet for s in seeds), "the sheet prints every student's seed")

    for seed in seeds:
        for lesson, printed in zip(lessons, key.get(seed, [])):
            code, out, err = c.run("exercise", lesson, "--seed", str(seed), "--format", "json")
            parts = json.loads(out)["parts"] if code == 0 else []
            ok = code == 0 and len(parts) == len(printed) >= 2
            c.report(ok, f"{lesson} seed {seed}: the key prints every part", f"{printed} {err}")
            if not ok:
                continue
            answer = {"parts": {p["id"]: key_value(p["kind"], a) for p, a in zip(parts, printed)}}
            proc_code, out, err = c.run("exercise", lesson, "--seed", str(seed), "--answer", c.write_json("answer.json", answer),
                                   "--format", "json")
            grade = json.loads(out) if proc_code == 0 else {}
            c.report(proc_code == 0 and grade.get("score") == grade.get("of") == len(parts),
                     f"{lesson} seed {seed}: the grader accepts the key's answers", f"{answer} -> {out} {err}")

    code, out, err = c.run("worksheet", "three-tokens,causal-six", "--students", "30", "--seed", "100",
                           "--out", "sheet.pdf", "--key", "key.pdf")
    with open(os.path.join(work, "sheet.pdf"), "rb") as f:
        pdf = f.read()
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    c.report(code == 0 and pdf.startswith(b"%PDF") and pages >= 30, "a PDF worksheet for 30 students has a page each",
             f"{pages} pages; {err}")

    for args, named in ((["three-tokens", "--students", "2", "--out", "bad.docx"], "--out"),
                        (["three-tokens", "--students", "2", "--out", "ok.tex", "--key", "bad.txt"], "--key"),
                        (["three-tokens", "--out", "ok.tex"], "--students"),
                        (["no-such-lesson", "--students", "2", "--out", "ok.tex"], "no-such-lesson")):
        code, out, err = c.run("worksheet", *args)
        # One sentence (a sentence naming an option is followed by the usage line, docs/CLI.md).
        lines = error_lines(err)
        c.report(code == 2 and len(lines) == 1 and named in lines[0] and not os.path.exists(os.path.join(work, "ok.tex")),
                 f"worksheet {' '.join(args)} exits 2 naming {named}", f"{code} {err}")
    return c.exit_code()


if __name__ == "__main__":
    sys.exit(main())
