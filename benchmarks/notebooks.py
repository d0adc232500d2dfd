"""The chapters' notebooks (toycalc/site/publish_notebooks.py) executed as
tests/site/test_notebooks.py executes them: the site built for a free
local port and served; each notebook in a fresh kernel that installs
toycalc's wheel from the site into a folder of its own (its dependencies
this venv's), two kernels at a time, one BLAS thread each. Prints the seconds of each, and the whole, beside the goal (≤ 90 s
for all)."""
from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from served_site import built_and_served  # noqa: E402

GOAL = 90.0


async def run(path: Path, gate: asyncio.Semaphore) -> float:
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as target:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_TARGET")}
        env |= {"PIP_TARGET": target, "PYTHONPATH": target, "PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "OPENBLAS_NUM_THREADS": "1"}
        async with gate:
            start = time.perf_counter()
            await NotebookClient(nb, timeout=60, kernel_name="python3",
                                 resources={"metadata": {"path": target}}).async_execute(env=env)
            return time.perf_counter() - start


async def main() -> None:
    with built_and_served() as (base, site):
        # the writer's Introduction first, as the tests start it (test_notebooks.LONGEST)
        paths = sorted(site.rglob("*.ipynb"), key=lambda p: (p.relative_to(site).as_posix() != "writer/index.ipynb", p))
        gate = asyncio.Semaphore(2)
        start = time.perf_counter()
        seconds = await asyncio.gather(*(run(p, gate) for p in paths))
        whole = time.perf_counter() - start
        for path, s in zip(paths, seconds):
            print(f"{path.relative_to(site)}: {s:.1f} s")
        print(f"all {len(paths)} notebooks, two kernels at a time: {whole:.1f} s (goal ≤ {GOAL:.0f} s)")


if __name__ == "__main__":
    asyncio.run(main())
