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
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import textwrap
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from packaging.markers import default_environment
from packaging.requirements import Requirement

from conftest import FORK, ROOT, as_tex
from toycalc.book.end_to_end import attention_number
from toycalc.book.example import Example
from toycalc.book.notebook import REQUIRES, WHEEL
from toycalc.book.render import fixed
from toycalc.book.source import MARK
from toycalc.model.weights import load_toy
from toycalc.site.publish_notebooks import COLAB_BRANCH, colab_url, pack, shipped_files

# the pages with a notebook: every page of the toy's, nano-gpt's and the
# writer's chapters, and End to End
NOTEBOOK_PAGES = sorted(p.relative_to(ROOT / "docs").with_suffix("").as_posix()
                        for folder in ("toy", "nano-gpt", "writer") for p in (ROOT / "docs" / folder).glob("*.md")
                        ) + ["end-to-end"]
# a number as the book prints it: computed, with its places (0.395), or a
# weight as written (−0.5, 1), or a count (12); each with a true minus
# started first, so that the other core is not left idle at the end while
# it runs alone (the whole held-out text and three samples: several seconds)
LONGEST = "writer/index"
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
    """A kernel's environment: pip installs toycalc into target (PIP_TARGET,
    from the served site alone), which the kernel imports first
    (PYTHONPATH); its dependencies are this venv's (PIP_NO_DEPS: pip
    --target would install them again; fresh_jupyter shows pip installs
    them where they lack). One BLAS thread: two kernels run at a time on
    two cores, and two threads each waited on each other (the writer's
    Introduction took 22 s so, 7 s with one)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_TARGET")}
    return env | {"PIP_TARGET": str(target), "PYTHONPATH": str(target), "PIP_NO_INDEX": "1",
                  "PIP_NO_DEPS": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "OPENBLAS_NUM_THREADS": "1"}


async def run_all(notebooks: dict, folder, at_once: int = 2) -> None:
    """Execute each notebook in a fresh kernel of its own, `at_once` at a
    time (the machine has two cores), each with its own PIP_TARGET, the
    LONGEST first."""
    gate = asyncio.Semaphore(at_once)

    async def one(nb):
        target = folder()
        async with gate:
            await NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                 resources={"metadata": {"path": str(target)}}).async_execute(env=kernel_env(target))
        return target
    order = sorted(notebooks, key=lambda name: name != LONGEST)
    targets = await asyncio.gather(*(one(notebooks[name]) for name in order))
    for name, target in zip(order, targets):
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
    """numpy's write, in the notebooks, draws the characters writer_pass.js in
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
    assert intro.count("the same characters as the Introduction's") == 3 and "NOT the Introduction's" not in intro
    live = "".join(printed(c) for c in executed["writer/write"][0].cells)
    assert samples["0.8"] in live and "the package's own weights" in live and "NOT the" not in live


