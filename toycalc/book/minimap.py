"""The "you are here" map at the top of each chapter page: the block drawn
as the data flows through it, the parts the page explains highlighted,
each part a link to the page that explains it.

It is Markdown (a list of links inside md_in_html), so mkdocs checks and
rewrites every link like any other; CSS draws the list as a row of boxes
with arrows (docs/stylesheets/figures.css).
"""
from __future__ import annotations

# The flow, in the book's symbols (HTML allowed), one node per box.
NODES = ["ids", "E[id]", "+ P", "x", "u", "q, k, v", "heads", "W<sub>O</sub>", "h", "u′", "MLP", "y",
         "f", "z", "p", "next token"]

# Per chapter: the page that explains each node, and the nodes each page highlights.
TOY_LINKS = {
    "ids": "tokens.md", "E[id]": "embedding.md", "+ P": "positions.md", "x": "positions.md",
    "u": "layernorm.md", "q, k, v": "attention.md", "heads": "attention.md", "W<sub>O</sub>": "attention.md",
    "h": "mlp.md", "u′": "mlp.md", "MLP": "mlp.md", "y": "mlp.md", "f": "output.md", "z": "output.md",
    "p": "output.md", "next token": "generation.md",
}
NANO_LINKS = {
    "ids": "embedding.md", "E[id]": "embedding.md", "+ P": "embedding.md", "x": "embedding.md",
    "u": "layer-norm.md", "q, k, v": "self-attention.md", "heads": "self-attention.md",
    "W<sub>O</sub>": "projection.md", "h": "projection.md", "u′": "layer-norm.md", "MLP": "mlp.md",
    "y": "mlp.md", "f": "output.md", "z": "output.md", "p": "softmax.md", "next token": "output.md",
}
BLOCK = ["u", "q, k, v", "heads", "W<sub>O</sub>", "h", "u′", "MLP", "y"]
# pages whose highlight is not simply the nodes that link to them
NANO_EXTRA = {"transformer.md": BLOCK, "softmax.md": ["heads", "p"], "output.md": ["p"],
              "index.md": [], "preliminaries.md": []}


def highlighted(chapter: str, page: str) -> list[str]:
    links = TOY_LINKS if chapter == "toy" else NANO_LINKS
    extra = NANO_EXTRA if chapter == "nano-gpt" else {}
    return [n for n in NODES if links[n] == page or n in extra.get(page, [])]


def minimap(src_path: str) -> str | None:
    """The map for the page at `src_path` (as docs/ names it), or None for
    a page outside the two chapters."""
    chapter, _, page = src_path.partition("/")
    if chapter not in ("toy", "nano-gpt") or not page.endswith(".md"):
        return None
    links = TOY_LINKS if chapter == "toy" else NANO_LINKS
    here = highlighted(chapter, page)
    title = "the toy model's block" if chapter == "toy" else "one of nano-gpt's three blocks, and what comes before and after"
    items = []
    for n in NODES:
        attrs = (" .in-block" if n in BLOCK else "") + (' .here aria-current="page"' if n in here else "")
        items.append(f"- [{n}]({links[n]})" + (f"{{{attrs} }}" if attrs else ""))
    return ('<figure class="minimap" data-figure="minimap" markdown>\n'
            f'<figcaption>You are here: the highlighted parts of {title}, as the data flows.</figcaption>\n\n'
            + "\n".join(items) + "\n\n</figure>\n")
