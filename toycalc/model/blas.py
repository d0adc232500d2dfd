"""Training gives the same weights to the bit only with the same BLAS
kernel and the same number of BLAS threads: float32 sums come out in
another order with either changed. OpenBLAS picks its kernel for the CPU
when numpy loads it, unless OPENBLAS_CORETYPE names one, so the command
line pins the kernel before numpy is imported, and train.py pins the
threads while it trains. The shipped nanogpt.safetensors was made with these.

Imports nothing heavy: the command line calls `pin_kernel` first.
"""
from __future__ import annotations

import os

CORETYPE = "Haswell"   # AVX2: on every x86-64 CPU since 2013, and picked for many newer ones
THREADS = 2


def pin_kernel() -> None:
    """Ask OpenBLAS for CORETYPE's kernel; only works before numpy loads."""
    os.environ.setdefault("OPENBLAS_CORETYPE", CORETYPE)


def describe() -> dict:
    """What the result depends on: numpy, the BLAS library, its kernel and
    the threads it uses now (see threadpoolctl)."""
    import numpy as np
    from threadpoolctl import threadpool_info
    blas = next((i for i in threadpool_info() if i.get("user_api") == "blas"), {})
    return {"numpy": np.__version__, "blas": f"{blas.get('internal_api', '?')} {blas.get('version', '?')}",
            "kernel": blas.get("architecture", "?"), "threads": blas.get("num_threads", 0)}
