#!/usr/bin/python3
"""make_gpt2_fixtures.py: tiny random GPT-2 models and their PyTorch reference,
for tests/test_gpt2.c. Run by hand (CI never runs it; the output is committed):

    /usr/bin/python3 tests/make_gpt2_fixtures.py

Needs Debian's python3-torch (no transformers: GPT-2's forward is written out
below from its definition, as Hugging Face's GPT2Model and llm.c compute it).

Writes two model directories under tests/fixtures/:
  gpt2-tiny/   model.safetensors (2 layers, 2 heads, n_embd 16, 32 positions),
               config.json, vocab.json and merges.txt (the 256 byte pieces of
               GPT-2's byte-to-unicode table plus a few merges of its own),
               reference.json: the ids of a sentence and, per layer, Q, K, V,
               the unscaled scores, the weights, ln_1's output, the attention
               output and the residual after it; the logits.
  gpt2-prefix/ the same kind of model with names under "transformer.", the
               h.N.attn.bias mask buffers a PyTorch export carries, width 64
               and no config.json (so n_head = 64 / 64 = 1 is inferred), and
               its reference.json.

The safetensors files are written by hand (struct + json): an 8-byte
little-endian header length, the JSON header, then float32 data.
"""
import json
import os
import re
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


BYTE_ENC = bytes_to_unicode()
# merges of the tiny vocabulary, in rank order (byte-encoded; "Ġ" is a space)
MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("a", "t"), ("Ġ", "c"), ("Ġc", "at"),
          ("Ġ", "s"), ("Ġs", "at"), ("o", "n"), ("Ġ", "on"), ("Ġ", "m"), ("Ġm", "at")]


def tiny_vocab():
    pieces = [BYTE_ENC[b] for b in range(256)]
    for a, b in MERGES:
        pieces.append(a + b)
    return {p: i for i, p in enumerate(pieces)}


# ASCII pre-tokenisation (the text below is ASCII, so \p{L} is [A-Za-z])
PAT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def bpe_encode(text, vocab):
    ranks = {m: i for i, m in enumerate(MERGES)}
    ids = []
    for piece in PAT.findall(text):
        word = [BYTE_ENC[b] for b in piece.encode("utf-8")]
        while len(word) > 1:
            pairs = [(ranks.get((word[i], word[i + 1]), 1 << 30), i) for i in range(len(word) - 1)]
            best = min(pairs)
            if best[0] == 1 << 30:
                break
            a, b = word[best[1]], word[best[1] + 1]
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            word = out
        ids.extend(vocab[w] for w in word)
    return ids


def make_params(gen, n_layer, C, V, n_ctx):
    """GPT-2's tensors in Conv1D layout (in, out), scaled so attention is far
    from uniform."""
    def rnd(*shape, std=0.3):
        return torch.randn(*shape, generator=gen, dtype=torch.float32) * std

    p = {"wte.weight": rnd(V, C, std=0.5), "wpe.weight": rnd(n_ctx, C, std=0.3)}
    for l in range(n_layer):
        h = "h.%d." % l
        p[h + "ln_1.weight"] = 1 + rnd(C, std=0.1)
        p[h + "ln_1.bias"] = rnd(C, std=0.1)
        p[h + "attn.c_attn.weight"] = rnd(C, 3 * C)
        p[h + "attn.c_attn.bias"] = rnd(3 * C, std=0.1)
        p[h + "attn.c_proj.weight"] = rnd(C, C)
        p[h + "attn.c_proj.bias"] = rnd(C, std=0.1)
        p[h + "ln_2.weight"] = 1 + rnd(C, std=0.1)
        p[h + "ln_2.bias"] = rnd(C, std=0.1)
        p[h + "mlp.c_fc.weight"] = rnd(C, 4 * C)
        p[h + "mlp.c_fc.bias"] = rnd(4 * C, std=0.1)
        p[h + "mlp.c_proj.weight"] = rnd(4 * C, C, std=0.15)
        p[h + "mlp.c_proj.bias"] = rnd(C, std=0.1)
    p["ln_f.weight"] = 1 + rnd(C, std=0.1)
    p["ln_f.bias"] = rnd(C, std=0.1)
    return p


