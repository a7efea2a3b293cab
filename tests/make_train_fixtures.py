#!/usr/bin/python3
"""make_train_fixtures.py: PyTorch training fixtures for tests/test_train.c.

Run by hand (CI never runs it; the fixtures are committed):

    /usr/bin/python3 tests/make_train_fixtures.py

It needs torch (written against Debian's torch 1.13) and numpy, and writes
tests/fixtures/train-NAME.json. Each file is a valid attnview weights file
("config" + "params": the INITIAL parameters) with a "reference" object:

  "sample"       a sample (sample.h) holding the corpus ("sentences"), the
                 vocabulary and the "training" settings (lr, optimizer, target,
                 pairs, track); the test loads it with av_sample_parse
  "train_params" "qkv" or "all" (train.h)
  "epochs"       how many epochs were run
  "loss"         the loss of every epoch: the sum over the corpus of
                 mean((weights - target)^2) (seed 001's total_loss)
  "grad_step1"   the gradient of every trained tensor at the first step
  "final"        every trained tensor after the last epoch
  "track"        the tracked pair's vocabulary score q(a).k(b)/(s T) per head
                 (token embeddings only, no position), before training and
                 after each epoch: epochs + 1 rows of H numbers
  "vocab_scores" the same for every pair of vocabulary words after training,
                 (H, V, V)

How the numbers are made:
  * Initial parameters are drawn with torch in float32 under
    torch.manual_seed, rounded to 4 decimals and converted back to float32,
    so the C loader reads exactly the float32 values used here.
  * Training runs in float64 from those values with torch.optim.Adam or
    torch.optim.SGD over nn.Parameter tensors, autograd, one optimiser step
    per sentence in corpus order: the reference. attnview's forward pass is
    float32 (its sums in double), its backward pass double, its optimiser
    float32 (parameters and Adam's moments, as torch.optim keeps them for a
    float32 model).
  * The same training is run again in float32 and the largest relative
    difference from the float64 reference is printed: it shows how far
    PyTorch itself moves when only the precision changes.
  * train-china-panda is seed 001's loop itself (section 5): Wq, Wk, Wv =
    nn.Parameter(torch.randn(3, 3)) used as x @ Wq, embeddings +
    positions(arange(n)), scores / sqrt(3), softmax, loss = mean((weights -
    torch.eye(n))**2), Adam([Wq, Wk, Wv], lr=0.01), 200 epochs. The generic
    computation (train_reference below, with w_q = Wq.T in nn.Linear layout)
    is asserted to agree with it to 1e-10. The seed's scale is
    torch.sqrt(torch.tensor(3.0)), a float32; the float64 run uses the float64
    sqrt(3) (attnview's divisor is sqrt(dh) in double), a 1.8e-8 relative
    difference in the scores, far below the tolerance.
  * Seed 001 has no output projection: its fixture stores w_o = identity,
    no bias; the loss does not look at W_v or W_o anyway.

Target patterns (train.h): self = identity (cross: key min(i, m-1)); previous
= key max(i-1, 0) (cross: clamped to m-1); pairs = the key holding a partner
of the query's word (either order), the nearest to position i (earlier on a
tie), else itself (cross: key min(i, m-1)). In cross mode a corpus entry is
"TARGET ||| SOURCE".
"""

import json
import math
import os

import numpy as np
import torch
import torch.nn as nn

# the number formats and helpers the forward-pass fixtures use
from make_fixtures import divisor, fmt4, fmt17, round4, seed001_params, sinusoidal, vec_text

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "fixtures")
MASKED_VALUE = -1e20
SEP = "|||"
LINEAR = ("w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o")
QKV = ("w_q", "b_q", "w_k", "b_k", "w_v", "b_v")
ORDER = ("token_embedding", "position_embedding") + LINEAR


# --- numbers ----------------------------------------------------------------

def tensor_text(t, fmt, indent):
    if t.dim() == 1:
        return vec_text(t.tolist(), fmt)
    pad = "\n" + "\t" * (indent + 1)
    rows = [tensor_text(r, fmt, indent + 1) for r in t]
    return "[" + pad + ("," + pad).join(rows) + "\n" + "\t" * indent + "]"


# --- the model -------------------------------------------------------------

