"""A file named by a reader (a weights path, TOYCALC_WEIGHTS, the command
line) is read only if it is a regular file: opening a FIFO waits for a
writer forever, and a device can be endless, so either would hang the
build or `check` instead of failing."""
from __future__ import annotations

import os
import stat
import tempfile
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


def read_within(path: str | Path, limit: int) -> tuple[bytes | None, int]:
    """The file's bytes and their size, or (None, its size) when it holds
    more than `limit` bytes. It reads at most limit + 1 bytes, so a file
    that is huge, or grows while it is read, costs no more than that. An
    OSError is the caller's to word (it knows what the file is)."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
        if len(data) <= limit:
            return data, len(data)
        return None, max(os.fstat(f.fileno()).st_size, len(data))


def replace_together(writes) -> None:
    """Each (path, write) pair: write(f) fills a temporary file beside path,
    and once every one is complete they are renamed over the old files in
    order; a failure or a kill before that leaves the files that were there
    (a model's weights and their record, say), and no temporary file."""
    parts = []
    try:
        for target, write in writes:
            fd, part = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
            parts.append(part)
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(part, 0o644)   # mkstemp's 0600 would hide the weights from the web server
        for (target, _), part in zip(writes, parts):
            os.replace(part, target)
    finally:
        for part in parts:
            if os.path.exists(part):
                os.unlink(part)