def write_safetensors(path, tensors, extra_u8=None):
    """tensors: name -> float32 tensor; extra_u8: name -> bytes (a mask buffer
    stored as U8, which the reader must skip)."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    items = [(k, v.contiguous().numpy().astype("<f4").tobytes(), "F32", list(v.shape))
             for k, v in tensors.items()]
    for k, (raw, shape) in (extra_u8 or {}).items():
        items.append((k, raw, "U8", shape))
    for name, raw, dtype, shape in items:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)   # data 8-byte aligned, as the real files
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


def layer_norm(x, w, b, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh((2.0 / torch.pi) ** 0.5 * (x + 0.044715 * x ** 3)))


def forward(p, ids, n_layer, H, eps=1e-5):
    """GPT-2's forward in float32, keeping what the C test compares."""
    n = len(ids)
    x = p["wte.weight"][ids] + p["wpe.weight"][:n]
    C = x.shape[1]
    dh = C // H
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    layers = []
    for l in range(n_layer):
        h = "h.%d." % l
        a = layer_norm(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"], eps)
        qkv = a @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]
        q, k, v = qkv.split(C, dim=1)
        qh = q.view(n, H, dh).transpose(0, 1)          # (H, n, dh)
        kh = k.view(n, H, dh).transpose(0, 1)
        vh = v.view(n, H, dh).transpose(0, 1)
        scores = qh @ kh.transpose(1, 2)               # (H, n, n), unscaled
        att = (scores / dh ** 0.5).masked_fill(~causal, float("-inf")).softmax(dim=-1)
        ctx = (att @ vh).transpose(0, 1).reshape(n, C)
        out = ctx @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"]
        resid = x + out
        layers.append({"ln_1": a, "q": q, "k": k, "v": v,
                       "scores": scores.masked_fill(~causal, 0.0), "weights": att,
                       "output": out, "residual": resid})
        m = layer_norm(resid, p[h + "ln_2.weight"], p[h + "ln_2.bias"], eps)
        m = gelu_tanh(m @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"])
        x = resid + m @ p[h + "mlp.c_proj.weight"] + p[h + "mlp.c_proj.bias"]
    logits = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"], eps) @ p["wte.weight"].T
    return layers, logits


def as_list(t):
    return [float("%.9g" % v) for v in t.reshape(-1).tolist()]


def write_model(name, seed, n_layer, H, C, n_ctx, text, prefix="", config=True):
    out = os.path.join(HERE, "fixtures", name)
    os.makedirs(out, exist_ok=True)
    vocab = tiny_vocab()
    gen = torch.Generator().manual_seed(seed)
    p = make_params(gen, n_layer, C, len(vocab), n_ctx)
    masks = {}
    if prefix:
        bias = torch.tril(torch.ones(n_ctx, n_ctx, dtype=torch.uint8)).view(1, 1, n_ctx, n_ctx)
        masks = {prefix + "h.%d.attn.bias" % l: (bias.numpy().tobytes(), [1, 1, n_ctx, n_ctx])
                 for l in range(n_layer)}
    write_safetensors(os.path.join(out, "model.safetensors"),
                      {prefix + k: v for k, v in p.items()}, masks)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in MERGES))
    if config:
        with open(os.path.join(out, "config.json"), "w") as f:
            json.dump({"model_type": "gpt2", "n_layer": n_layer, "n_head": H, "n_embd": C,
                       "vocab_size": len(vocab), "n_positions": n_ctx,
                       "layer_norm_epsilon": 1e-5}, f, indent=1)
    ids = bpe_encode(text, vocab)
    layers, logits = forward(p, ids, n_layer, H)
    ref = {"generator": "tests/make_gpt2_fixtures.py (torch %s)" % torch.__version__,
           "text": text, "ids": ids, "n_layer": n_layer, "n_head": H, "n_embd": C,
           "layers": [{k: as_list(v) for k, v in L.items()} for L in layers],
           "logits": as_list(logits)}
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(ref, f)
        f.write("\n")


if __name__ == "__main__":
    torch.set_num_threads(1)
    write_model("gpt2-tiny", 1, 2, 2, 16, 32, "the cat sat on the mat. The cat's 12 hats!")
    write_model("gpt2-prefix", 2, 1, 1, 64, 16, "the cat sat", prefix="transformer.",
                config=False)