def embed(P, cfg, vocab, words):
    ids = torch.tensor([vocab.index(w) for w in words])
    x = P["token_embedding"][ids]
    n = len(words)
    if cfg["positional"] == "learned":
        x = x + P["position_embedding"][:n]
    elif cfg["positional"] == "sinusoidal":
        x = x + sinusoidal(n, cfg["d_model"]).to(x.dtype)
    return x


def lin(P, cfg, x, name):
    y = x @ P["w_" + name].T
    if cfg["bias"]:
        y = y + P["b_" + name]
    return y


def attention_weights(P, cfg, vocab, query, source):
    """(H, n, m) attention weights, attnview's forward pass up to the softmax."""
    x = embed(P, cfg, vocab, query)
    xs = embed(P, cfg, vocab, source) if cfg["mode"] == "cross" else x
    n, m = x.shape[0], xs.shape[0]
    q, k = lin(P, cfg, x, "q"), lin(P, cfg, xs, "k")
    mask = torch.ones(n, m, dtype=torch.bool)
    if cfg["mode"] == "causal":
        mask = torch.tril(mask)
    dh = cfg["d_model"] // cfg["heads"]
    heads = []
    for h in range(cfg["heads"]):
        cols = slice(h * dh, (h + 1) * dh)
        scaled = (q[:, cols] @ k[:, cols].T) / divisor(cfg)
        masked = scaled.masked_fill(~mask, MASKED_VALUE)
        heads.append(torch.softmax(masked, dim=-1))
    return torch.stack(heads)


def target_pattern(kind, cross, q, k, pairs):
    n, m = len(q), len(k)
    t = torch.zeros(n, m, dtype=torch.float64)

    def partner(a, b):
        return any((p == a and r == b) or (r == a and p == b) for p, r in pairs)

    for i in range(n):
        j = min(i, m - 1)
        if kind == "previous":
            j = min(max(i - 1, 0), m - 1)
        elif kind == "pairs":
            best = None
            for c in range(m):
                if partner(q[i], k[c]) and (best is None or abs(c - i) < abs(best - i)):
                    best = c
            if best is not None:
                j = best
        t[i, j] = 1
    return t


def corpus(fx):
    """[(query words, key words)] of the sample's sentences."""
    s, cross = fx["sample"], fx["config"]["mode"] == "cross"
    out = []
    for entry in s["sentences"]:
        q, _, src = entry.partition(SEP)
        q = q.split()
        if cross:
            src = src.split() if SEP in entry else s["source"].split()
            out.append((q, src))
        else:
            out.append((q, q))
    return out


def vocab_scores(P, cfg, vocab):
    """(H, V, V): q_h(a) . k_h(b) / (s T), token embeddings alone."""
    e = P["token_embedding"]
    q, k = lin(P, cfg, e, "q"), lin(P, cfg, e, "k")
    dh = cfg["d_model"] // cfg["heads"]
    return torch.stack([(q[:, h * dh:(h + 1) * dh] @ k[:, h * dh:(h + 1) * dh].T) / divisor(cfg)
                        for h in range(cfg["heads"])])


def trained_names(fx):
    cfg = fx["config"]
    names = []
    for name in ORDER:
        if name not in fx["params"]:
            continue
        if fx["train_params"] == "all" or name in QKV:
            names.append(name)
    return names


def train_reference(fx, dtype):
    """The training loop in dtype; returns losses, first gradients, final
    tensors, tracked scores and the final vocabulary scores."""
    cfg, s = fx["config"], fx["sample"]
    tr = s["training"]
    vocab = fx["params"]["vocab"]
    names = trained_names(fx)
    P = {}
    for name, t in fx["params"].items():
        if name == "vocab":
            continue
        t = t.to(dtype).clone()
        P[name] = nn.Parameter(t) if name in names else t
    params = [P[n] for n in names]
    if tr["optimizer"] == "adam":
        opt = torch.optim.Adam(params, lr=tr["lr"])
    else:
        opt = torch.optim.SGD(params, lr=tr["lr"])
    pairs = s["training"].get("pairs", [])
    a, b = (vocab.index(w) for w in fx["track"])
    cross = cfg["mode"] == "cross"
    items = [(q, k, target_pattern(tr["target"], cross, q, k, pairs).to(dtype))
             for q, k in corpus(fx)]

    def track():
        with torch.no_grad():
            return vocab_scores(P, cfg, vocab)[:, a, b].tolist()

    losses, tracks, grad1 = [], [track()], None
    for epoch in range(fx["epochs"]):
        total = 0.0
        for q, k, target in items:
            weights = attention_weights(P, cfg, vocab, q, k)
            loss = torch.mean((weights - target) ** 2)
            opt.zero_grad()
            loss.backward()
            if grad1 is None:
                grad1 = {n: (P[n].grad.detach().clone() if P[n].grad is not None
                             else torch.zeros_like(P[n])) for n in names}
            opt.step()
            total += loss.item()
        losses.append(total)
        tracks.append(track())
    with torch.no_grad():
        final = {n: P[n].detach().clone() for n in names}
        vs = vocab_scores(P, cfg, vocab)
    return {"loss": losses, "grad_step1": grad1, "final": final, "track": tracks,
            "vocab_scores": vs}


