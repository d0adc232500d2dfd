"""The toy chapter's part of the book: `toy`, whose registries the page
modules of this package fill, one decorator beside each function
(`@toy.table("vocab")` is what a page calls as `{{ toy_table("vocab") }}`).
A module of its own, so that the package can import every page."""
from __future__ import annotations

from ..part import Part


toy = Part("toy_")
