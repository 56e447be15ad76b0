"""The pinned llama.cpp for the GGUF tests (docs/MODELS.md, "GGUF files: the test tooling"): the
node-llama-cpp 3.22.1 install (the checkout's scripts/npm-deps, or one made in the test's work folder
from package-lock.json the same way) and llama_cpp_ref.mjs run on a request. Shared by
gguf_reference_test.py, gguf_llama_cpp_test.py and bench/gguf_vs_llama_cpp.py."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODE_ENV = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))


def node_modules(work):
    """The folder holding node-llama-cpp at the pinned version: the checkout's (scripts/npm-deps), or
    one installed into WORK/npm from package-lock.json the same way."""
    pinned = json.load(open(os.path.join(ROOT, "package.json")))["devDependencies"]

    def ready(folder):
        pkg = os.path.join(folder, "node-llama-cpp", "package.json")
        cpu = os.path.join(folder, "@node-llama-cpp", "linux-x64", "package.json")
        return all(os.path.exists(p) and json.load(open(p))["version"] == pinned[n]
                   for p, n in ((pkg, "node-llama-cpp"), (cpu, "@node-llama-cpp/linux-x64")))

    if ready(os.path.join(ROOT, "node_modules")):
        return os.path.join(ROOT, "node_modules")
    prefix = os.path.join(work, "npm")
    if not ready(os.path.join(prefix, "node_modules")):
        os.makedirs(prefix, exist_ok=True)
        for f in ("package.json", "package-lock.json"):
            shutil.copy(os.path.join(ROOT, f), prefix)
        subprocess.run(["npm", "install", "--omit=optional", "--ignore-scripts", "--no-save", "--no-audit", "--no-fund",
                        "--loglevel=error"], cwd=prefix, check=True, env=NODE_ENV, stdout=subprocess.DEVNULL)
    return os.path.join(prefix, "node_modules")


def llama_cpp(modules, jobs, request, threads=1):
    """llama_cpp_ref.mjs on `jobs` (the request written to the file `request`); its answers in order."""
    with open(request, "w", encoding="utf-8") as f:
        json.dump({"threads": threads, "jobs": jobs}, f, ensure_ascii=False)
    p = subprocess.run(["node", os.path.join(HERE, "llama_cpp_ref.mjs"), modules, request], capture_output=True, text=True,
                       env=NODE_ENV)
    if p.returncode != 0:
        node = subprocess.run(["node", "--version"], capture_output=True, text=True, env=NODE_ENV).stdout.strip()
        sys.exit(f"llama_cpp_ref.mjs failed ({p.returncode}; node {node}, node-llama-cpp 3.22.1 asks for 20 or later): "
                 f"{p.stderr[-3000:]}")
    return json.loads(p.stdout)