# --- seed 001 itself ---------------------------------------------------------

def seed001_train(fx, dtype):
    """Seed 001's section-5 loop, as written there (Wq kept (in, out))."""
    p = fx["params"]
    vocab = {w: i for i, w in enumerate(p["vocab"])}
    sentences = [e.split() for e in fx["sample"]["sentences"]]
    embedding = nn.Embedding(len(vocab), 3).to(dtype)
    positions = nn.Embedding(2, 3).to(dtype)
    with torch.no_grad():
        embedding.weight.copy_(p["token_embedding"].to(dtype))
        positions.weight.copy_(p["position_embedding"].to(dtype))
    Wq = nn.Parameter(fx["seed001"]["Wq"].to(dtype).clone())
    Wk = nn.Parameter(fx["seed001"]["Wk"].to(dtype).clone())
    Wv = nn.Parameter(fx["seed001"]["Wv"].to(dtype).clone())
    hidden_dim = 3

    def project(x, matrix):
        return torch.matmul(x, matrix)

    def attention_score(q, k, scale=1.0):
        return torch.matmul(q, k.transpose(-2, -1)) / scale

    # the seed: torch.sqrt(torch.tensor(hidden_dim, dtype=torch.float32))
    scale = torch.sqrt(torch.tensor(hidden_dim, dtype=dtype))
    optimizer = torch.optim.Adam([Wq, Wk, Wv], lr=0.01)
    losses = []
    for epoch in range(200):
        total_loss = 0
        for sentence in sentences:
            indices = torch.tensor([vocab[w] for w in sentence])
            embeds = embedding(indices) + positions(torch.arange(len(sentence)))
            Q = project(embeds, Wq)
            K = project(embeds, Wk)
            V = project(embeds, Wv)
            scores = attention_score(Q, K, scale)
            weights = torch.softmax(scores, dim=-1)
            output = torch.matmul(weights, V)  # noqa: F841 (as in the seed)
            target_scores = torch.eye(len(sentence), dtype=dtype)
            loss = torch.mean((weights - target_scores) ** 2)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        losses.append(total_loss)
    return losses, {"w_q": Wq.detach().T, "w_k": Wk.detach().T, "w_v": Wv.detach().T}


def check_seed001(fx, ref):
    losses, final = seed001_train(fx, torch.float64)
    for e, (x, y) in enumerate(zip(losses, ref["loss"])):
        assert abs(x - y) <= 1e-10 * max(1.0, abs(y)), ("seed001 loss", e, x, y)
    for name, t in final.items():
        d = (t - ref["final"][name]).abs().max().item()
        assert d <= 1e-10, ("seed001 final", name, d)
    print("  seed 001's own loop (float64) agrees with the generic one")


# --- the fixtures -------------------------------------------------------------

def config(d, heads, mode, scale, temperature, positional, bias, seed, max_positions):
    return {"d_model": d, "heads": heads, "mode": mode, "scale": scale,
            "temperature": temperature, "positional": positional, "bias": bias,
            "seed": seed, "init": "torch", "max_positions": max_positions}


def draw_params(cfg, vocab):
    """Embeddings N(0,1) as nn.Embedding; projections as nn.Linear."""
    d = cfg["d_model"]
    p = {"vocab": list(vocab), "token_embedding": round4(nn.Embedding(len(vocab), d).weight)}
    if cfg["positional"] == "learned":
        p["position_embedding"] = round4(nn.Embedding(cfg["max_positions"], d).weight)
    for name in "qkvo":
        layer = nn.Linear(d, d, bias=cfg["bias"])
        p["w_" + name] = round4(layer.weight)
        if cfg["bias"]:
            p["b_" + name] = round4(layer.bias)
    return p


