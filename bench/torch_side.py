"""What the PyTorch sides of the model benches share (bench/torch_gpt2.py, bench/torch_family.py):
a fresh process's import time, a folder's config.json and model.safetensors (mapped with numpy,
handed to torch without a copy where it is F32), and the timings printed as one JSON line.
Imported first, before torch, so that importing numpy and torch is timed as part of the process."""
import json
import sys
import time

T0 = time.perf_counter()
import numpy as np  # noqa: E402
import torch  # noqa: E402

T_IMPORT = time.perf_counter()


def load(folder, strip_prefix=""):
    """(config, tensors): every tensor of model.safetensors as float32 (F16 widened), named without
    `strip_prefix`."""
    cfg = json.load(open(folder + "/config.json"))
    raw = np.memmap(folder + "/model.safetensors", dtype=np.uint8, mode="r")
    n = int(raw[:8].view("<u8")[0])
    header = json.loads(bytes(raw[8:8 + n]))
    base = 8 + n
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        dt = {"F32": "<f4", "F16": "<f2"}[t["dtype"]]
        arr = np.frombuffer(raw, dtype=dt, count=(e - b) // np.dtype(dt).itemsize, offset=base + b).reshape(t["shape"])
        ten = torch.from_numpy(arr) if dt == "<f4" else torch.from_numpy(arr).float()
        out[name.removeprefix(strip_prefix)] = ten
    return cfg, out


def main(forward, strip_prefix=""):
    """Usage: SCRIPT FOLDER IDS (IDS: 1,2,3): loads FOLDER, runs forward(cfg, tensors, ids) once and
    prints the import, load and forward times."""
    folder, ids = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
    with torch.inference_mode():
        t1 = time.perf_counter()
        cfg, T = load(folder, strip_prefix)
        t2 = time.perf_counter()
        forward(cfg, T, ids)
        t3 = time.perf_counter()
    print(json.dumps({"import_ms": (T_IMPORT - T0) * 1e3, "load_ms": (t2 - t1) * 1e3, "forward_ms": (t3 - t2) * 1e3,
                      "threads": torch.get_num_threads()}))