def test_with_a_github_repository_a_page_opens_its_notebook_in_colab(executed):
    """The served site is built as a fork's Pages workflow builds it (repo_url
    FORK): each page links its notebook in Colab, on the branch the workflow
    pushes the site's notebooks to, at the path the site holds it."""
    owner_repo = FORK.removeprefix("https://github.com/")
    for name, (nb, html, *_) in executed.items():
        links = [a["href"] for a in BeautifulSoup(html, "html.parser").select("p.run-chapter a")
                 if a.get_text() == "Open in Colab"]
        assert links == [f"https://colab.research.google.com/github/{owner_repo}/blob/{COLAB_BRANCH}/{name}.ipynb"], name
    workflow = (ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    assert re.search(rf"tar -xf pages/artifact\.tar .*'\*\.ipynb'\n", workflow)
    assert re.search(rf"git push --force .* {COLAB_BRANCH}\n", workflow)


def test_without_a_github_repository_no_page_links_colab(site):
    """A local build (no repo_url) links its notebooks and nothing in Colab;
    a repository elsewhere than GitHub has no Colab link either."""
    for name in ("writer/index", "writer/write", "toy/attention"):
        page = site / (name.removesuffix("index") if name.endswith("index") else name + "/") / "index.html"
        run = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").select_one("p.run-chapter")
        assert run is not None and run.select_one("a[download]") is not None, name
        assert "colab" not in str(run).lower(), name
    assert colab_url("https://gitlab.com/a-reader/toycalc", "toy/attention.ipynb") is None
    assert colab_url(None, "toy/attention.ipynb") is None
    assert colab_url(FORK + ".git", "toy/attention.ipynb").endswith(f"/toycalc-fork/blob/{COLAB_BRANCH}/toy/attention.ipynb")


def test_a_notebook_s_code_is_the_regions_it_names(executed):
    for name, (nb, *_) in executed.items():
        regions = [c for c in nb.cells if "toycalc" in c.metadata]
        assert regions, f"{name}.ipynb shows no code of toycalc"
        for cell in regions:
            where = cell.metadata["toycalc"]
            expected = region_text(where["path"], where["first"], cell.source.count("\n") + 1)
            assert cell.source == expected, (f"{name}.ipynb: the cell of {where['region']} is not "
                                             f"{where['path']} from line {where['first']}")


# ---------------------------------------------------------------- a fresh Jupyter

# what a fresh Jupyter has besides the standard library: its kernel, pip, and numpy
JUPYTER = ("ipykernel", "pip", "numpy")


def needed(names) -> set[str]:
    """The distributions of this venv that `names` need, themselves
    included (their requirements, recursively, without extras)."""
    found, todo, here = {}, list(names), default_environment() | {"extra": ""}
    while todo:
        dist = importlib.metadata.distribution(todo.pop())
        if dist.name.lower() in found:
            continue
        found[dist.name.lower()] = dist
        todo += [r.name for r in map(Requirement, dist.requires or []) if not r.marker or r.marker.evaluate(here)]
    return set(found)


def top_level(name: str) -> set[str]:
    """The names a distribution puts in site-packages (packages, modules, its dist-info)."""
    return {f.parts[0] for f in importlib.metadata.distribution(name).files if f.parts[0] != ".."}


def repacked(name: str, into: Path) -> Path:
    """A distribution installed in this venv packed again as a wheel, as
    PyPI would serve it to a fresh Jupyter (offline: a folder pip finds)."""
    dist = importlib.metadata.distribution(name)
    tag = next(line[5:] for line in dist.read_text("WHEEL").splitlines() if line.startswith("Tag: "))
    info = next(f.parts[0] for f in dist.files if f.parts[0].endswith(".dist-info"))
    entries = [(f.as_posix(), f.locate().read_bytes()) for f in dist.files
               if f.parts[0] != ".." and "__pycache__" not in f.parts
               and f.name not in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json")]
    wheel = into / f"{re.sub(r'[-.]+', '_', dist.name)}-{dist.version}-{tag}.whl"
    wheel.write_bytes(pack(entries, info))
    return wheel


@pytest.fixture(scope="module")
def fresh_jupyter(tmp_path_factory):
    """A Python with only a Jupyter kernel, pip and numpy (this venv's,
    through a .pth to a folder holding just them), as a kernel named
    "fresh"; and a folder standing for PyPI holding toycalc's dependencies
    the kernel lacks. Yields its kernel manager, the kernel's environment,
    the dependencies it lacks, its site-packages, and a folder to run in."""
    root = tmp_path_factory.mktemp("fresh")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root / "venv"], check=True)
    python = root / "venv" / "bin" / "python"
    site_packages = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                        capture_output=True, text=True, check=True).stdout.strip())
    has = root / "jupyter"
    has.mkdir()
    for dist in needed(JUPYTER):
        for name in top_level(dist):
            source = Path(importlib.metadata.distribution(dist).locate_file(name))
            if not (has / name).exists():
                (has / name).symlink_to(source)
    (site_packages / "jupyter.pth").write_text(f"{has}\n", encoding="utf-8")
    pypi = root / "pypi"
    pypi.mkdir()
    lacking = [name for name in REQUIRES if name.lower() not in needed(JUPYTER)]
    for name in lacking:
        repacked(name, pypi)
    spec = root / "kernels" / "fresh"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "fresh", "language": "python"}), encoding="utf-8")
    manager = KernelManager(kernel_name="fresh", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec.parent)]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env |= {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(pypi), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PYTHONNOUSERSITE": "1", "OPENBLAS_NUM_THREADS": "1"}
    (root / "cwd").mkdir()            # where it runs: not this project's folder, which holds toycalc/
    yield manager, env, lacking, site_packages, root / "cwd"


def test_a_notebook_runs_where_only_a_kernel_pip_and_numpy_are(server, fresh_jupyter):
    """The writer's notebook reaches every dependency of toycalc (its weights
    file reader needs safetensors and the YAML reader's helpers, its model
    module the training's threadpoolctl): in a fresh Jupyter, its install
    cell alone brings in what it needs."""
    manager, env, lacking, site_packages, cwd = fresh_jupyter
    assert lacking == ["PyYAML", "safetensors", "threadpoolctl"]     # what this test shows pip installs
    html = get(address(server, "writer/inside")).decode()
    link = BeautifulSoup(html, "html.parser").select_one("p.run-chapter a[download]")
    nb = nbformat.reads(get(urllib.request.urljoin(address(server, "writer/inside"), link["href"])).decode(),
                        as_version=4)
    modules = '["numpy", "yaml", "safetensors", "threadpoolctl", "toycalc"]'
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        f"import importlib.util\nprint([importlib.util.find_spec(m) is not None for m in {modules}])"))
    nb.cells.append(nbformat.v4.new_code_cell(
        f"import importlib\nprint([importlib.import_module(m).__file__ for m in {modules}])"))
    NotebookClient(nb, km=manager, timeout=CELL_TIMEOUT, resources={"metadata": {"path": str(cwd)}}).execute(env=env)
    assert printed(nb.cells[0]).strip() == "[True, False, False, False, False]"     # numpy only, before
    files = [Path(f) for f in eval(printed(nb.cells[-1]))]
    assert all(f.is_relative_to(site_packages) for f in files[1:]), files   # installed by the notebook
    assert "the ten likeliest next characters" in "".join(printed(c) for c in nb.cells)


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
