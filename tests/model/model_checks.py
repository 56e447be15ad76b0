"""What the model tests share: each failed check said on one line and kept for the summary, and the
real attnlab run with the exit status it should give."""
import os
import subprocess

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
