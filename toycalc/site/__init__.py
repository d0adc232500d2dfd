"""The site: the module mkdocs-macros loads (macros.py), the MkDocs hooks
(mkdocs.yml's `hooks:`) and what they share. Which file is glue to the
platform, which patches its internals and which is plain Python of ours:
docs/contributing.md, "When the platform ends" (reference.site_files)."""
