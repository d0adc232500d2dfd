"""The package shows the flow: model <- book <- site. Every import of every
module, those inside functions and those by name through importlib
included, goes one way, and no two modules import each other, however
indirectly."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

# What each layer may import from toycalc; the top (toycalc/__init__.py and
# __main__.py, the command line) may import every layer.
MAY_IMPORT = {"model": {"model"}, "book": {"model", "book"}, "site": {"model", "book", "site"},
              "top": {"model", "book", "site", "top"}}


def modules(package: Path) -> dict[str, Path]:
    """Dotted name -> file, for every .py under the package folder."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported_by_name(node: ast.AST) -> str | None:
    """The module a call `importlib.import_module("a.b")` (or
    `import_module`, `__import__`) imports, when named by a literal."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    function = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    name = node.args[0]
    if function in ("import_module", "__import__") and isinstance(name, ast.Constant) and isinstance(name.value, str):
        return name.value
    return None


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, int]]:
    """The package's modules that `name` imports, with the line, wherever
    the import sits (top level or inside a function), an import by name
    through importlib included."""
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # `from . import gpt` imports the module gpt, `from .gpt import x` the module .gpt
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
        elif by_name := imported_by_name(node):
            targets = [by_name]
        else:
            continue
        for target in targets:
            while target and target not in known:  # toycalc.model.gpt.Config -> toycalc.model.gpt
                target = target.rpartition(".")[0]
            if target and target != name:
                found.append((target, node.lineno))
    return found


def layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ("model", "book", "site") else "top"


def problems(package: Path) -> list[str]:
    """Every import against the direction, and every cycle, in words."""
    found = modules(package)
    graph = {name: imports(name, path, set(found)) for name, path in found.items()}
    wrong = [f"{found[name].relative_to(package.parent)}:{line}: {layer(name)} imports {target} ({layer(target)})"
             for name, edges in graph.items() for target, line in edges
             if layer(target) not in MAY_IMPORT[layer(name)]]
    # a package's __init__ is imported with its modules; it must not import them back
    state: dict[str, str] = {}
    cycles = []

    def visit(name, stack):
        state[name] = "open"
        for target, _ in graph[name]:
            if state.get(target) == "open":
                cycle = " -> ".join(stack[stack.index(target):] + [target])
                if cycle not in cycles:     # two names imported from one module are two edges
                    cycles.append(cycle)
            elif target not in state:
                visit(target, stack + [target])
        state[name] = "done"
    for name in graph:
        if name not in state:
            visit(name, [name])
    return wrong + [f"cycle: {c}" for c in cycles]


def test_every_import_goes_one_way_and_none_in_a_circle():
    assert problems(ROOT / "toycalc") == []


def test_the_layout_holds():
    names = set(modules(ROOT / "toycalc"))
    for module in ("model.gpt", "model.configs", "model.tokenizer", "model.weights", "model.nanogpt",
                   "model.train", "book.example", "book.nano_example", "book.render", "book.end_to_end",
                   "book.path", "book.part", "book.toy", "book.toy.generation", "book.nano_gpt",
                   "book.nano_gpt.output", "book.what_changed", "book.claims",
                   "site.macros", "site.publish_weights", "site.export", "site.reference", "__main__"):
        assert f"toycalc.{module}" in names, module
    assert {layer(n) for n in names} == {"model", "book", "site", "top"}
    top = {n for n in names if layer(n) == "top"}
    assert top == {"toycalc", "toycalc.__main__"}, "every module belongs to model, book or site"


def test_each_package_says_what_belongs_there():
    for part in ("model", "book", "site"):
        doc = ast.get_docstring(ast.parse((ROOT / "toycalc" / part / "__init__.py").read_text(encoding="utf-8")))
        assert doc and len(doc.splitlines()) <= 2, part


def test_one_macros_module_registers_everything():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "modules: [toycalc.site.macros]" in config
    assert "toycalc/site/publish_mathjax.py" in config


def test_define_env_only_registers():
    """define_env at most 40 lines; what a false claim does lives in
    claim_macros.py, whose one `claim` checks the toy's and every
    chapter's claims (#52, item 4; #63, item 2)."""
    import ast
    source = (ROOT / "toycalc" / "site" / "macros.py").read_text(encoding="utf-8")
    define_env = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "define_env")
    assert define_env.end_lineno - define_env.lineno + 1 <= 40
    for word in ("claims_log", "claims_mode", "sentence_at", "claim-broken", ".append(message)"):
        assert word not in source, word


