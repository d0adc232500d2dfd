"""What a page shows: pure functions from a model run to strings (tables,
formulas, numbers, figures), one module per part of the book. Knows no mkdocs."""
