"""MkDocs glue, one concern a file: the macros module that registers every part's
functions, the hooks (MathJax, weights, staged build, serve, speedups, pages, blocks)."""
