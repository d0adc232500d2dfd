"""kernels.wasm, the WebAssembly of nano-gpt's training in the browser
(docs/javascripts/kernels.wat, batched.js's matrix products and GELU):
the committed .wasm is the committed .wat assembled (`make wasm`), byte
for byte; gemm's every number is numpy's float32 sum taken in the same
order (each product and each partial sum rounded to float32), bit for bit,
for every path of the kernel (blocks of 4 x 8, the last four columns, the
rows left over sixteen and four columns at a time, A or its transpose, C
added to or overwritten, B and C whole or a part of wider ones); GELU and its derivative are the tanh form's to
float32's precision; the writer's softmax (exp within 2 ulp), LayerNorm
and row sums are numpy's to float32's precision, a row's numbers its own."""
from __future__ import annotations

import numpy as np
import pytest
import wasmtime

from nodejs import JS, run_json

RUN = r"""
const kernels = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(path.join(process.argv[1], "kernels.wasm"))), {}).exports;
kernels.memory.grow(64);
const F = new Float32Array(kernels.memory.buffer);
const out = job.cases.map((c) => {
  const a = 0, b = a + c.a.length, at = b + c.b.length;
  F.set(c.a, a); F.set(c.b, b); F.set(c.c, at);
  if (c.gemm) kernels.gemm(4 * a, 4 * b, 4 * at, c.M, c.N, c.K, c.rs, c.ps, c.bs, c.cs, c.acc);
  else if (c.softmax) kernels.softmax(4 * a, c.rows, c.T, c.first, c.scale);                    // in place at a
  else if (c.layernorm) kernels.layernorm(4 * a, 4 * at, 4 * b, 4 * (b + c.d), c.rows, c.d, c.eps);   // gamma, beta at b
  else if (c.add_rows) kernels.add_rows(4 * at, 4 * a, 4 * b, c.rows, c.cols);                   // c = a + b's vector
  else if (c.gelu) kernels.gelu(4 * a, 4 * b, 4 * at, c.a.length, c.k);        // x, th, y
  else kernels.gelu_backward(4 * a, 4 * b, 4 * at, c.a.length, c.k);            // x, th, g
  return { a: Array.from(F.subarray(a, a + c.a.length)), b: Array.from(F.subarray(b, b + c.b.length)),
           c: Array.from(F.subarray(at, at + c.c.length)) };
});
process.stdout.write(JSON.stringify(out));
"""

C = np.float32(np.sqrt(2 / np.pi))


def test_the_wasm_is_the_wat_assembled():
    assembled = wasmtime.wat2wasm((JS / "kernels.wat").read_text(encoding="utf-8"))
    assert assembled == (JS / "kernels.wasm").read_bytes(), "kernels.wasm is stale: run make wasm"


def in_order(A, B, C0):
    """A B (+ C0) in float32, the K products added one after the other."""
    out = np.zeros((A.shape[0], B.shape[1]), np.float32) if C0 is None else C0.copy()
    for p in range(A.shape[1]):
        out = out + A[:, p:p + 1] * B[p]          # float32 product, float32 sum
    return out


@pytest.mark.parametrize("M, N, K", [(8, 16, 5), (704, 144, 48), (48, 192, 352), (7, 12, 3), (3, 4, 9), (1, 8, 33), (6, 52, 11), (1, 128, 64)])
def test_gemm_is_the_float32_sum_in_order(M, N, K):
    rng = np.random.default_rng(M * N + K)
    cases, want = [], []
    for transposed in (False, True):
        for acc in (0, 1):
            for part in (False, True):        # B and C whole, or the first N columns of wider ones
                A = rng.normal(size=(M, K)).astype(np.float32)
                B = rng.normal(size=(K, N + 4 * part)).astype(np.float32)
                C0 = rng.normal(size=(M, N + 8 * part)).astype(np.float32)
                stored = A.T if transposed else A                   # the kernel reads A or A's transpose from memory
                cases.append({"gemm": True, "a": stored.ravel().tolist(), "b": B.ravel().tolist(), "c": C0.ravel().tolist(),
                              "M": M, "N": N, "K": K, "rs": 1 if transposed else K, "ps": M if transposed else 1,
                              "bs": B.shape[1], "cs": C0.shape[1], "acc": acc})
                C = C0.copy()                                       # the columns past N untouched
                C[:, :N] = in_order(A, B[:, :N], C0[:, :N] if acc else None)
                want.append(C)
    for got, w in zip(run_json(RUN, {"cases": cases}), want):
        assert np.array_equal(np.array(got["c"], np.float32).reshape(w.shape), w)


