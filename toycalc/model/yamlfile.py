"""Read a YAML file typed by hand, as people mean it, and safely.

PyYAML reads YAML 1.1: `1e3` is a string there, `010` is 8, `0x10` is 16,
`1:30` is 90, a repeated key silently replaces the first, and an alias
(`*name`) repeats a part of the file as often as it is written, which lets
a 3 KB file stand for gigabytes. Its composer also recurses in C: a
hundred thousand `[` crash the process. So this module builds the data
itself from libyaml's events (a loop, no recursion), with:

- numbers as YAML 1.2 and Python write them: `1`, `-0.5`, `1e3`, `2e-3`,
  `.5`, `1_000`, `.inf`, `.nan`; `true`/`false`; `null`/`~`; and with the
  true minus sign the book prints (`−0.5`, `1e−3`), so a number copied
  from a page reads as it shows; each a float or int that keeps its text
  (`written`), for messages;
- `010`, `0x10`, `0o7`, `0b1`, `1:30` refused with what to write instead;
- a key repeated in a mapping refused, naming both lines;
- aliases, anchors and tags refused; nesting deeper than MAX_DEPTH refused.

`load(text)` returns the data or raises YamlError(line, message).
"""
from __future__ import annotations

import re

import yaml

# libyaml's parser where PyYAML was built with it (about 6x faster).
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_DEPTH = 8            # a weights file needs 3: the file, a matrix, a row

_DIGITS = r"[0-9](?:_?[0-9])*"                       # 1000 or 1_000, as Python writes them
# What a number typed by hand may be, in order: the first pattern that
# matches the whole text decides ("int" or "float": read as that number;
# otherwise refused, saying why). End to End's weights editor follows
# the same table (exported in toy-editor.json, read by weights_editor.js's
# readNumber), so the editor and this loader accept the same spellings;
# tests/model/test_number_rules.py runs one list of strings through both.
NUMBER_RULES = [
    {"pattern": r"[-+]?(?:0|[1-9](?:_?[0-9])*)", "read": "int"},
    {"pattern": rf"[-+]?(?:(?:0|[1-9](?:_?[0-9])*)(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})"
                rf"(?:[eE][-+]?{_DIGITS})?", "read": "float"},
    {"pattern": r"[-+]?0[0-9_]+(?:\.[0-9_]*)?(?:[eE][-+]?[0-9_]+)?",
     "why": "a leading zero (YAML 1.1 reads 010 as 8): write the number without it"},
    {"pattern": r"[-+]?0[xXoObB][0-9a-fA-F_]+",
     "why": "hexadecimal, octal or binary: write the number in decimal"},
    {"pattern": r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?",
     "why": "base 60 (YAML 1.1 reads 1:30 as 90): write the number in decimal, or quote the text"},
]
_INT, _FLOAT = (re.compile(rule["pattern"]) for rule in NUMBER_RULES[:2])
_SPECIAL = {".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
            "+.inf": float("inf"), "+.Inf": float("inf"), "+.INF": float("inf"),
            "-.inf": float("-inf"), "-.Inf": float("-inf"), "-.INF": float("-inf"),
            ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
            "true": True, "True": True, "TRUE": True, "false": False, "False": False,
            "FALSE": False, "null": None, "Null": None, "NULL": None, "~": None, "": None}
# What YAML 1.1 (and other readers) would take for a number, but not as you meant it.
_TRAPS = [(re.compile(rule["pattern"]), rule["why"]) for rule in NUMBER_RULES[2:]]
MINUS = "\u2212"         # the true minus sign, which the book prints; read as "-"
MAX_DIGITS = 30          # longer numbers are refused before Python converts them


class YamlError(ValueError):
    """A mistake at a line of the file (1-based; 0 when the file has none)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


class Trap:
    """A plain scalar that looks like a number but is not read as one:
    kept as it was typed, with the reason, for the caller's message."""

    def __init__(self, text: str, why: str):
        self.text, self.why = text, why

    def __repr__(self) -> str:
        return excerpt(self.text)


class WrittenFloat(float):
    """A number read from the file that keeps its text, so that a message
    shows it as it was typed (1000000.1, 1e7), not as Python would print it
    (1e+06)."""

    __slots__ = ("text",)

    def __new__(cls, value, text: str):
        number = super().__new__(cls, value)
        number.text = text
        return number


class WrittenInt(int):
    """An integer read from the file, with its text (as WrittenFloat)."""

    def __new__(cls, value, text: str):
        number = super().__new__(cls, value)
        number.text = text
        return number


