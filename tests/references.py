"""Independent references the tests hold toycalc and docs/javascripts to: gradients
by central differences, and the browser's seeded generator in Python."""
from __future__ import annotations

import numpy as np

from toycalc.model import gpt


def numeric_grads(params, cfg, ids, targets, heads, temperature, eps=1e-6):
    grads = {}
    for name, value in params.items():
        g = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            old = value[idx]
            value[idx] = old + eps
            up = gpt.cross_entropy(gpt.forward(params, cfg, ids, heads, temperature)["p"], targets)
            value[idx] = old - eps
            down = gpt.cross_entropy(gpt.forward(params, cfg, ids, heads, temperature)["p"], targets)
            value[idx] = old
            g[idx] = (up - down) / (2 * eps)
        grads[name] = g
    return grads


def assert_grads_match(params, cfg, ids, targets, heads=None, temperature=1.0):
    params = {k: v.astype(np.float64).copy() for k, v in params.items()}
    _, analytic = gpt.loss_and_grads(params, cfg, ids, targets, heads, temperature)
    numeric = numeric_grads(params, cfg, ids, targets, heads, temperature)
    assert set(analytic) == set(params)
    for name in params:
        np.testing.assert_allclose(analytic[name], numeric[name], rtol=1e-5, atol=1e-8, err_msg=name)


def mulberry32(seed: int):
    """The generator of gpt.js (rng), in Python: the reference for its draws."""
    a = seed & 0xFFFFFFFF

    def imul(x, y):
        return ((x & 0xFFFFFFFF) * (y & 0xFFFFFFFF)) & 0xFFFFFFFF

    def draw():
        nonlocal a
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = imul(a ^ (a >> 15), 1 | a)
        t = ((t + imul(t ^ (t >> 7), 61 | t)) & 0xFFFFFFFF) ^ t
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296
    return draw


def reference_sample(p, r) -> int:
    cum, last = 0.0, 0
    for i, pi in enumerate(p):
        if pi > 0:
            last = i
        cum += pi
        if r < cum:
            return i
    return last
