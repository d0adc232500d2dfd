"""Node.js as the build runs it (the typesetter, typeset.py; the writer's
samples, writer_sampler.py): found on the PATH or named in one line, each
process in a session of its own, so that ending it ends its whole process
group, whatever it started, and a terminal's Ctrl-C reaches the build
alone, which then ends it."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess


def node_or_none() -> str | None:
    return shutil.which("node")


INSTALL = "install it (on Debian: apt install nodejs)"


def start(script, *args, **popen) -> subprocess.Popen:
    """`node script args…`, its pipes as popen says, leading a session of
    its own. The caller has found Node (node_or_none) and says who needs it."""
    return subprocess.Popen([node_or_none(), str(script), *map(str, args)], start_new_session=True,
                            text=True, encoding="utf-8", **popen)


def end(process: subprocess.Popen) -> None:
    """The process's group killed (its pid, as it leads its session) and
    the process waited for: nothing it started is left running."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass                                     # nothing left of it
    process.wait()
