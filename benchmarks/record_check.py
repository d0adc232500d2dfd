"""Benchmark (not a test): what the writer's record check adds to every
build (writer.recompute: the text's size and hash, the loss on the 64
held-out windows the record names, the curve's last point, the held-out
loss). Goal (issue 63): well under a second or two, on one BLAS thread as
a build runs. Beside it, the loading of the weights and record alone,
timed the same way, alternating the two sides.

    .venv/bin/python benchmarks/record_check.py [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")    # as a build runs: before numpy loads

from toycalc.model import writer  # noqa: E402

GOAL_S = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    recompute = writer.recompute
    loaded = writer.load()            # warm: the text read, its ids made
    with_check, without = [], []
    for k in range(2 * args.runs):
        check = k % 2 == 0
        writer.recompute = recompute if check else (lambda _: None)
        t0 = time.perf_counter()
        writer.load()
        (with_check if check else without).append(time.perf_counter() - t0)
    writer.recompute = recompute
    t0 = time.perf_counter()
    recompute(loaded)
    alone = time.perf_counter() - t0
    added = statistics.median(with_check) - statistics.median(without)
    print(f"writer.load with the record check: median {statistics.median(with_check):.3f} s, "
          f"without: {statistics.median(without):.3f} s ({args.runs} runs each, alternating)")
    print(f"the check adds {added:.3f} s (alone, once: {alone:.3f} s); goal under {GOAL_S} s: "
          f"{'met' if added < GOAL_S else 'NOT met'}, ratio {added / GOAL_S:.2f}")


if __name__ == "__main__":
    main()
