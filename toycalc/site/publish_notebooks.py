"""MkDocs hook: a notebook per chapter page (book/notebook.py), made from
the regions its `code` calls show, beside the page (docs/toy/attention.md:
toy/attention.ipynb), and the wheel of toycalc its first cell installs,
at the site's root. The page links its notebook at its end, and where
repo_url is a GitHub repository, the same notebook in Colab (COLAB_BRANCH).

The wheel is written here, with the standard library (PEP 427: a zip of
the package's files and a dist-info), from the files pyproject.toml's
setuptools configuration ships: every module of a package under toycalc/
and its package-data (the weights, the writer's text). pip's own build
takes three seconds, a third of the site's; this takes a tenth of one.
tests/site/test_notebooks.py holds its list of files to pip's."""
from __future__ import annotations

import base64
import hashlib
import io
import re
import tomllib
import zipfile
from pathlib import Path

from mkdocs.structure.files import File

from toycalc.book.notebook import REQUIRES, WHEEL, check_of, notebook
from toycalc.book.source import RegionError, find_region
from toycalc.site.source_code import source_of

CODE_CALL = re.compile(r'\{\{-?\s*code\(\s*"([^"]+)"\s*,\s*"([^"]+)"')
NOTEBOOKS: dict[str, str] = {}     # page (src_uri) -> its notebook's src_uri, for on_page_markdown
LOCAL = "http://127.0.0.1:8000/"   # where `make serve` serves a build that has no site_url
# Colab opens a notebook from a GitHub repository, not from a site: the
# Pages workflow (.github/workflows/pages.yml) pushes the notebooks it
# built, as the site holds them, to this branch of the repository, which
# a page's "Open in Colab" names where repo_url is a GitHub repository
COLAB_BRANCH = "published-notebooks"
GITHUB = re.compile(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?")   # repo_url: OWNER, REPO
# the project toycalc is part of (its pyproject.toml names the wheel's files),
# whatever folder the book's mkdocs.yml is in (a test's copy of the pages)
PROJECT = Path(__file__).resolve().parents[2]


def notebook_uri(page_uri: str) -> str:
    return page_uri[:-len(".md")] + ".ipynb"


def on_files(files, config):
    NOTEBOOKS.clear()
    if not (PROJECT / "pyproject.toml").is_file():
        return files        # toycalc installed from its wheel: no project to make the wheel from
    site_url = config["site_url"] or LOCAL
    for file in files.documentation_pages():
        steps = []
        for path, name in CODE_CALL.findall(file.content_string):
            try:
                region = find_region(path, source_of(path), name)
            except (ValueError, RegionError):
                continue            # the page's `code` call stops the build and says why
            check = check_of(file.src_uri, region)
            if check is not None:
                steps.append((region, check))
        if not steps:
            continue
        title = next((line[2:].strip() for line in file.content_string.splitlines() if line.startswith("# ")),
                     file.src_uri)
        uri = notebook_uri(file.src_uri)
        files.append(File.generated(config, uri, content=notebook(file.src_uri, title, site_url + file.url, site_url, steps)))
        NOTEBOOKS[file.src_uri] = uri
    if NOTEBOOKS:
        files.append(File.generated(config, WHEEL, content=wheel(PROJECT)))
    return files


def on_page_markdown(markdown, page, config, files):
    uri = NOTEBOOKS.get(page.file.src_uri)
    if uri is None:
        return markdown
    name = uri.rsplit("/", 1)[-1]
    colab = colab_url(config["repo_url"], uri)
    link = (f"**[Run this chapter]({name}){{ download=\"{name}\" }}**: a Jupyter notebook of "
            "this page's code; it installs the book's package from this site, and what the package "
            f"needs ({', '.join(REQUIRES)}) where it is missing."
            + (f" [Open in Colab]({colab}) runs it on Google's machines." if colab else "")
            + "\n{: .run-chapter .screen-only }\n")
    # at the end: a page opens with its title, its map and its first paragraph (its description)
    return markdown.rstrip("\n") + "\n\n" + link


def colab_url(repo_url: str | None, uri: str) -> str | None:
    """Where Colab opens the notebook `uri` (as the site holds it) from the
    repository's COLAB_BRANCH, or None when repo_url is not on GitHub."""
    found = GITHUB.fullmatch(repo_url or "")
    if found is None:
        return None
    owner, repo = found.groups()
    return f"https://colab.research.google.com/github/{owner}/{repo}/blob/{COLAB_BRANCH}/{uri}"


# ---------------------------------------------------------------- the wheel

def shipped_files(root: Path) -> list[Path]:
    """What setuptools puts in the wheel (pyproject.toml): every .py of a
    package (a folder with __init__.py) under toycalc/, and toycalc's
    package-data."""
    settings = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    package = root / "toycalc"
    found = {p for p in package.rglob("*.py") if (p.parent / "__init__.py").is_file()}
    for pattern in settings.get("package-data", {}).get("toycalc", []):
        found |= {p for p in package.glob(pattern) if p.is_file()}
    return sorted(p for p in found if "__pycache__" not in p.parts)


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel(root: Path) -> bytes:
    """toycalc's wheel (py3-none-any), the same bytes for the same files."""
    info = "toycalc-0.1.0.dist-info"
    requires = "".join(f"Requires-Dist: {name}\n" for name in REQUIRES)
    entries = [(p.relative_to(root).as_posix(), p.read_bytes()) for p in shipped_files(root)]
    entries += [(f"{info}/METADATA", ("Metadata-Version: 2.1\nName: toycalc\nVersion: 0.1.0\n"
                                      f"Requires-Python: >=3.11\n{requires}").encode()),
                (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: toycalc\nRoot-Is-Purelib: true\n"
                 b"Tag: py3-none-any\n")]
    return pack(entries, info)


def pack(entries: list[tuple[str, bytes]], info: str) -> bytes:
    """A wheel of these (name, bytes), with the RECORD of them that `info`
    (its dist-info folder) gets, the same bytes for the same files."""
    record = "".join(f"{name},{_digest(data)},{len(data)}\n" for name, data in entries) + f"{info}/RECORD,,\n"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in entries + [(f"{info}/RECORD", record.encode())]:
            # the weights do not deflate (random-looking floats): stored, they cost no time
            kind = zipfile.ZIP_STORED if name.endswith(".safetensors") else zipfile.ZIP_DEFLATED
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data,
                       compress_type=kind, compresslevel=1)
    return out.getvalue()
