"""A macro's arguments, checked before any work: each has the type its
function's signature gives (annotation, else its default's type), and a
number named below stays in its range, so that a slip such as
places=100000000 stops the build at once instead of hanging it. Positions,
heads and blocks are checked by the book's functions against the run (the
sentence's length, the model's heads)."""
from __future__ import annotations

import inspect

# name -> (lowest, highest, what it counts)
RANGES = {
    "places": (0, 6, "decimal places"),
    "rows": (1, 192, "rows shown (the largest matrix has 192)"),
    "cols": (1, 192, "columns shown (the largest matrix has 192)"),
    "terms": (1, 48, "terms written out (d = 48)"),
    "channels": (1, 48, "channels shown (d = 48)"),
    "per_head": (1, 48, "columns shown per head"),
    "step": (1, 4096, "tokens between two points"),
}

KINDS = {int: "a whole number", float: "a number", str: "text in quotes", bool: "true or false"}

# words a number's place also takes: nano-gpt's head="best" (the head that sorts best)
WORDS = {"head": ("best",), "block": ("best",)}


def expected_type(parameter: inspect.Parameter):
    annotation = parameter.annotation
    if isinstance(annotation, str):       # from __future__ import annotations
        annotation = {"int": int, "float": float, "str": str, "bool": bool}.get(annotation)
    if annotation in KINDS:
        return annotation
    default = parameter.default
    return type(default) if type(default) in KINDS else None


def fits(value, kind) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind) and not isinstance(value, bool)


def check_arguments(function, options: dict, choices=(), skip: int = 1) -> None:
    """Raise ValueError naming the first argument that is unknown, missing,
    of the wrong type, or out of its range. The first `skip` parameters are
    the run's, not the page's; `choices` are the arguments the macro itself
    takes (heads, temperature), named among what it takes."""
    parameters = list(inspect.signature(function).parameters.values())[skip:]
    accepted = [p.name for p in parameters]
    unknown = [k for k in options if k not in accepted]
    if unknown:
        takes = ", ".join(accepted + list(choices)) or "no arguments"
        raise ValueError(f"unknown argument '{unknown[0]}'; it takes {takes}")
    for p in parameters:
        if p.name not in options:
            if p.default is inspect.Parameter.empty:
                raise ValueError(f"the argument '{p.name}' is missing; it takes "
                                 f"{', '.join(q.name for q in parameters)}")
            continue
        value, kind = options[p.name], expected_type(p)
        if value in WORDS.get(p.name, ()):
            continue
        if kind is not None and not fits(value, kind):
            words = "".join(f' or "{w}"' for w in WORDS.get(p.name, ()))
            raise ValueError(f"{p.name} = {value!r}: expected {KINDS[kind]}{words}")
        if p.name in RANGES and kind in (int, float):
            low, high, what = RANGES[p.name]
            if not low <= value <= high:
                raise ValueError(f"{p.name} = {value!r}: expected {low} to {high} {what}")
