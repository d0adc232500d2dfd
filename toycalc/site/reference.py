"""The contributor page's list of every macro a page may call, read from
the registered functions themselves, so it can never fall behind."""
from __future__ import annotations

import html
import inspect


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
        parts.append(f'<h3 id="macro-{name}"><code>{name}</code></h3>\n'
                     f'<table id="table-macro-{name}"><thead><tr><th>call (defaults shown)</th>'
                     f"<th>what it gives</th></tr></thead><tbody>{rows}</tbody></table>")
    rows = "".join(f"<tr><td class=\"wrap\"><code>&#123;&#123; {name}({html.escape(_signature(f, False))}) &#125;&#125;</code></td>"
                   f"<td class=\"wrap\">{_summary(f)}</td></tr>" for name, f in plain)
    parts.append('<h3 id="macro-other">Other macros</h3>\n'
                 '<table id="table-macro-other"><thead><tr><th>call</th><th>what it gives</th></tr></thead>'
                 f"<tbody>{rows}</tbody></table>")
    return "\n".join(parts)
