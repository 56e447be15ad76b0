"""What the command-line tests share: running the real attnlab and reporting each check on one line."""

import json
import os
import subprocess


def error_lines(err):
    """A refusal's stderr as its lines, the usage line that ends a usage error taken off. A sentence
    that starts with an option's name is one (docs/CLI.md): where its usage line is missing, a line
    saying so is added, so that a check for one sentence fails on it."""
    lines = err.strip().splitlines()
    if len(lines) >= 2 and lines[-1].startswith("usage: attnlab"):
        return lines[:-1]
    if lines and lines[0].startswith("attnlab: --"):
        return lines + ["(no usage line after a sentence naming an option)"]
    return lines


class Checks:
    """Counts the checks of one test script; `exit_code()` is its result for CTest."""

    def __init__(self, attnlab, work):
        self.attnlab, self.work = attnlab, work
        self.passed = self.failed = self.skipped = 0

    def run(self, *args, cwd=None):
        """attnlab with `args` in the work folder: (exit status, stdout, stderr)."""
        proc = subprocess.run([self.attnlab, *args], capture_output=True, text=True, timeout=120, cwd=cwd or self.work)
        return proc.returncode, proc.stdout, proc.stderr

    def lesson_json(self, lesson):
        """`attnlab lesson LESSON --format json` (a built-in name or a file), parsed; None after
        reporting the failure."""
        code, out, err = self.run("lesson", lesson, "--format", "json")
        if code != 0:
            self.report(False, f"attnlab lesson {lesson} --format json runs", err)
            return None
        return json.loads(out)

    def write_json(self, name, value):
        """`value` as the file NAME in the work folder (an edited scenario, say); its path."""
        path = os.path.join(self.work, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(value, f)
        return path

    def report(self, ok, label, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(("ok   " if ok else "FAIL ") + label + ("" if ok else "\n     " + detail))

    def skip(self, label, why):
        self.skipped += 1
        print(f"skip {label}: {why}")

    def exit_code(self):
        return 1 if self.failed else 0
