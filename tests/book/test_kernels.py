"""kernels.wasm, the WebAssembly of nano-gpt's training in the browser
(docs/javascripts/kernels.wat, batched.js's matrix products and GELU):
the committed .wasm is the committed .wat assembled (`make wasm`), byte
for byte; gemm's every number is numpy's float32 sum taken in the same
order (each product and each partial sum rounded to float32), bit for bit,
for every path of the kernel (blocks of 4 x 8, the last four columns, the
rows left over, A or its transpose, C added to or overwritten); GELU and
its derivative are the tanh form's to float32's precision."""
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
  if (c.gemm) kernels.gemm(4 * a, 4 * b, 4 * at, c.M, c.N, c.K, c.rs, c.ps, c.acc);
  else if (c.gelu) kernels.gelu(4 * a, 4 * b, 4 * at, c.a.length, c.k);        // x, th, y
  else kernels.gelu_backward(4 * a, 4 * b, 4 * at, c.a.length, c.k);            // x, th, g
  return { b: Array.from(F.subarray(b, b + c.b.length)), c: Array.from(F.subarray(at, at + c.c.length)) };
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


@pytest.mark.parametrize("M, N, K", [(8, 16, 5), (704, 144, 48), (48, 192, 352), (7, 12, 3), (3, 4, 9), (1, 8, 33)])
def test_gemm_is_the_float32_sum_in_order(M, N, K):
    rng = np.random.default_rng(M * N + K)
    cases, want = [], []
    for transposed in (False, True):
        for acc in (0, 1):
            A = rng.normal(size=(M, K)).astype(np.float32)
            B = rng.normal(size=(K, N)).astype(np.float32)
            C0 = rng.normal(size=(M, N)).astype(np.float32)
            stored = A.T if transposed else A                   # the kernel reads A or A's transpose from memory
            cases.append({"gemm": True, "a": stored.ravel().tolist(), "b": B.ravel().tolist(), "c": C0.ravel().tolist(),
                          "M": M, "N": N, "K": K, "rs": 1 if transposed else K, "ps": M if transposed else 1, "acc": acc})
            want.append(in_order(A, B, C0 if acc else None))
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
