"""What the install and scripts tests share (tests/install, tests/scripts): each check reported on
one line, `ok` or `FAIL` with its detail below, and the script's exit status from them."""
import sys

failures = []


def check(ok, label, detail=""):
    print(("ok   " if ok else "FAIL ") + label + ("" if ok else "\n     " + detail))
    if not ok:
        failures.append(label)


def finish():
    """Ends the test: the number of failed checks, and exit status 1 if there were any."""
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)
