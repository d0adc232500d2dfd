"""MkDocs hook: build elsewhere, then move the new site into place.

`mkdocs build` empties site_dir before it starts, so a failing or
interrupted build would leave no site at all. Here it builds into a
hidden folder beside site_dir and moves that into place only when the
whole build succeeded; otherwise the folder goes and the previous site
stays as it was. Success is known only at the end: `--strict` fails a
build for its warnings after on_post_build (through on_build_error), so
the move waits for on_shutdown, the last event of an `mkdocs` command,
and happens only if on_post_build came and on_build_error did not. The
new site and the old one swap places in one step (Linux's renameat2 with
RENAME_EXCHANGE), so there is no moment without a site, even if the
build is killed then. A site_dir that is a symbolic link (to a web root)
keeps its link: the folder it points to is the one replaced. Folders that killed builds left
behind are removed by the next build. `mkdocs serve` (which builds into a
temporary folder of its own) and `--dirty` builds are left alone.
"""
from __future__ import annotations

import atexit
import ctypes
import errno
import os
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

STAGED = False       # set once per process: a hook module outlives serve's rebuilds
STAGING: dict = {}   # staging folder -> its build: target, final (site_dir as given), config, built


def on_startup(command, dirty):
    global STAGED
    STAGED = command != "serve" and not dirty


@event_priority(100)   # before the plugins, so that every one of them writes to the staging folder
def on_config(config):
    if STAGED:
        final = Path(config.site_dir)
        target = final.resolve() if final.is_symlink() else final   # a web root's link stays a link
        remove_leftovers(target)
        staging = target.parent / f".{target.name}.building-{os.getpid()}"
        remove(staging)
        STAGING[str(staging)] = SimpleNamespace(target=target, final=final, config=config, built=False)
        config.site_dir = str(staging)
    return config


def remove_leftovers(target: Path) -> None:
    """The staging and old folders of builds that were killed (their
    process is gone); a build still running keeps its own."""
    for folder in target.parent.glob(f".{target.name}.*-*"):
        kind, _, pid = folder.name[len(target.name) + 2:].rpartition("-")
        if kind in ("building", "old") and pid.isdigit() and not alive(int(pid)):
            remove(folder)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:      # another user's process
        return True
    return True


@event_priority(-100)  # after every other plugin has written its files
def on_post_build(config):
    if config.site_dir in STAGING:
        STAGING[config.site_dir].built = True   # whole, unless --strict now fails it (on_build_error)


def on_shutdown():
    """Put each whole build in place; remove what an interrupted or failed
    one left (a macro's exit and Ctrl-C skip on_build_error, not this)."""
    for staging, build in list(STAGING.items()):
        del STAGING[staging]
        if not build.built:
            remove(Path(staging))
            continue
        for _ in range(10):      # another build may be moving its own site into place
            try:
                put_in_place(Path(staging), build.target)
                break
            except OSError:
                time.sleep(0.2)
        else:
            remove(Path(staging))
            raise PluginError(f"{build.final}: could not move the new site into place; the previous one stays")
        build.config.site_dir = str(build.final)   # what gh-deploy pushes, after this event


def put_in_place(new: Path, target: Path) -> None:
    """Make new the folder target, in one step where the system can."""
    if target.exists() and swap(new, target):
        remove(new)                       # now the old site
        return
    old = target.parent / f".{target.name}.old-{os.getpid()}"
    remove(old)
    if target.exists():
        target.rename(old)
    new.rename(target)
    remove(old)


RENAME_EXCHANGE, AT_FDCWD = 2, -100


def swap(a: Path, b: Path) -> bool:
    """Exchange two folders atomically (Linux 3.15+, glibc 2.28+); False
    where the system cannot, so that the caller does it in two renames."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    if renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):   # not this kernel or file system
        return False
    raise OSError(code, os.strerror(code), str(b))


def on_build_error(error):
    for staging in list(STAGING):
        remove(Path(staging))
        del STAGING[staging]


@atexit.register     # should on_shutdown not come (it is "best effort" in MkDocs' words)
def _leftovers():
    on_build_error(None)


def remove(folder: Path) -> None:
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
