"""MkDocs glue: the one macros module that registers every part's functions,
the build hooks, the weights exported for the browser, the contributor page's list."""