def all_fixtures():
    fxs = []

    # Seed 001, section 5: torch.manual_seed(1); embedding, positions, then
    # Wq, Wk, Wv = torch.randn(3, 3) in that order (as ref-china-panda-style).
    cfg = config(3, 1, "self", "dk", 1, "learned", False, 1, 2)
    vocab = ["china", "panda", "australia", "kangaroo", "japan", "cherry"]
    seed001, params = seed001_params(vocab)
    fxs.append({
        "name": "train-china-panda", "config": cfg, "params": params, "seed001": seed001,
        "train_params": "qkv", "epochs": 200, "track": ["china", "panda"],
        "sample": {"name": "train-china-panda", "sentence": "china panda",
                   "sentences": ["china panda", "australia kangaroo", "japan cherry"],
                   "vocab": vocab,
                   "training": {"epochs": 200, "lr": 0.01, "optimizer": "adam",
                                "target": "self",
                                "pairs": [["china", "panda"], ["australia", "kangaroo"],
                                          ["japan", "cherry"]],
                                "track": ["china", "panda"]}},
        "describe": "seed 001's training loop (section 5) in float64: Wq, Wk, Wv = "
                    "nn.Parameter (in, out), Q = embeds @ Wq, embeds = embedding + "
                    "positions(arange(n)), scores / sqrt(3), softmax, loss = mean((weights "
                    "- eye(n))**2), torch.optim.Adam([Wq, Wk, Wv], lr=0.01), one step per "
                    "sentence, 200 epochs; w_q = Wq.T (nn.Linear layout), w_o = identity"})

    # Two heads with biases, the pairs target, plain SGD.
    cfg = config(4, 2, "self", "dk", 1, "learned", True, 21, 4)
    vocab = ["china", "panda", "australia", "kangaroo", "japan", "cherry"]
    torch.manual_seed(21)
    fxs.append({
        "name": "train-pairs-sgd", "config": cfg, "params": draw_params(cfg, vocab),
        "train_params": "qkv", "epochs": 50, "track": ["panda", "china"],
        "sample": {"name": "train-pairs-sgd", "sentence": "china panda",
                   "sentences": ["china panda", "kangaroo australia japan",
                                 "japan cherry china panda", "cherry japan cherry"],
                   "vocab": vocab,
                   "training": {"epochs": 50, "lr": 0.5, "optimizer": "sgd",
                                "target": "pairs",
                                "pairs": [["china", "panda"], ["australia", "kangaroo"],
                                          ["japan", "cherry"]],
                                "track": ["panda", "china"]}},
        "describe": "float64 torch autograd, torch.optim.SGD(lr=0.5) over w_q, b_q, w_k, "
                    "b_k, w_v, b_v (nn.Parameter), D=4, H=2, learned positions, target "
                    "pairs, 50 epochs"})

    # Cross attention, every parameter trained, Adam, corpus "TARGET ||| SOURCE"
    # (and one entry without a source: the sample's).
    cfg = config(4, 2, "cross", "dk", 1, "sinusoidal", True, 22, 64)
    vocab = ["le", "chat", "mange", "poisson", "the", "cat", "eats", "fish"]
    torch.manual_seed(22)
    fxs.append({
        "name": "train-cross-all", "config": cfg, "params": draw_params(cfg, vocab),
        "train_params": "all", "epochs": 50, "track": ["chat", "cat"],
        "sample": {"name": "train-cross-all", "sentence": "le chat mange le poisson",
                   "source": "the cat eats the fish",
                   "sentences": ["le chat mange le poisson ||| the cat eats the fish",
                                 "le chat ||| the cat", "poisson ||| fish",
                                 "le poisson mange"],
                   "vocab": vocab,
                   "training": {"epochs": 50, "lr": 0.02, "optimizer": "adam",
                                "target": "pairs",
                                "pairs": [["le", "the"], ["chat", "cat"], ["mange", "eats"],
                                          ["poisson", "fish"]],
                                "track": ["chat", "cat"]}},
        "describe": "float64 torch autograd, torch.optim.Adam(lr=0.02) over every "
                    "parameter (token embeddings, w_q ... b_o), cross mode (queries from "
                    "the entry's left of |||, keys from its right, or the sample's source), "
                    "sinusoidal positions, target pairs, 50 epochs"})

    # Causal mask, the previous target, learned positions trained too.
    cfg = config(4, 2, "causal", "dmodel", 1.5, "learned", False, 23, 5)
    vocab = ["we", "read", "one", "word", "at", "a", "time"]
    torch.manual_seed(23)
    fxs.append({
        "name": "train-causal-previous", "config": cfg, "params": draw_params(cfg, vocab),
        "train_params": "all", "epochs": 50, "track": ["word", "one"],
        "sample": {"name": "train-causal-previous", "sentence": "we read one word",
                   "sentences": ["we read one word", "one word at a time", "we read"],
                   "vocab": vocab,
                   "training": {"epochs": 50, "lr": 0.01, "optimizer": "adam",
                                "target": "previous", "track": ["word", "one"]}},
        "describe": "float64 torch autograd, torch.optim.Adam(lr=0.01) over every "
                    "parameter (token and learned position embeddings, w_q ... w_o), "
                    "causal mask, scale sqrt(D) with temperature 1.5, target previous, "
                    "50 epochs"})
    return fxs