def written(value, limit: int = 40) -> str:
    """A number as the file has it (its text), or as Python writes it: at
    most `limit` characters."""
    text = getattr(value, "text", None) or repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def excerpt(text: str, limit: int = 40) -> str:
    """At most `limit` characters of what was typed, quoted."""
    text = str(text)
    return repr(text if len(text) <= limit else text[:limit] + "…")


def scalar(value: str, plain: bool):
    """A scalar as YAML 1.2's core schema reads it (quoted ones are text)."""
    if not plain:
        return value
    if value in _SPECIAL:
        return _SPECIAL[value]
    typed = value
    if MINUS in value:                       # −0.5 as the book prints it, copied from a page
        signed = value.replace(MINUS, "-")
        if _INT.fullmatch(signed) or _FLOAT.fullmatch(signed):
            value = signed
    if _INT.fullmatch(value) or _FLOAT.fullmatch(value):
        if sum(c.isdigit() for c in value.split("e")[0].split("E")[0]) > MAX_DIGITS:
            return Trap(value, f"a number of more than {MAX_DIGITS} digits")
        if _INT.fullmatch(value):
            return WrittenInt(value, typed)
        number = float(value)
        if number in (float("inf"), float("-inf")):
            return Trap(value, "too large for a floating-point number")
        return WrittenFloat(number, typed)
    for pattern, why in _TRAPS:
        if pattern.fullmatch(value):
            return Trap(value, why)
    return value


def load(text: str):
    """The data of a one-document YAML text (see the module's docstring)."""
    parser = _Parser(text)
    try:
        return _build(parser)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise YamlError(mark.line + 1 if mark else 0,
                        f"not valid YAML: {e.problem or e.context}") from None
    except yaml.reader.ReaderError as e:     # a character YAML does not allow
        line = text.count("\n", 0, e.position) + 1 if isinstance(e.position, int) else 0
        code = e.character if isinstance(e.character, int) else ord(e.character)
        raise YamlError(line, f"not valid YAML: character U+{code:04X} is not allowed "
                              f"({e.reason})") from None
    except yaml.YAMLError as e:
        raise YamlError(0, f"not valid YAML: {excerpt(e, 120)}") from None
    finally:
        parser.dispose()


def _build(parser):
    # stack of [container, pending key or None, key lines] for open collections
    stack: list = []
    root = None
    documents = 0
    while parser.check_event():
        event = parser.get_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise YamlError(line, "a second YAML document (---): a weights file holds one")
            continue
        if isinstance(event, yaml.AliasEvent):
            raise YamlError(line, f"alias *{excerpt(event.anchor, 20)[1:-1]}: aliases are not "
                                  "allowed; write the values out")
        if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            if event.anchor is not None:
                raise YamlError(line, f"anchor &{excerpt(event.anchor, 20)[1:-1]}: anchors and "
                                      "aliases are not allowed; write the values out")
            if event.tag not in (None, "!"):
                raise YamlError(line, f"tag {excerpt(event.tag, 40)}: tags are not allowed")
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            stack.pop()
            continue
        if isinstance(event, yaml.ScalarEvent):
            value = scalar(event.value, plain=event.style in ("", None) and event.implicit[0])
        elif isinstance(event, yaml.SequenceStartEvent):
            value = []
        elif isinstance(event, yaml.MappingStartEvent):
            value = {}
        else:                                  # stream and document events
            continue
        if stack:
            _add(stack[-1], value, line)
        else:
            root = value
        if isinstance(value, (list, dict)):
            if len(stack) >= MAX_DEPTH:
                raise YamlError(line, f"nested deeper than {MAX_DEPTH} levels")
            stack.append([value, None, {}])
    return root



def _add(top, value, line: int) -> None:
    """Put value into the open collection `top`, a key first in a mapping."""
    container, key, lines = top
    if isinstance(container, list):
        container.append(value)
        return
    if key is None:                              # value is a key
        try:
            hash(value)
        except TypeError:
            raise YamlError(line, "a list or a mapping used as a key") from None
        if value in lines:
            raise YamlError(line, f"key {excerpt(value)} appears twice (lines {lines[value]} "
                                  f"and {line}); YAML would keep only the last: remove one")
        lines[value] = line
        top[1] = (value,)                        # a tuple, so that a key None is still a key
    else:
        container[key[0]] = value
        top[1] = None