def test_the_site_reaches_every_chapter_through_the_book_registry():
    """No module of toycalc/site/ imports a chapter's own modules (its
    part's pages, its package): the macros, the claims, the runs and the
    publishing read book/chapters.py, so a fourth model's chapter needs no
    module of its own in site/, and no edit there (#63, item 2)."""
    import inspect
    from toycalc.book.chapters import CHAPTERS
    own = set()
    for chapter in CHAPTERS.values():
        for registry in chapter.part.registries.values():
            for function in registry.values():
                module = inspect.unwrap(function).__module__
                own |= {module, module.rpartition(".")[0]}
    own -= {"toycalc.book"}
    assert {"toycalc.book.nano_gpt", "toycalc.book.writer", "toycalc.book.writer.chapter"} <= own
    found = modules(ROOT / "toycalc")
    reaching = [f"{name} imports {target}" for name, path in found.items() if layer(name) == "site"
                for target, _ in imports(name, path, set(found)) if target in own]
    assert reaching == []


@pytest.fixture
def tree(tmp_path):
    """A small package to show the checker can fail."""
    for part in ("model", "book", "site"):
        (tmp_path / "pkg" / part).mkdir(parents=True)
        (tmp_path / "pkg" / part / "__init__.py").write_text('"""x"""\n')
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model" / "gpt.py").write_text("import numpy\n")
    (tmp_path / "pkg" / "book" / "a.py").write_text("from ..model import gpt\n")
    (tmp_path / "pkg" / "book" / "b.py").write_text("from . import a\n")
    return tmp_path / "pkg"


def test_the_checker_passes_a_good_tree(tree):
    assert problems(tree) == []


def test_the_checker_finds_a_lazy_import_against_the_direction(tree):
    (tree / "model" / "gpt.py").write_text("def f():\n    from ..book import a\n")
    assert problems(tree)[0] == "pkg/model/gpt.py:2: model imports pkg.book.a (book)"


def test_the_checker_finds_a_cycle_through_a_function(tree):
    (tree / "book" / "a.py").write_text("def f():\n    from .b import x\n")
    assert problems(tree) == ["cycle: pkg.book.a -> pkg.book.b -> pkg.book.a"]


def test_the_checker_finds_a_cycle_through_importlib(tree):
    (tree / "book" / "a.py").write_text('import importlib\n\ndef f():\n    return importlib.import_module("pkg.book.b")\n')
    assert problems(tree) == ["cycle: pkg.book.a -> pkg.book.b -> pkg.book.a"]


def test_the_checker_finds_an_import_by_name_against_the_direction(tree):
    (tree / "model" / "gpt.py").write_text('from importlib import import_module\nbook = import_module("pkg.book.a.f")\n')
    assert problems(tree)[0] == "pkg/model/gpt.py:2: model imports pkg.book.a (book)"


def test_no_two_classes_share_a_name():
    """A class name says which one it is wherever it is read (part.Part,
    minimap.MapPart and model_drawing.DrawnPart were all once "Part")."""
    import ast
    seen: dict[str, list[str]] = {}
    for path in sorted((ROOT / "toycalc").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                seen.setdefault(node.name, []).append(path.relative_to(ROOT).as_posix())
    assert {name: where for name, where in seen.items() if len(where) > 1} == {}
