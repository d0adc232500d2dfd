"""The site: macros.py (mkdocs-macros loads it), the MkDocs hooks and what they
share; which is glue, which patches internals, which is ours: docs/contributing.md."""
