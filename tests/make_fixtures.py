#!/usr/bin/python3
"""make_fixtures.py: PyTorch reference fixtures for tests/test_reference.c.

Run by hand (CI never runs it; the fixtures are committed):

    /usr/bin/python3 tests/make_fixtures.py

It needs torch (written against Debian's torch 1.13) and numpy, and writes
tests/fixtures/ref-NAME.json. Each file is a valid attnview weights file
("config" + "params") with a "reference" object holding the input sentence(s),
the hidden key positions and every stage of the forward pass as PyTorch
computes it:

  X = token_embedding[ids] + position(pos)     (Xs likewise for the source)
  Q = X W_q^T + b_q, K = Xs W_k^T + b_k, V = Xs W_v^T + b_v  (nn.Linear layout)
  per head h (columns h*dh .. (h+1)*dh-1):
    scores = Q_h K_h^T; scaled = scores / (s T); masked = scaled with hidden
    cells set to -1e20; weights = softmax(masked) row-wise; context = weights V_h
  concat = heads side by side; output = concat W_o^T + b_o; residual = output + X

How the numbers are made:
  * Parameters are drawn with torch in float32 (torch.manual_seed per
    fixture), rounded to 4 decimal places and converted back to float32; the
    file prints them with at most 4 decimals, so the C loader (strtod, then a
    cast to float) gets exactly the float32 values used here.
  * The stages are computed in float64 from those float32 values and printed
    with Python's repr (shortest round-trip, 17 significant digits at most).
  * Each fixture is produced by the torch code named in reference.generator
    (nn.MultiheadAttention, seed 000's SelfAttention class or its
    scaled_dot_product_attention, seed 001's china-panda code). The
    intermediate stages come from a step-by-step float64 computation
    (manual_forward below) and the script asserts that it agrees with the
    generator to 1e-10 in float64, and that a float32 run of the same torch
    code agrees with the float64 reference to 1e-4 relative.

Seed 001 (china-panda) multiplies x @ Wq with Wq stored (in, out); attnview
keeps nn.Linear's (out, in) layout and computes x W_q^T, so its fixture stores
w_q = Wq.T (likewise w_k, w_v). Seed 001 has no output projection: its fixture
stores w_o = identity (no bias), so output = context and residual = context + X
as in the seed's `final_output = updated_china + china_embed`.
"""

import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "fixtures")
MASKED_VALUE = -1e20          # seed 000's masked_fill value, attnview's too
GENERATOR_TOL = 1e-10         # float64 generator vs float64 manual stages
FLOAT32_TOL = 1e-4            # float32 torch vs float64 reference (relative)


# --- parameters ---------------------------------------------------------

def round4(t):
    """float32 tensor -> float32 tensor of its values rounded to 4 decimals.

    np.round gives the double nearest to k/10000; casting that double to
    float32 is exactly what the C loader does with the printed "0.1234"."""
    a = np.round(t.detach().to(torch.float64).cpu().numpy(), 4)
    return torch.from_numpy(a.astype(np.float32))


def fmt4(x):
    """A rounded parameter as JSON text with at most 4 decimals."""
    s = "%.4f" % x
    s = s.rstrip("0").rstrip(".")
    if s in ("-0", ""):
        s = "0"
    assert np.float32(float(s)) == np.float32(x), (s, x)
    return s


def fmt17(x):
    """A reference value: Python's repr (round-trips the float64)."""
    x = float(x)
    assert math.isfinite(x), x
    if x == 0.0:
        return "0"
    return repr(x)


