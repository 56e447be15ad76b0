"""What the model benches share (bench/model_bench.py, bench/family_bench.py): each tool timed as a
whole fresh process, load included, by GNU time, which also gives its peak resident memory."""
import re
import subprocess
import sys


def timed(cmd):
    """Runs cmd under GNU time: (wall s, peak RSS MiB, stdout, stderr)."""
    p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M", *cmd], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {p.stderr[-2000:]}")
    m = re.search(r"TIME ([0-9.]+) ([0-9]+)", p.stderr)
    return float(m.group(1)), int(m.group(2)) / 1024, p.stdout, p.stderr
