"""A notebook per chapter page (book/notebook.py, site/publish_notebooks.py):
each page that has one links it; each is valid nbformat 4; executed in a
fresh kernel that installs toycalc as the notebook says (from the served
site, into a folder of its own that the kernel imports first, never this
venv's editable toycalc), it prints numbers that the built page prints;
its code cells are the regions of the files they name, verbatim. The
site's wheel holds the files pip's wheel of the project holds."""
from __future__ import annotations

import asyncio
import concurrent.futures
import os
import re
import textwrap
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbclient import NotebookClient

from conftest import ROOT, as_tex
from toycalc.book.end_to_end import attention_number
from toycalc.book.example import Example
from toycalc.book.notebook import WHEEL
from toycalc.book.render import fixed
from toycalc.book.source import MARK
from toycalc.model.weights import load_toy
from toycalc.site.publish_notebooks import shipped_files

# the pages with a notebook: the toy's chapter, End to End, nano-gpt's
# (but "Train it yourself", which trains in the browser) and the writer's
NOTEBOOK_PAGES = sorted(p.relative_to(ROOT / "docs").with_suffix("").as_posix()
                        for folder in ("toy", "nano-gpt", "writer") for p in (ROOT / "docs" / folder).glob("*.md")
                        if p.name != "train.md") + ["end-to-end"]
# a number as the book prints it: computed, with its places (0.395), or a
# weight as written (−0.5, 1), or a count (12); each with a true minus
NUMBER = re.compile(r"(?<![\w.])[−-]?\d+(?:\.\d+)?(?![\w.])")
CELL_TIMEOUT = 60


def address(base: str, page: str) -> str:
    return f"{base}/{page[:-len('index')] if page.endswith('index') else page + '/'}"


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def page_numbers(html: str) -> set[str]:
    """The computed numbers a reader of the page sees (formulas as TeX, the
    heads choices not made left out)."""
    soup = BeautifulSoup(as_tex(html), "html.parser")
    for hidden in soup.select("[hidden]"):
        hidden.decompose()
    return {n.replace("-", "−") for n in NUMBER.findall(soup.select_one("article").get_text(" "))}   # TeX's minus


def region_text(path: str, first: int, count: int) -> str:
    lines = [line for line in (ROOT / path).read_text(encoding="utf-8").splitlines()[first - 1:]
             if not MARK.match(line)]
    return textwrap.dedent("\n".join(lines[:count]))


def printed(cell) -> str:
    return "".join(out.get("text", "") for out in cell.get("outputs", []) if out.get("output_type") == "stream")