def sinusoidal(n, d):
    """PE[pos, 2i] = sin(pos / 10000^(2i/D)), PE[pos, 2i+1] = cos(...), float64."""
    pe = torch.zeros(n, d, dtype=torch.float64)
    for pos in range(n):
        for c in range(d):
            i2 = c - c % 2
            angle = pos / (10000.0 ** (i2 / d))
            pe[pos, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


def linear_params(d, bias):
    """nn.Linear's default (kaiming-uniform) initialisation, drawn in float32."""
    lin = nn.Linear(d, d, bias=bias)
    return lin.weight.detach().clone(), (lin.bias.detach().clone() if bias else None)


def draw_params(cfg, vocab):
    """Embeddings as nn.Embedding draws them (N(0,1)), projections as
    nn.Linear does; everything rounded to 4 decimals. Call after manual_seed."""
    d = cfg["d_model"]
    p = {"vocab": list(vocab)}
    p["token_embedding"] = round4(nn.Embedding(len(vocab), d).weight)
    if cfg["positional"] == "learned":
        p["position_embedding"] = round4(nn.Embedding(cfg["max_positions"], d).weight)
    for name in ("q", "k", "v", "o"):
        w, b = linear_params(d, cfg["bias"])
        p["w_" + name] = round4(w)
        if cfg["bias"]:
            p["b_" + name] = round4(b)
    return p


# --- the reference computation -------------------------------------------

def embed(p, cfg, words, dtype):
    """X = token_embedding[ids] + position(pos), positions 0..len-1."""
    ids = torch.tensor([p["vocab"].index(w) for w in words])
    x = p["token_embedding"].to(dtype)[ids]
    n = len(words)
    if cfg["positional"] == "learned":
        assert n <= cfg["max_positions"]
        x = x + p["position_embedding"].to(dtype)[:n]
    elif cfg["positional"] == "sinusoidal":
        x = x + sinusoidal(n, cfg["d_model"]).to(dtype)
    return x


def divisor(cfg):
    d, h = cfg["d_model"], cfg["heads"]
    s = {"dk": math.sqrt(d // h), "dmodel": math.sqrt(d), "none": 1.0}[cfg["scale"]]
    return s * cfg["temperature"]


def make_mask(cfg, n, m, mask_keys):
    mask = torch.ones(n, m, dtype=torch.int64)
    if cfg["mode"] == "causal":
        mask = torch.tril(mask)
    for j in mask_keys:
        mask[:, j] = 0
    return mask


def manual_forward(p, cfg, sentence, source, mask_keys, dtype):
    """Every stage of attnview's forward pass, step by step, in dtype."""
    words = sentence.split(" ")
    x = embed(p, cfg, words, dtype)
    xs = embed(p, cfg, source.split(" "), dtype) if cfg["mode"] == "cross" else x
    n, m = x.shape[0], xs.shape[0]
    d, nh = cfg["d_model"], cfg["heads"]
    dh = d // nh

    def lin(a, name):
        y = a @ p["w_" + name].to(dtype).T
        if cfg["bias"]:
            y = y + p["b_" + name].to(dtype)
        return y

    q, k, v = lin(x, "q"), lin(xs, "k"), lin(xs, "v")
    mask = make_mask(cfg, n, m, mask_keys)
    div = divisor(cfg)
    heads = []
    for h in range(nh):
        cols = slice(h * dh, (h + 1) * dh)
        scores = q[:, cols] @ k[:, cols].T
        scaled = scores / div
        masked = scaled.masked_fill(mask == 0, MASKED_VALUE)
        weights = torch.softmax(masked, dim=-1)
        context = weights @ v[:, cols]
        heads.append({"scores": scores, "scaled": scaled, "masked": masked,
                      "weights": weights, "context": context})
    concat = torch.cat([hd["context"] for hd in heads], dim=1)
    output = lin(concat, "o")
    residual = output + x
    st = {"embedding": x}
    if cfg["mode"] == "cross":
        st["source_embedding"] = xs
    st.update({"q": q, "k": k, "v": v, "mask": mask, "heads": heads,
               "concat": concat, "output": output, "residual": residual})
    return st


def max_diff(a, b):
    return (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()


def assert_close(name, got, want, tol):
    diff = max_diff(got, want)
    assert diff <= tol, "%s: differs by %g (tolerance %g)" % (name, diff, tol)


def assert_rel_close(name, got, want, tol):
    got, want = got.to(torch.float64), want.to(torch.float64)
    rel = ((got - want).abs() / want.abs().clamp(min=1.0)).max().item()
    assert rel <= tol, "%s: relative difference %g (tolerance %g)" % (name, rel, tol)


def check_float32(fx, ref):
    """Sanity: the float32 computation agrees with the float64 reference."""
    st = manual_forward(fx["params"], fx["config"], fx["sentence"], fx.get("source"),
                        fx["mask_keys"], torch.float32)
    for key in ("embedding", "source_embedding", "q", "k", "v", "concat", "output", "residual"):
        if key in ref:
            assert_rel_close(fx["name"] + " float32 " + key, st[key], ref[key], FLOAT32_TOL)
    assert torch.equal(st["mask"], ref["mask"])
    for h, (a, b) in enumerate(zip(st["heads"], ref["heads"])):
        for key in a:
            assert_rel_close("%s float32 head %d %s" % (fx["name"], h, key),
                             a[key], b[key], FLOAT32_TOL)


# --- generators -----------------------------------------------------------

def mha_generator(fx, ref):
    """nn.MultiheadAttention with attnview's parameters: its output and per-head
    weights must equal the manual stages (float64), and a float32 MHA must agree
    with them to FLOAT32_TOL."""
    p, cfg = fx["params"], fx["config"]
    d, nh = cfg["d_model"], cfg["heads"]
    assert cfg["bias"] and cfg["scale"] == "dk" and cfg["temperature"] == 1
    for dtype, tol, close in ((torch.float64, GENERATOR_TOL, assert_close),
                              (torch.float32, FLOAT32_TOL, assert_rel_close)):
        mha = nn.MultiheadAttention(d, nh, bias=True, batch_first=True).to(dtype)
        mha.eval()
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat([p["w_q"], p["w_k"], p["w_v"]]).to(dtype))
            mha.in_proj_bias.copy_(torch.cat([p["b_q"], p["b_k"], p["b_v"]]).to(dtype))
            mha.out_proj.weight.copy_(p["w_o"].to(dtype))
            mha.out_proj.bias.copy_(p["b_o"].to(dtype))
            x = embed(p, cfg, fx["sentence"].split(" "), dtype)
            xs = embed(p, cfg, fx["source"].split(" "), dtype) if cfg["mode"] == "cross" else x
            n, m = x.shape[0], xs.shape[0]
            attn_mask = None
            if cfg["mode"] == "causal":       # True = not allowed to attend
                attn_mask = torch.triu(torch.ones(n, m, dtype=torch.bool), diagonal=1)
            kpm = None
            if fx["mask_keys"]:
                kpm = torch.zeros(1, m, dtype=torch.bool)
                kpm[0, fx["mask_keys"]] = True
            out, w = mha(x[None], xs[None], xs[None], key_padding_mask=kpm,
                         need_weights=True, attn_mask=attn_mask,
                         average_attn_weights=False)
        name = "%s MHA %s" % (fx["name"], dtype)
        close(name + " output", out[0], ref["output"], tol)
        for h in range(nh):
            close("%s weights head %d" % (name, h), w[0, h], ref["heads"][h]["weights"], tol)


class SelfAttention(nn.Module):
    """Seed 000's SelfAttention (section 2.1 / 5.1), as written there; the
    only addition is keeping `attention` on self so the script can check it."""

    def __init__(self, embed_size, heads):
        super(SelfAttention, self).__init__()
        self.embed_size = embed_size
        self.heads = heads
        self.head_dim = embed_size // heads
        assert (
            self.head_dim * heads == embed_size
        ), "Embedding size needs to be divisible by heads"
        self.values = nn.Linear(embed_size, embed_size)
        self.keys = nn.Linear(embed_size, embed_size)
        self.queries = nn.Linear(embed_size, embed_size)
        self.fc_out = nn.Linear(embed_size, embed_size)

    def forward(self, values, keys, query, mask):
        N = query.shape[0]
        value_len, key_len, query_len = values.shape[1], keys.shape[1], query.shape[1]
        values = self.values(values)  # (N, value_len, embed_size)
        keys = self.keys(keys)  # (N, key_len, embed_size)
        queries = self.queries(query)  # (N, query_len, embed_size)
        # 分割多头
        values = values.reshape(N, value_len, self.heads, self.head_dim)
        keys = keys.reshape(N, key_len, self.heads, self.head_dim)
        queries = queries.reshape(N, query_len, self.heads, self.head_dim)
        # 计算注意力
        energy = torch.einsum("nqhd,nkhd->nhqk", [queries, keys])
        if mask is not None:
            energy = energy.masked_fill(mask == 0, float("-1e20"))
        attention = torch.softmax(energy / (self.embed_size ** (1 / 2)), dim=3)
        self.attention = attention
        out = torch.einsum("nhql,nlhd->nqhd", [attention, values]).reshape(
            N, query_len, self.heads * self.head_dim
        )
        out = self.fc_out(out)
        return out


def seed000_class_params(cfg, vocab):
    """The seed's class initialises its own nn.Linear layers (values, keys,
    queries, fc_out, in that order); the embedding is drawn first."""
    d = cfg["d_model"]
    p = {"vocab": list(vocab)}
    p["token_embedding"] = round4(nn.Embedding(len(vocab), d).weight)
    model = SelfAttention(d, cfg["heads"])
    for attr, name in (("queries", "q"), ("keys", "k"), ("values", "v"), ("fc_out", "o")):
        layer = getattr(model, attr)
        p["w_" + name] = round4(layer.weight)
        p["b_" + name] = round4(layer.bias)
    return p


def seed000_class_generator(fx, ref):
    """Seed 000's class with mask = tril(ones): it masks energy before dividing
    by sqrt(embed_size), attnview divides then masks; the weights are the same
    (hidden cells underflow to exactly 0 either way)."""
    p, cfg = fx["params"], fx["config"]
    assert cfg["scale"] == "dmodel" and cfg["temperature"] == 1 and cfg["mode"] == "causal"
    for dtype, tol, close in ((torch.float64, GENERATOR_TOL, assert_close),
                              (torch.float32, FLOAT32_TOL, assert_rel_close)):
        model = SelfAttention(cfg["d_model"], cfg["heads"]).to(dtype)
        with torch.no_grad():
            for attr, name in (("queries", "q"), ("keys", "k"), ("values", "v"),
                               ("fc_out", "o")):
                getattr(model, attr).weight.copy_(p["w_" + name].to(dtype))
                getattr(model, attr).bias.copy_(p["b_" + name].to(dtype))
            x = embed(p, cfg, fx["sentence"].split(" "), dtype)[None]
            n = x.shape[1]
            mask = torch.tril(torch.ones(n, n)).expand(1, 1, n, n)
            out = model(x, x, x, mask)
        name = "%s seed000 class %s" % (fx["name"], dtype)
        close(name + " output", out[0], ref["output"], tol)
        for h in range(cfg["heads"]):
            close("%s weights head %d" % (name, h), model.attention[0, h],
                  ref["heads"][h]["weights"], tol)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Seed 000's function (section 4.1), as written there."""
    d_k = Q.size(-1)
    attention_scores = torch.matmul(Q, K.transpose(-2, -1)) / torch.sqrt(torch.tensor(d_k))
    if mask is not None:
        attention_scores = attention_scores.masked_fill(mask == 0, float("-1e20"))
    attention_weights = F.softmax(attention_scores, dim=-1)
    output = torch.matmul(attention_weights, V)
    return output, attention_weights


def seed000_sdpa_generator(fx, ref):
    """Seed 000's scaled_dot_product_attention on each head's Q_h, K_h, V_h
    (its divisor torch.sqrt(torch.tensor(d_k)) is a float32 tensor: exact for
    d_k = 4), then concat and W_o."""
    p, cfg = fx["params"], fx["config"]
    d, nh = cfg["d_model"], cfg["heads"]
    dh = d // nh
    assert cfg["scale"] == "dk" and cfg["temperature"] == 1 and cfg["mode"] == "self"
    assert math.sqrt(dh) == float(torch.sqrt(torch.tensor(dh)))
    for dtype, tol, close in ((torch.float64, GENERATOR_TOL, assert_close),
                              (torch.float32, FLOAT32_TOL, assert_rel_close)):
        x = embed(p, cfg, fx["sentence"].split(" "), dtype)
        q = x @ p["w_q"].to(dtype).T
        k = x @ p["w_k"].to(dtype).T
        v = x @ p["w_v"].to(dtype).T
        outs = []
        for h in range(nh):
            cols = slice(h * dh, (h + 1) * dh)
            out_h, w_h = scaled_dot_product_attention(q[:, cols], k[:, cols], v[:, cols])
            name = "%s seed000 sdpa %s head %d" % (fx["name"], dtype, h)
            close(name + " weights", w_h, ref["heads"][h]["weights"], tol)
            close(name + " context", out_h, ref["heads"][h]["context"], tol)
            outs.append(out_h)
        out = torch.cat(outs, dim=1) @ p["w_o"].to(dtype).T
        close("%s seed000 sdpa %s output" % (fx["name"], dtype), out, ref["output"], tol)


def manual_generator(fx, ref):
    """No torch module has a temperature: the reference is manual_forward
    itself (float64), checked against float32 only (check_float32)."""


def seed001_generator(fx, ref):
    """Seed 001's china-panda code: project(x, W) = x @ W with W (in, out),
    scale = sqrt(hidden_dim), softmax, weights @ V, + embeds (no W_o)."""
    p, cfg = fx["params"], fx["config"]
    for dtype, tol, close in ((torch.float64, GENERATOR_TOL, assert_close),
                              (torch.float32, FLOAT32_TOL, assert_rel_close)):
        Wq, Wk, Wv = (fx["seed001"][w].to(dtype) for w in ("Wq", "Wk", "Wv"))

        def project(x, matrix):
            return torch.matmul(x, matrix)

        def attention_score(q, k, scale=1.0):
            return torch.matmul(q, k.transpose(-2, -1)) / scale

        indices = torch.tensor([p["vocab"].index(w) for w in fx["sentence"].split(" ")])
        embeds = (p["token_embedding"].to(dtype)[indices]
                  + p["position_embedding"].to(dtype)[torch.arange(len(indices))])
        Q, K, V = project(embeds, Wq), project(embeds, Wk), project(embeds, Wv)
        # The seed's scale is a float32 tensor; use the dtype being checked.
        scale = torch.sqrt(torch.tensor(cfg["d_model"], dtype=dtype))
        scores = attention_score(Q, K, scale)
        weights = torch.softmax(scores, dim=-1)
        output = torch.matmul(weights, V)
        final_output = output + embeds
        name = "%s seed001 %s" % (fx["name"], dtype)
        close(name + " scores", scores, ref["heads"][0]["scaled"], tol)
        close(name + " weights", weights, ref["heads"][0]["weights"], tol)
        close(name + " output", output, ref["output"], tol)
        close(name + " final_output", final_output, ref["residual"], tol)


# --- the fixtures ---------------------------------------------------------

def seed001_params(vocab):
    """Seed 001's parameters: torch.manual_seed(1); embedding = nn.Embedding(6, 3),
    positions = nn.Embedding(2, 3), then Wq, Wk, Wv = torch.randn(3, 3) (in, out),
    in that order. Returns the seed's matrices and attnview's params, where
    w_q = Wq.T (nn.Linear layout) and w_o is the identity (the seed has none)."""
    torch.manual_seed(1)
    tok = round4(nn.Embedding(len(vocab), 3).weight)
    pos = round4(nn.Embedding(2, 3).weight)
    seed001 = {w: round4(torch.randn(3, 3)) for w in ("Wq", "Wk", "Wv")}
    params = {"vocab": vocab, "token_embedding": tok, "position_embedding": pos,
              "w_q": seed001["Wq"].T.contiguous(), "w_k": seed001["Wk"].T.contiguous(),
              "w_v": seed001["Wv"].T.contiguous(), "w_o": torch.eye(3)}
    return seed001, params


def config(d, heads, mode, scale, temperature, positional, bias, seed, max_positions=64):
    return {"d_model": d, "heads": heads, "mode": mode, "scale": scale,
            "temperature": temperature, "positional": positional, "bias": bias,
            "seed": seed, "init": "torch", "max_positions": max_positions}


def fixture(name, cfg, vocab, sentence, generator, describe, source=None, mask_keys=(),
            params=None):
    """Draws the parameters (unless given) under torch.manual_seed(cfg seed)."""
    torch.manual_seed(cfg["seed"])
    if params is None:
        params = draw_params(cfg, vocab)
    fx = {"name": "ref-" + name, "config": cfg, "params": params, "sentence": sentence,
          "mask_keys": list(mask_keys), "generator": generator, "describe": describe}
    if source is not None:
        fx["source"] = source
    return fx


def all_fixtures():
    fxs = []

    fxs.append(fixture(
        "mha-self", config(8, 2, "self", "dk", 1, "sinusoidal", True, 101),
        ["the", "cat", "sat", "on", "a", "mat", "dog", "ran"],
        "the cat sat on a mat", mha_generator,
        "torch.nn.MultiheadAttention(8, 2, batch_first=True) in float64 with in_proj = "
        "[w_q; w_k; w_v], out_proj = w_o: its output and per-head weights "
        "(average_attn_weights=False); the other stages from the step-by-step float64 "
        "computation, asserted equal to MHA's to 1e-10"))

    fxs.append(fixture(
        "mha-causal", config(8, 2, "causal", "dk", 1, "learned", True, 102, max_positions=8),
        ["i", "think", "therefore", "am", "so", "it", "goes"],
        "i think therefore i am so", mha_generator,
        "torch.nn.MultiheadAttention(8, 2, batch_first=True) in float64 with "
        "attn_mask = triu(ones(n, n), diagonal=1) (True = hidden): its output and "
        "per-head weights; the other stages step by step, asserted equal to 1e-10"))

    fxs.append(fixture(
        "mha-cross", config(8, 2, "cross", "dk", 1, "sinusoidal", True, 103),
        ["le", "chat", "noir", "dort", "the", "black", "cat", "sleeps", "on", "mat"],
        "le chat noir dort", mha_generator,
        "torch.nn.MultiheadAttention(8, 2, batch_first=True) in float64, "
        "query = decoder X (the sentence), key = value = encoder Xs (the source, its "
        "own positions 0..m-1): its output and per-head weights; the other stages step "
        "by step, asserted equal to 1e-10",
        source="the black cat sleeps on the mat"))

    fxs.append(fixture(
        "mha-padding", config(8, 2, "self", "dk", 1, "sinusoidal", True, 104),
        ["we", "pad", "this", "short", "line", "here"],
        "we pad this pad short line", mha_generator,
        "torch.nn.MultiheadAttention(8, 2, batch_first=True) in float64 with "
        "key_padding_mask True at key positions 1 and 3: its output and per-head "
        "weights; the other stages step by step, asserted equal to 1e-10",
        mask_keys=[1, 3]))

    cfg = config(512, 8, "causal", "dmodel", 1, "sinusoidal", True, 0)
    vocab = ["the", "cat", "sat", "on", "mats", "le", "chat", "tapis"]
    torch.manual_seed(cfg["seed"])
    fxs.append(fixture(
        "seed000-dmodel-512", cfg, vocab, "the cat sat on mats", seed000_class_generator,
        "seed 000's SelfAttention(512, 8) (einsum energy, masked_fill(mask == 0, -1e20) "
        "with mask = tril(ones(5, 5)), softmax(energy / embed_size ** 0.5), fc_out) in "
        "float64, its nn.Linear layers initialised by torch.manual_seed(0) (embedding "
        "drawn first); the seed masks before dividing, attnview divides then masks "
        "(\"masked\" holds attnview's -1e20): the weights and output are the same, "
        "asserted to 1e-10",
        params=seed000_class_params(cfg, vocab)))

    fxs.append(fixture(
        "seed000-dk", config(16, 4, "self", "dk", 1, "none", False, 6),
        ["keys", "and", "values", "come", "from", "one", "input"],
        "keys and values come from one input", seed000_sdpa_generator,
        "seed 000's scaled_dot_product_attention(Q_h, K_h, V_h) on each head's "
        "columns in float64 (no mask), heads concatenated and multiplied by w_o^T; "
        "weights, context and output asserted equal to the step-by-step stages to 1e-10"))

    fxs.append(fixture(
        "temperature", config(6, 3, "self", "dk", 0.5, "learned", False, 7, max_positions=8),
        ["hot", "cold", "warm", "cool", "tepid"],
        "hot cold warm cool tepid", manual_generator,
        "the step-by-step float64 torch computation (make_fixtures.py manual_forward: "
        "softmax((Q_h K_h^T) / (sqrt(dh) T))); no torch module has a temperature"))

    fxs.append(fixture(
        "scale-none", config(4, 1, "causal", "none", 2.0, "sinusoidal", True, 8),
        ["one", "two", "three", "four"],
        "one two three four", manual_generator,
        "the step-by-step float64 torch computation (make_fixtures.py manual_forward) "
        "with divisor s T = 1 * 2 and a causal mask"))

    # Seed 001: embedding = nn.Embedding(6, 3); positions = nn.Embedding(2, 3);
    # Wq, Wk, Wv = torch.randn(3, 3) (in, out), drawn in that order.
    cfg = config(3, 1, "self", "dk", 1, "learned", False, 1, max_positions=2)
    vocab = ["china", "panda", "australia", "kangaroo", "japan", "cherry"]
    seed001, params = seed001_params(vocab)
    fx = fixture(
        "china-panda-style", cfg, vocab, "china panda", seed001_generator,
        "seed 001's china-panda code in float64 (torch.manual_seed(1); embedding = "
        "nn.Embedding(6, 3), positions = nn.Embedding(2, 3), Wq, Wk, Wv = "
        "torch.randn(3, 3); Q = embeds @ Wq; scores / sqrt(3); softmax; weights @ V; "
        "+ embeds). Seed 001 keeps Wq as (in, out): w_q here is Wq.T (nn.Linear "
        "layout, x . w_q^T = x @ Wq), likewise w_k, w_v; it has no output projection, "
        "so w_o is the identity",
        params=params)
    fx["seed001"] = seed001
    fxs.append(fx)
    return fxs


# --- writing ----------------------------------------------------------------

def vec_text(values, fmt):
    return "[" + ",".join(fmt(x) for x in values) + "]"


def mat_text(m, fmt, indent):
    rows = [vec_text(r, fmt) for r in m.tolist()]
    pad = "\n" + "\t" * (indent + 1)
    return "[" + pad + ("," + pad).join(rows) + "\n" + "\t" * indent + "]"


def mask_text(m, indent):
    return mat_text(m, lambda x: "%d" % x, indent)


def fixture_text(fx, st):
    cfg, p = fx["config"], fx["params"]
    out = ["{", '\t"format": "attnview-weights",', '\t"version": 1,']
    out.append('\t"config": ' + json.dumps(cfg) + ",")
    out.append('\t"params": {')
    items = ['\t\t"vocab": ' + json.dumps(p["vocab"])]
    names = ["token_embedding"]
    if cfg["positional"] == "learned":
        names.append("position_embedding")
    for n in ("q", "k", "v", "o"):
        names.append("w_" + n)
        if cfg["bias"]:
            names.append("b_" + n)
    for name in names:
        t = p[name]
        if t.dim() == 1:
            items.append('\t\t"%s": %s' % (name, vec_text(t.tolist(), fmt4)))
        else:
            items.append('\t\t"%s": %s' % (name, mat_text(t, fmt4, 2)))
    out.append(",\n".join(items))
    out.append("\t},")
    out.append('\t"reference": {')
    items = ['\t\t"generator": ' + json.dumps(fx["describe"] + " (torch %s)" % torch.__version__),
             '\t\t"sentence": ' + json.dumps(fx["sentence"])]
    if "source" in fx:
        items.append('\t\t"source": ' + json.dumps(fx["source"]))
    items.append('\t\t"mask_keys": ' + json.dumps(fx["mask_keys"]))
    stages = []
    for key in ("embedding", "source_embedding", "q", "k", "v"):
        if key in st:
            stages.append('\t\t\t"%s": %s' % (key, mat_text(st[key], fmt17, 3)))
    stages.append('\t\t\t"mask": %s' % mask_text(st["mask"], 3))
    heads = []
    for hd in st["heads"]:
        parts = ['\t\t\t\t\t"%s": %s' % (k, mat_text(hd[k], fmt17, 5))
                 for k in ("scores", "scaled", "masked", "weights", "context")]
        heads.append("\t\t\t\t{\n" + ",\n".join(parts) + "\n\t\t\t\t}")
    stages.append('\t\t\t"heads": [\n' + ",\n".join(heads) + "\n\t\t\t]")
    for key in ("concat", "output", "residual"):
        stages.append('\t\t\t"%s": %s' % (key, mat_text(st[key], fmt17, 3)))
    items.append('\t\t"stages": {\n' + ",\n".join(stages) + "\n\t\t}")
    out.append(",\n".join(items))
    out.append("\t}")
    out.append("}")
    return "\n".join(out) + "\n"


def check_sentence(fx):
    for s in (fx["sentence"], fx.get("source")):
        if s is None:
            continue
        words = s.split(" ")
        for w in words:
            assert w and w.isascii() and w == w.lower() and w.isalpha(), (fx["name"], w)
            assert w in fx["params"]["vocab"], (fx["name"], w)


def main():
    torch.set_printoptions(precision=17)
    os.makedirs(OUT_DIR, exist_ok=True)
    total = 0
    for fx in all_fixtures():
        check_sentence(fx)
        for key, t in fx["params"].items():
            if key != "vocab":
                assert t.dtype == torch.float32, key
        ref = manual_forward(fx["params"], fx["config"], fx["sentence"], fx.get("source"),
                             fx["mask_keys"], torch.float64)
        fx["generator"](fx, ref)
        check_float32(fx, ref)
        for hd in ref["heads"]:
            hidden = ref["mask"] == 0
            assert bool((hd["masked"][hidden] == MASKED_VALUE).all())
            assert bool((hd["weights"][hidden] == 0).all())
        text = fixture_text(fx, ref)
        path = os.path.join(OUT_DIR, fx["name"] + ".json")
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        total += len(text)
        print("%s: %d bytes" % (os.path.relpath(path), len(text)))
    print("total: %d bytes" % total)
    assert total < 12 * 1000 * 1000


if __name__ == "__main__":
    main()