def test_gelu_and_its_derivative():
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(0, 2, 4000), np.linspace(-12, 12, 4000)]).astype(np.float32)
    g = rng.normal(size=x.size).astype(np.float32)
    job = {"cases": [{"gelu": True, "a": x.tolist(), "b": [0] * x.size, "c": [0] * x.size, "k": float(C)},
                     {"gelu": False, "a": x.tolist(), "b": np.tanh(C * (x + 0.044715 * x ** 3)).tolist(),
                      "c": g.tolist(), "k": float(C)}]}
    forward, backward = run_json(RUN, job)
    x64 = x.astype(float)
    th = np.tanh(C * (x64 + 0.044715 * x64 ** 3))
    assert np.abs(np.array(forward["b"]) - th).max() < 1e-6                     # the tanh kept
    assert np.abs(np.array(forward["c"]) - 0.5 * x64 * (1 + th)).max() < 1e-6 * np.abs(x64).max()
    slope = 0.5 * (1 + th) + 0.5 * x64 * (1 - th ** 2) * C * (1 + 3 * 0.044715 * x64 ** 2)
    assert np.abs(np.array(backward["c"]) - g * slope).max() < 1e-5


def test_the_writers_softmax_layernorm_and_row_sums():
    """softmax: row r over its first first + r + 1 scores / scale, zeros
    after, each row alone (one row computed in a pass of its own is the
    same bits); LayerNorm and a bias added to rows, as numpy's."""
    rng = np.random.default_rng(3)
    T, rows, first, scale = 16, 6, 5, float(np.sqrt(np.float32(32)))
    s = (rng.normal(0, 30, (rows, T))).astype(np.float32)
    s[1, :] = -200                               # equal scores far below zero: e^x clamped, shared out evenly
    x = rng.normal(2, 3, (5, 24)).astype(np.float32)
    gb = rng.normal(size=48).astype(np.float32)
    v = rng.normal(size=24).astype(np.float32)
    job = {"cases": [
        {"softmax": True, "a": s.ravel().tolist(), "b": [0], "c": [0], "rows": rows, "T": T, "first": first, "scale": scale},
        {"softmax": True, "a": s[4].tolist(), "b": [0], "c": [0], "rows": 1, "T": T, "first": first + 4, "scale": scale},
        {"layernorm": True, "a": x.ravel().tolist(), "b": gb.tolist(), "c": [0] * x.size, "rows": 5, "d": 24, "eps": 1e-5},
        {"add_rows": True, "a": x.ravel().tolist(), "b": v.tolist(), "c": [0] * x.size, "rows": 5, "cols": 24}]}
    soft, one, ln, added = run_json(RUN, job)
    got = np.array(soft["a"]).reshape(rows, T)
    for r in range(rows):
        n = first + r + 1
        z = s[r, :n].astype(float) / scale
        want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        np.testing.assert_allclose(got[r, :n], want, rtol=2e-6, atol=1e-9)
        assert not got[r, n:].any()
    assert got[1, :first + 2].tolist() == [got[1, 0]] * (first + 2) and abs(got[1, 0] * (first + 2) - 1) < 1e-6
    assert one["a"] == got[4].tolist()                     # the same row alone: the same bits
    x64 = x.astype(float)
    mu, sd = x64.mean(1, keepdims=True), np.sqrt(x64.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.array(ln["c"]).reshape(x.shape), (x64 - mu) / sd * gb[:24] + gb[24:], rtol=0, atol=2e-6 * np.abs(gb).max())
    assert np.array_equal(np.array(added["c"], np.float32).reshape(x.shape), x + v)
