"""The browser's code is native ES modules (docs/javascripts): each page
loads one module script of ours, book.js, and the browser resolves the
rest through `import`; a page's own code is named by the part that needs
it (data-module) and exports `start`. Read from the files and the built
pages; the browser tests run them."""
from __future__ import annotations

import re

from conftest import ROOT

JS = ROOT / "docs" / "javascripts"
# import ... from "./x.js", import "./x.js", import("./x.js"), new URL("x.js", import.meta.url)
IMPORTED = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(?\s*)"\./([\w.-]+)"|new URL\("([\w.-]+)(?:\?\w*)?", import\.meta\.url\)""")
EXPORTS = re.compile(r"^export\s*\{([^}]*)\}", re.M)
# the markers of the module system this replaced, and of globals of our own
# (window.MathJax is MathJax's own configuration; document$ is Material's)
OLD = re.compile(r"module\.exports|\brequire\(|importScripts|\btoycalc\.waiting|(?:self|window)\.toycalc"
                 r"|(?:window|self|globalThis)\.(?!MathJax\b)\w+\s*=(?!=)")
ENTRY = "javascripts/book.js"
# a tag whose attribute names its code (not words about it in a code span)
PART = re.compile(r"<\w+\b[^>]*?\sdata-module=\"([^\"]*)\"")


def sources() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(JS.glob("*.js"))}


def exported(source: str) -> set[str]:
    names = set()
    for group in EXPORTS.findall(source):
        names |= {n.strip().split(":")[0].split(" as ")[-1].strip() for n in group.split(",") if n.strip()}
    return names | set(re.findall(r"^export (?:function|const|let|class) (\w+)", source, re.M))


def test_every_file_is_an_es_module_with_no_globals_of_ours():
    files = sources()
    assert len(files) > 20
    for name, source in files.items():
        assert not OLD.search(source), f"{name}: {OLD.search(source).group(0)!r} (an ES module imports and exports)"
        entry = name == "book.js" or source.startswith(f"// {name}: a Web Worker")   # the page's entry, and the workers'
        assert exported(source) or entry, f"{name} exports nothing"
    # Node reads the folder's .js files as ES modules, as a page does
    assert (JS / "package.json").read_text(encoding="utf-8").replace(" ", "").replace("\n", "") == '{"type":"module"}'


def test_every_import_names_a_file_the_site_publishes(site):
    """What a module imports, or fetches beside itself (the weights the
    build writes, kernels.wasm), is in the built site's javascripts/."""
    for name, source in sources().items():
        for target in filter(None, (a or b for a, b in IMPORTED.findall(source))):
            assert (site / "javascripts" / target).is_file(), f"{name} imports {target}, which the site lacks"


def test_the_pattern_sees_every_kind_of_import():
    """So the check above can fail."""
    source = ('import * as a from "./a.js";\nimport "./b.js";\nconst c = import("./c.js");\n'
              'new Worker(new URL("d.js?helper", import.meta.url));')
    assert [a or b for a, b in IMPORTED.findall(source)] == ["a.js", "b.js", "c.js", "d.js"]
    assert OLD.search("window.toycalcTips = true;") and OLD.search("module.exports = x")
    assert not OLD.search("window.MathJax = {") and not OLD.search("if (window.x === 1)")


def test_each_page_loads_one_module_of_ours_and_names_its_code(site):
    """At most one script of ours a page, a module (MathJax's own file is
    not ours; the two-line inline script of overrides/main.html must run
    before the first paint, which no module can); every part's data-module
    a module of docs/javascripts that exports start."""
    files = sources()
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 25
    named = set()
    for html_file in pages:
        html = html_file.read_text(encoding="utf-8")
        where = html_file.relative_to(site)
        ours = [tag for tag in re.findall(r"<script\b[^>]*\bsrc=\"[^\"]*javascripts/[^\"]*\"[^>]*>", html)
                if not re.search(r"javascripts/mathjax/|assets/javascripts/", tag)]   # MathJax's, Material's
        if not ours:      # a redirect or 404 page without the theme's scripts
            continue
        assert len(ours) == 1 and ENTRY in ours[0] and 'type="module"' in ours[0], (where, ours)
        for value in PART.findall(html):
            for module in value.split():
                named.add(module)
                assert f"{module}.js" in files, f"{where}: data-module names {module}, not in docs/javascripts"
                assert "start" in exported(files[f"{module}.js"]), f"{module}.js exports no start"
    assert named == {"simulator", "toy_training", "letters", "train_page", "story", "minimap", "writer"}