# --- writing ------------------------------------------------------------------

def fixture_text(fx, ref):
    cfg, p = fx["config"], fx["params"]
    out = ["{", '\t"format": "attnview-weights",', '\t"version": 1,',
           '\t"config": ' + json.dumps(cfg) + ",", '\t"params": {']
    items = ['\t\t"vocab": ' + json.dumps(p["vocab"])]
    for name in ORDER:
        if name in p:
            items.append('\t\t"%s": %s' % (name, tensor_text(p[name], fmt4, 2)))
    out.append(",\n".join(items))
    out.append("\t},")
    out.append('\t"reference": {')
    items = ['\t\t"generator": ' + json.dumps(fx["describe"] + " (torch %s)" % torch.__version__),
             '\t\t"sample": ' + json.dumps(fx["sample"]),
             '\t\t"train_params": ' + json.dumps(fx["train_params"]),
             '\t\t"epochs": %d' % fx["epochs"],
             '\t\t"loss": ' + vec_text(ref["loss"], fmt17)]
    for key in ("grad_step1", "final"):
        parts = ['\t\t\t"%s": %s' % (n, tensor_text(t, fmt17, 3)) for n, t in ref[key].items()]
        items.append('\t\t"%s": {\n%s\n\t\t}' % (key, ",\n".join(parts)))
    items.append('\t\t"track_pair": ' + json.dumps(fx["track"]))
    items.append('\t\t"track": ' + tensor_text(torch.tensor(ref["track"], dtype=torch.float64),
                                                fmt17, 2))
    items.append('\t\t"vocab_scores": ' + tensor_text(ref["vocab_scores"], fmt17, 2))
    out.append(",\n".join(items))
    out.append("\t}")
    out.append("}")
    return "\n".join(out) + "\n"


def max_rel(a, b):
    a, b = a.to(torch.float64), b.to(torch.float64)
    return ((a - b).abs() / b.abs().clamp(min=1.0)).max().item()


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for fx in all_fixtures():
        for key, t in fx["params"].items():
            if key != "vocab":
                assert t.dtype == torch.float32, key
        print(fx["name"])
        ref = train_reference(fx, torch.float64)
        if "seed001" in fx:
            check_seed001(fx, ref)
        f32 = train_reference(fx, torch.float32)
        rels = {n: max_rel(f32["final"][n], ref["final"][n]) for n in ref["final"]}
        worst = max((n for n in rels if n != "b_k"), key=lambda n: rels[n])
        lrel = max_rel(torch.tensor(f32["loss"]), torch.tensor(ref["loss"]))
        print("  loss: epoch 1 %.6g, epoch %d %.6g" % (ref["loss"][0], fx["epochs"],
                                                     ref["loss"][-1]))
        print("  float32 torch vs float64: loss max rel diff %.3g, final %s %.3g"
              % (lrel, worst, rels[worst]))
        if "b_k" in rels and fx["sample"]["training"]["optimizer"] == "adam":
            # b_k's true gradient is 0 (the softmax ignores q.b_k); float32
            # rounding leaves ~1e-8, which Adam divides by sqrt(v) + 1e-8
            print("  (float32 torch b_k: max rel diff %.3g, Adam amplifying rounding noise "
                  "in a zero gradient)" % rels["b_k"])
        text = fixture_text(fx, ref)
        path = os.path.join(OUT_DIR, fx["name"] + ".json")
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        print("  %s: %d bytes" % (os.path.relpath(path), len(text)))


if __name__ == "__main__":
    main()
