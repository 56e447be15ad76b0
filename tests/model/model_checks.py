"""What the model tests share: each failed check said on one line and kept for the summary, the
real attnlab run with the exit status it should give, a bad input's refusal in one sentence, and
the float32 error bound of every comparison with a float64 reference."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cli_checks import error_lines  # noqa: E402

EPS32 = 2.0 ** -24  # float32's unit roundoff
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def runner(attnlab):
    """run(*args, expect=0, env=None, cwd=None): attnlab with `args` (in `env` and `cwd` when
    given); an exit status other than `expect` is a failure."""
    attnlab = os.path.abspath(attnlab)

    def run(*args, expect=0, env=None, cwd=None):
        p = subprocess.run([attnlab, *args], capture_output=True, text=True, errors="replace", env=env, cwd=cwd)
        if p.returncode != expect:
            check(False, f"{' '.join(args)}: exit {p.returncode}, wanted {expect}; stderr: {p.stderr.strip()[-500:]}")
        return p

    return run


def bad_input_check(run):
    """bad(args, *needles, env=None, after_progress=False): `run` with `args` exits 2 with one line
    on stderr, starting 'attnlab: ' and naming what is wrong (each of `needles`), and nothing on
    stdout. after_progress: training had started, so progress lines ("step …") may come before it."""

    def bad(args, *needles, env=None, after_progress=False):
        p = run(*args, expect=2, env=env)
        err = p.stderr
        if after_progress:
            err = "\n".join(l for l in err.splitlines() if not l.startswith("step "))
        lines = error_lines(err)
        check(len(lines) == 1 and lines[0].startswith("attnlab: "), f"{args}: not one 'attnlab: ' line: {p.stderr!r}")
        for n in needles:
            check(n in p.stderr, f"{args}: stderr lacks {n!r}: {p.stderr!r}")
        check(p.stdout == "", f"{args}: printed to stdout on error")

    return bad


def bound(width, layers, magnitude):
    """float32 rounding of a dot product of `width` terms of random sign grows like √width·2⁻²⁴
    times the terms' size, `width` being the widest product (max(d_model, d_ff, heads·d_head); GPT-2's
    d_model in model_cli_test.py); it is carried by the residual stream through `layers` layers and
    lands in logits of `magnitude`, whose softmax moves by no more than the logits do. 8 covers the
    few roundings around each product (bias, norm, the rotation's two products and sum)."""
    return 8 * EPS32 * np.sqrt(width) * layers * (1 + magnitude)


def within(mine, ref, b, what):
    """Checks attnlab's numbers against the float64 reference's, every one within the bound `b`;
    returns the worst error as a fraction of `b` (the tests print the worst over a model)."""
    err = np.abs(np.asarray(mine, np.float64) - ref).max()
    check(err <= b, f"{what} differ from the reference by {err:.3g} > {b:.3g}")
    return err / b


def finish(passed):
    """Ends the test: exit status 1 after the number of failures, or 0 after the line `passed`."""
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print(passed)