def test_the_pages_with_code_name_it(site):
    """Every chapter page's map has its code (minimap.js: the sideways scroll's marks, the Key in print)."""
    needs = {"": {"story"}, "end-to-end": {"simulator"},
             "toy/training": {"toy_training", "minimap"}, "nano-gpt/train": {"letters", "train_page", "minimap"},
             "nano-gpt/output": {"letters", "minimap"}, "nano-gpt/mlp": {"letters", "minimap"},
             "nano-gpt/preliminaries": {"letters", "minimap"}, "glossary": set(), "toy/attention": {"minimap"},
             "writer/write": {"writer", "minimap"}, "writer": {"minimap"}, "what-changed": set()}
    for name, modules in needs.items():
        html = (site / name / "index.html").read_text(encoding="utf-8")
        found = {m for value in PART.findall(html) for m in value.split()}
        assert found == modules, name
    # published beside book.js, with the worker and its kernels
    for name in ("book.js", "simulator.js", "train_worker.js", "kernels.wasm"):
        assert (site / "javascripts" / name).is_file(), name
    assert not (site / "javascripts" / "package.json").exists()   # Node's, not the reader's


def test_one_json_fetch_and_one_heads_key():
    """dom.js's fetchJson is the one place a JSON file is fetched and read,
    and path.js's HEADS_KEY the one place the heads choice's key is named:
    the modules that read JSON use fetchJson."""
    files = sources()
    assert [name for name, source in files.items() if ".json()" in source] == ["dom.js"]
    assert "fetchJson" in exported(files["dom.js"])
    for name in ("letters.js", "toy_training.js", "simulator.js"):
        assert "fetchJson(" in files[name] and "fetch(" not in files[name].replace("fetchJson(", ""), name
    assert "HEADS_KEY" in exported(files["path.js"])
    assert [name for name, source in files.items() if '"toycalc.heads"' in source] == ["path.js"]


def test_no_comment_speaks_of_the_module_system_before_es_modules():
    """The scripts were once globals under a `toycalc.NAME` namespace that
    the parity tests loaded with require: no comment says so any more."""
    stale = re.compile(r"\(toycalc\.\w+\)|\brequire\b")
    for name, source in sources().items():
        comments = re.findall(r"//.*|/\*[\s\S]*?\*/", source)
        found = [c for c in comments if stale.search(c)]
        assert found == [], f"{name}: {found}"


def test_no_two_modules_import_each_other():
    """The imports, static and dynamic, make no loop (simulator.js and
    toy_training.js imported each other): each module's code can be read
    knowing only what it imports."""
    files = sources()
    # imports alone: a worker that starts a helper of its own file (new URL) imports nothing
    graph = {name: {a for a, _ in IMPORTED.findall(source) if a.endswith(".js")} for name, source in files.items()}
    loops = []

    def walk(name, path):
        for target in sorted(graph.get(name, ())):
            if target in path:
                loops.append(" → ".join(path[path.index(target):] + [target]))
            else:
                walk(target, path + [target])
    for name in graph:
        walk(name, [name])
    assert loops == [], "\n".join(sorted(set(loops)))
    # and the walk sees a loop where there is one
    graph = {"a.js": {"b.js"}, "b.js": {"a.js"}}
    loops.clear()
    walk("a.js", ["a.js"])
    assert loops == ["a.js → b.js → a.js"]


def test_one_loader_of_kernels_wasm():
    """kernels.js is the one place kernels.wasm is fetched, read and made
    an instance of; its users (batched.js, writer_pass.js) call its loader."""
    files = sources()
    assert [name for name, source in files.items() if "WebAssembly." in source] == ["kernels.js"]
    assert [name for name, source in files.items() if re.search(r"""["']kernels\.wasm["']""", source)] == ["kernels.js"]
    for name in ("batched.js", "writer_pass.js"):
        assert 'import { loader } from "./kernels.js"' in files[name] and "loader(" in files[name], name
