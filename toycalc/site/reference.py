"""The contributor page's list of every macro a page may call, read from
the registered functions themselves, and its table of what each file of
the site's code is to the platform, read from the files: neither can fall
behind."""
from __future__ import annotations

import ast
import html
import inspect
from pathlib import Path


def _signature(function, skip_first: bool) -> str:
    params = list(inspect.signature(function).parameters.values())[1 if skip_first else 0:]
    return ", ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
                     for p in params)


def _summary(function) -> str:
    """The first paragraph of the docstring, on one line."""
    doc = inspect.getdoc(function) or ""
    return html.escape(" ".join(doc.split("\n\n")[0].split()))


def macro_reference(macros: dict) -> str:
    """One table per macro with a registry (its names, their arguments and
    what they show), then the plain macros. `macros` maps names to the
    functions the pages call."""
    parts, plain = [], []
    for name, function in sorted(macros.items()):
        if not getattr(function, "__module__", "").startswith("toycalc"):
            continue  # mkdocs-macros' own (context, now, ...)
        registry = getattr(function, "registry", None)
        if registry is None:
            plain.append((name, function))
            continue
        rows = "".join(
            f"<tr><td class=\"wrap\"><code>&#123;&#123; {name}(\"{key}\"{', ' if _signature(f, True) else ''}"
            f"{html.escape(_signature(f, True))}) &#125;&#125;</code></td><td class=\"wrap\">{_summary(f)}</td></tr>"
            for key, f in registry.items())
        # (a table of words: its cells wrap, code too, to fit a phone; book.css)
        parts.append(f'<h3 id="macro-{name}"><code>{name}</code></h3>\n'
                     f'<div class="wrapping-table"><table id="table-macro-{name}"><thead><tr><th>call (defaults shown)</th>'
                     f"<th>what it gives</th></tr></thead><tbody>{rows}</tbody></table></div>")
    rows = "".join(f"<tr><td class=\"wrap\"><code>&#123;&#123; {name}({html.escape(_signature(f, False))}) &#125;&#125;</code></td>"
                   f"<td class=\"wrap\">{_summary(f)}</td></tr>" for name, f in plain)
    parts.append('<h3 id="macro-other">Other macros</h3>\n'
                 '<div class="wrapping-table"><table id="table-macro-other"><thead><tr><th>call</th><th>what it gives</th></tr></thead>'
                 f"<tbody>{rows}</tbody></table></div>")
    return "\n".join(parts)


# ---------------------------------------------------------------- the platform

# What each file of toycalc/site/ and of the theme's overrides is to the
# platform (MkDocs, mkdocs-macros, Material, print-site), read from the file:
#   patch  reaches inside it: pinned.py, a module that calls pinned.py, a
#          copy of one of Material's partials (pinned.THEME_COPIES)
#   glue   uses its documented interface: imports it, or defines its events
#          (on_config, on_page_content, ...) or mkdocs-macros' (define_env,
#          on_post_page_macros)
#   ours   plain Python that knows none of it
# The contributor page's table ("When the platform ends") is made from
# this, so it can never fall behind the code.
PLATFORM = ("mkdocs", "mkdocs_macros", "material", "mkdocs_print_site_plugin")
KINDS = {"patch": "patch of internals", "glue": "MkDocs glue", "ours": "ours"}


def imported_modules(tree: ast.Module) -> set[str]:
    """Every module a Python file imports, and each name it imports from
    one (`from toycalc.site import pinned` gives toycalc.site.pinned)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.add(base)
            found |= {f"{base}.{alias.name}".replace("..", ".") for alias in node.names}
    return found


def kind(path: Path) -> str:
    """patch, glue or ours: see above."""
    if path.suffix != ".py":
        return "patch" if path.parent.name == "partials" else "glue"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = imported_modules(tree)
    if path.name == "pinned.py" or any(m.split(".")[-1] == "pinned" for m in modules):
        return "patch"
    events = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)
              and (node.name.startswith("on_") or node.name == "define_env")]
    if events or any(m.split(".")[0] in PLATFORM for m in modules):
        return "glue"
    return "ours"


def site_files(site: Path, overrides: Path | None) -> list[tuple[str, str, int]]:
    """(file, kind, lines) for every module of site and every file of
    overrides, patches first, then glue, then ours; by name within each."""
    files = sorted(site.glob("*.py"))
    if overrides is not None:
        files += sorted(p for p in overrides.rglob("*") if p.is_file())
    rows = []
    for path in files:
        name = (f"toycalc/site/{path.name}" if path.parent == site
                else f"overrides/{path.relative_to(overrides).as_posix()}")
        rows.append((name, kind(path), len(path.read_text(encoding="utf-8").splitlines())))
    order = list(KINDS)
    return sorted(rows, key=lambda row: (order.index(row[1]), row[0]))


def site_files_table(rows: list[tuple[str, str, int]]) -> str:
    """The rows as a table, with each kind's lines and files summed below."""
    body = "".join(f"<tr><td><code>{html.escape(name)}</code></td><td>{KINDS[k]}</td><td>{lines}</td></tr>"
                   for name, k, lines in rows)
    sums = "".join(f"<tr><th>{sum(1 for r in rows if r[1] == k)} files</th><th>{KINDS[k]}</th>"
                   f"<th>{sum(r[2] for r in rows if r[1] == k)}</th></tr>" for k in KINDS)
    return ('<table id="table-site-files"><thead><tr><th>file</th><th>kind</th><th>lines</th></tr></thead>'
            f"<tbody>{body}</tbody><tfoot>{sums}</tfoot></table>")