def kernel_env(target: Path) -> dict:
    """A kernel's environment: pip installs into target (PIP_TARGET, from
    the served site alone), which the kernel imports first (PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_TARGET")}
    return env | {"PIP_TARGET": str(target), "PYTHONPATH": str(target), "PIP_NO_INDEX": "1",
                  "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


async def run_all(notebooks: dict, folder, at_once: int = 2) -> None:
    """Execute each notebook in a fresh kernel of its own, `at_once` at a
    time (the machine has two cores), each with its own PIP_TARGET."""
    gate = asyncio.Semaphore(at_once)

    async def one(nb):
        target = folder()
        async with gate:
            await NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                 resources={"metadata": {"path": str(target)}}).async_execute(env=kernel_env(target))
        return target
    targets = await asyncio.gather(*(one(nb) for nb in notebooks.values()))
    for name, target in zip(notebooks, targets):
        notebooks[name].metadata["target"] = str(target)


@pytest.fixture(scope="module")
def executed(server, tmp_path_factory):
    """Every notebook, fetched from the served site through its page's
    link, and executed (run_all): page -> (notebook, the page's HTML,
    where the kernel's toycalc came from, its PIP_TARGET). How long they
    take: benchmarks/notebooks.py."""
    notebooks, pages = {}, {}
    for name in NOTEBOOK_PAGES:
        html = get(address(server, name)).decode()
        link = BeautifulSoup(html, "html.parser").select_one("p.run-chapter a[download]")
        assert link is not None and link.get_text() == "Run this chapter", f"{name}: no link to its notebook"
        nb = nbformat.reads(get(urllib.request.urljoin(address(server, name), link["href"])).decode(), as_version=4)
        nbformat.validate(nb)
        nb.cells.append(nbformat.v4.new_code_cell("import toycalc; print(toycalc.__file__)"))
        notebooks[name], pages[name] = nb, html
    # in a thread of its own: a browser test on this worker (Playwright's sync API) may leave
    # this thread's event loop running, and asyncio.run refuses to start inside it
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run_all(notebooks, lambda: tmp_path_factory.mktemp("kernel"))).result()
    out = {}
    for name, nb in notebooks.items():
        origin = printed(nb.cells.pop()).strip()
        out[name] = (nb, pages[name], origin, Path(nb.metadata.pop("target")))
    return out


def test_every_page_links_a_valid_notebook_that_runs_on_the_installed_wheel(executed):
    for name, (nb, html, origin, target) in executed.items():
        assert Path(origin).is_relative_to(target), f"{name}: the kernel imported toycalc from {origin}"
        assert nb.cells[1].source.startswith("%pip install") and WHEEL in nb.cells[1].source


@pytest.mark.parametrize("name", NOTEBOOK_PAGES)
def test_a_notebook_prints_the_page_s_numbers(executed, name):
    nb, html, *_ = executed[name]
    on_page = page_numbers(html)
    found = 0
    for k, cell in enumerate(nb.cells):
        for value in NUMBER.findall(printed(cell)):
            value = value.replace("-", "−")
            nearest = min(on_page, key=lambda v: abs(float(v.replace("−", "-")) - float(value.replace("−", "-"))),
                          default=None)
            assert value in on_page, (f"{name}.ipynb, cell {k}: it prints {value}, the page "
                                      f"{nearest} (the nearest it prints)")
            found += 1
    if name == "toy/tokens":     # the page computes ids, no number with places: its table of ids
        table = BeautifulSoup(html, "html.parser").select_one("#table-ids tbody")
        ids = [int(n) for n in table.get_text(" ").split()[1:]]
        shown = "".join(printed(c) for c in nb.cells)
        assert str(ids) in shown, f"{name}.ipynb prints {shown!r}, the page the ids {ids}"
        found += len(ids)
    assert found >= 3, f"{name}.ipynb: {found} numbers compared with the page's"


def test_the_numbers_the_issue_names(executed):
    ex = Example(load_toy())
    attention = "".join(printed(c) for c in executed["toy/attention"][0].cells)
    assert attention_number(ex, head=1, keys="␣climb ed") in attention      # 0.622 on the book's weights
    output = "".join(printed(c) for c in executed["toy/output"][0].cells)
    assert fixed(ex.p_last[ex.target_id]) in output                         # p(␣roof) = 0.395


def test_the_writer_s_notebooks_write_the_chapter_s_samples(executed):
    """numpy's write, in the notebooks, draws the characters writer.js in
    Node wrote into the Introduction at build (on this machine), and each
    notebook says so; "Type, it writes" draws from the weights the page
    fetches and finds them the package's."""
    soup = BeautifulSoup(executed["writer/index"][1], "html.parser")
    samples = {f["data-temperature"]: f.select_one(".writer-prompt").get_text() + f.select_one(".writer-written").get_text()
               for f in soup.select("figure.writer-sample")}
    assert len(samples) == 3
    intro = "".join(printed(c) for c in executed["writer/index"][0].cells)
    for temperature, text in samples.items():
        assert f"temperature {temperature}, seed " in intro and text in intro, f"writer/index.ipynb: not the sample at {temperature}"
    assert intro.count("the same characters as the page's") == 3 and "NOT" not in intro
    live = "".join(printed(c) for c in executed["writer/write"][0].cells)
    assert samples["0.8"] in live and "the package's own weights" in live and "NOT" not in live


def test_a_notebook_s_code_is_the_regions_it_names(executed):
    for name, (nb, *_) in executed.items():
        regions = [c for c in nb.cells if "toycalc" in c.metadata]
        assert regions, f"{name}.ipynb shows no code of toycalc"
        for cell in regions:
            where = cell.metadata["toycalc"]
            expected = region_text(where["path"], where["first"], cell.source.count("\n") + 1)
            assert cell.source == expected, (f"{name}.ipynb: the cell of {where['region']} is not "
                                             f"{where['path']} from line {where['first']}")


@pytest.mark.build
def test_the_site_s_wheel_holds_what_pip_s_holds(tmp_path):
    """site/publish_notebooks.py writes the wheel itself (pip's build takes
    three seconds of the site's ten): the files are those pip ships."""
    from test_wheel import build_wheel, clean_clone
    pips = build_wheel(clean_clone(tmp_path / "clone"), tmp_path / "dist")
    with zipfile.ZipFile(pips) as z:
        theirs = {n for n in z.namelist() if not n.startswith("toycalc-0.1.0.dist-info/")}
    ours = {p.relative_to(ROOT).as_posix() for p in shipped_files(ROOT)}
    assert ours == theirs
