#!/usr/bin/python3
"""bench-gpt2-torch.py: PyTorch's time for the forward bench/bench_gpt2.c
times, on the same weights (a GPT-2 directory's model.safetensors, read with
numpy) and the same 32 token ids (i * 997 mod 50257); GPT-2 is written out by
hand (tests/make_gpt2_fixtures.py's forward), as Debian has no transformers.

    /usr/bin/python3 tools/bench-gpt2-torch.py DIR [THREADS]

THREADS (default 1) is set as OPENBLAS_NUM_THREADS and OMP_NUM_THREADS before
torch is imported: torch.set_num_threads alone leaves the pthread OpenBLAS
that Debian's torch calls running every product on all cores (the forward
then took 0.082 s of wall time here against 0.142 s on one core).
"""
import json
import os
import struct
import sys
import time

THREADS = sys.argv[2] if len(sys.argv) > 2 else "1"
os.environ["OPENBLAS_NUM_THREADS"] = THREADS  # before torch loads OpenBLAS
os.environ["OMP_NUM_THREADS"] = THREADS

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from make_gpt2_fixtures import forward  # noqa: E402


def load(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, t in header.items():
        if name == "__metadata__" or t["dtype"] != "F32":
            continue
        b, e = t["data_offsets"]
        out[name.replace("transformer.", "", 1)] = torch.from_numpy(
            np.frombuffer(data[b:e], dtype="<f4").reshape(t["shape"]).copy())
    return out


def main():
    d = sys.argv[1]
    torch.set_num_threads(int(THREADS))
    t0 = time.monotonic()
    p = load(os.path.join(d, "model.safetensors"))
    load_s = time.monotonic() - t0
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    V = p["wte.weight"].shape[0]
    ids = [(i * 997) % V for i in range(32)]
    with torch.no_grad():
        forward(p, ids, cfg["n_layer"], cfg["n_head"])
        times = []
        for _ in range(7):
            t0 = time.monotonic()
            _, logits = forward(p, ids, cfg["n_layer"], cfg["n_head"])
            times.append(time.monotonic() - t0)
    times.sort()
    probs = logits[-1].softmax(-1)
    print("torch %s, %d threads: load (read + copy) %.3f s; forward of 32 tokens: %.3f s "
          "(median of 7); next token %d (p %.4f)" % (torch.__version__, torch.get_num_threads(),
                                                   load_s, times[3], int(probs.argmax()),
                                                   float(probs.max())))


if __name__ == "__main__":
    main()
