#!/usr/bin/python3
"""make-random-gpt2.py: a GPT-2 model directory of random weights at the size
of a published one, for the performance goals of --model (load time, forward
time) on a machine without internet. Nothing it writes is meaningful text.

    /usr/bin/python3 tools/make-random-gpt2.py DIR [SIZE]

SIZE: gpt2 (default: 124M parameters, 12 layers, 12 heads, width 768),
distilgpt2, gpt2-medium, gpt2-large or gpt2-xl. Writes DIR/model.safetensors
(float32, Hugging Face's tensor names and Conv1D layout, N(0, 0.02) weights as
GPT-2's initialisation, layer norms 1 and 0), DIR/config.json, and copies
GPT-2's real vocab.json and merges.txt from tests/fixtures/gpt2-vocab/. Needs
numpy (Debian's python3-numpy); the safetensors header is written by hand.
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

SIZES = {  # n_layer, n_head, n_embd
    "gpt2": (12, 12, 768), "distilgpt2": (6, 12, 768), "gpt2-medium": (24, 16, 1024),
    "gpt2-large": (36, 20, 1280), "gpt2-xl": (48, 25, 1600),
}
VOCAB, CTX = 50257, 1024
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def shapes(n_layer, C):
    yield "wte.weight", (VOCAB, C)
    yield "wpe.weight", (CTX, C)
    for l in range(n_layer):
        h = "h.%d." % l
        yield h + "ln_1.weight", (C,)
        yield h + "ln_1.bias", (C,)
        yield h + "attn.c_attn.weight", (C, 3 * C)
        yield h + "attn.c_attn.bias", (3 * C,)
        yield h + "attn.c_proj.weight", (C, C)
        yield h + "attn.c_proj.bias", (C,)
        yield h + "ln_2.weight", (C,)
        yield h + "ln_2.bias", (C,)
        yield h + "mlp.c_fc.weight", (C, 4 * C)
        yield h + "mlp.c_fc.bias", (4 * C,)
        yield h + "mlp.c_proj.weight", (4 * C, C)
        yield h + "mlp.c_proj.bias", (C,)
    yield "ln_f.weight", (C,)
    yield "ln_f.bias", (C,)


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] not in SIZES):
        sys.exit("usage: make-random-gpt2.py DIR [%s]" % "|".join(SIZES))
    out, size = sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "gpt2"
    n_layer, n_head, C = SIZES[size]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(124)
    header, offset, names = {"__metadata__": {"format": "pt"}}, 0, list(shapes(n_layer, C))
    for name, shape in names:
        n = int(np.prod(shape)) * 4
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape in names:
            if name.endswith((".ln_1.weight", ".ln_2.weight", "ln_f.weight")):
                a = np.ones(shape, dtype="<f4")
            elif name.endswith(".bias"):
                a = np.zeros(shape, dtype="<f4")
            else:
                a = (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype("<f4")
            f.write(a.tobytes())
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "n_layer": n_layer, "n_head": n_head, "n_embd": C,
                   "vocab_size": VOCAB, "n_positions": CTX, "layer_norm_epsilon": 1e-5}, f)
    vocab = os.path.join(SRC, "tests", "fixtures", "gpt2-vocab")
    shutil.copy(os.path.join(vocab, "encoder.json"), os.path.join(out, "vocab.json"))
    shutil.copy(os.path.join(vocab, "vocab.bpe"), os.path.join(out, "merges.txt"))
    print("%s: %s with random weights, %d parameters" % (out, size, offset // 4))


if __name__ == "__main__":
    main()
