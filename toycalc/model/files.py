"""A file named by a reader (a weights path, TOYCALC_WEIGHTS, the command
line) is read only if it is a regular file: opening a FIFO waits for a
writer forever, and a device can be endless, so either would hang the
build or `check` instead of failing."""
from __future__ import annotations

import os
import stat
from pathlib import Path

KINDS = [(stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
         (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
         (stat.S_ISSOCK, "a socket")]


def not_regular(path: str | Path) -> str | None:
    """Why path is not a regular file ("a FIFO (named pipe)", ...), or None
    if it is one; a path that does not exist is left to open() to report.
    A symlink counts as what it points to."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in KINDS if test(mode)), "not a regular file")
