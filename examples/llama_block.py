#!/usr/bin/env python3
"""A decoder block with Llama-3-8B's dimensions (hidden 4096, 32 query and 8 key/value heads of
128, SwiGLU MLP of 14336), random float16 weights, no download. It is patched with hgemm.patch,
its outputs are checked against the unpatched block's, and the forward time of both is printed at
several token counts, eager and replayed from a CUDA graph.

    python examples/llama_block.py [--tokens 1,16,128,1024,4096] [--repeats 20] [--csv FILE]

Exit status 1 when the patched block's output is off (see check()).
"""

import argparse
import copy
import csv
import math
import sys

import torch
import torch.nn.functional as F

import hgemm

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE = 4096, 32, 8, 128, 14336


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        # In fp32, as Llama's reference does, then back to the input's type.
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * \
            self.weight.to(x.dtype)


def rotary(x, theta=500000.0):
    """Rotary position embedding over the sequence dimension of x [batch, heads, seq, dim]."""
    seq, dim = x.shape[-2], x.shape[-1]
    inv = 1.0 / theta ** (torch.arange(0, dim, 2, device=x.device, dtype=torch.float32) / dim)
    angles = torch.outer(torch.arange(seq, device=x.device, dtype=torch.float32), inv)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class DecoderBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = RMSNorm(HIDDEN)
        self.q_proj = torch.nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
        self.k_proj = torch.nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.v_proj = torch.nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.o_proj = torch.nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
        self.mlp_norm = RMSNorm(HIDDEN)
        self.gate_proj = torch.nn.Linear(HIDDEN, INTERMEDIATE, bias=False)
        self.up_proj = torch.nn.Linear(HIDDEN, INTERMEDIATE, bias=False)
        self.down_proj = torch.nn.Linear(INTERMEDIATE, HIDDEN, bias=False)

    def forward(self, x):
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q = self.q_proj(h).view(b, t, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k_proj(h).view(b, t, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = self.v_proj(h).view(b, t, KV_HEADS, HEAD_DIM).transpose(1, 2)
        q, k = rotary(q), rotary(k)
        k = k.repeat_interleave(HEADS // KV_HEADS, dim=1)
        v = v.repeat_interleave(HEADS // KV_HEADS, dim=1)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o_proj(attn.transpose(1, 2).reshape(b, t, HEADS * HEAD_DIM))
        h = self.mlp_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


def make_block(seed=0):
    torch.manual_seed(seed)
    block = DecoderBlock()
    with torch.no_grad():
        for name, p in block.named_parameters():
            if name.endswith("proj.weight"):
                p.normal_(0.0, 1.0 / math.sqrt(p.shape[1]))
    return block.to(device="cuda", dtype=torch.float16).eval()


def rel_fro(x, ref):
    return (torch.linalg.vector_norm((x.double() - ref.double())) /
            torch.linalg.vector_norm(ref.double())).item()


def check(block, patched, reference, tokens, seed=1):
    """(ok, text): the patched block against the unpatched one and both against `reference`, the
    block in fp32. The patched output must be within 1e-2 relative Frobenius error of the
    unpatched one, and its error against fp32 at most twice the unpatched block's plus 1e-3."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn((1, tokens, HIDDEN), device="cuda", dtype=torch.float16, generator=gen)
    with torch.no_grad():
        want = block(x)
        got = patched(x)
        exact = reference(x.float())
    between = rel_fro(got, want)
    err_hgemm, err_torch = rel_fro(got, exact), rel_fro(want, exact)
    ok = (bool(torch.isfinite(got).all()) and between <= 1e-2 and
          err_hgemm <= 2 * err_torch + 1e-3)
    return ok, (f"tokens {tokens}: patched vs unpatched rel_fro {between:.2e}; against fp32: "
                f"patched {err_hgemm:.2e}, unpatched {err_torch:.2e}")


def median_ms(fn, repeats):
    start = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    stop = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    for _ in range(3):
        fn()
    for i in range(repeats):
        start[i].record()
        fn()
        stop[i].record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(start, stop))
    return times[len(times) // 2]


def forward_times(block, tokens, repeats):
    """(eager ms, CUDA graph ms) of one forward pass on [1, tokens, hidden]."""
    x = torch.randn((1, tokens, HIDDEN), device="cuda", dtype=torch.float16)
    with torch.no_grad():
        eager = median_ms(lambda: block(x), repeats)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                block(x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            block(x)
        graphed = median_ms(graph.replay, repeats)
    del graph
    return eager, graphed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tokens", default="1,16,128,1024,4096")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--csv", help="also write the times to this CSV file")
    args = p.parse_args(argv)
    tokens = [int(t) for t in args.tokens.split(",")]
    if not torch.cuda.is_available():
        raise SystemExit("llama_block.py: no CUDA device")

    block = make_block()
    patched = copy.deepcopy(block)
    report = hgemm.patch(patched)
    print(report)
    if len(report.swapped) != 7:
        print(f"FAIL: expected 7 Linear modules swapped, got {len(report.swapped)}")
        return 1

    ok = True
    reference = copy.deepcopy(block).float()
    for t in tokens:
        good, text = check(block, patched, reference, t)
        ok &= good
        print(("ok   " if good else "FAIL ") + text)
    del reference

    print(f"\nforward time of one Llama-3-8B-sized decoder block on "
          f"{torch.cuda.get_device_name()}, ms (median of {args.repeats})")
    header = ["tokens", "torch_eager_ms", "hgemm_eager_ms", "torch_graph_ms", "hgemm_graph_ms"]
    print(f"{'tokens':>7} {'torch eager':>12} {'hgemm eager':>12} {'speedup':>8} "
          f"{'torch graph':>12} {'hgemm graph':>12} {'speedup':>8}")
    rows = []
    for t in tokens:
        te, tg = forward_times(block, t, args.repeats)
        he, hg = forward_times(patched, t, args.repeats)
        rows.append([t, te, he, tg, hg])
        print(f"{t:>7} {te:>12.4f} {he:>12.4f} {te / he:>7.2f}x {tg:>12.4f} {hg:>12.4f} "
              f"{tg / hg:>7.2f}x")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            f.write(f"# gpu={torch.cuda.get_device_name()}\n# torch={torch.__version__}\n"
                    f"# hgemm={hgemm.__version__}\n")
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            w.writerows([[r[0]] + [f"{v:.6g}" for v in r[1:]] for r in rows])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
