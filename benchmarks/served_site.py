"""What the browser benchmarks share: the site built for a free local port,
served from a temporary folder, and headless chromium (Debian's) to load it."""
from __future__ import annotations

import contextlib
import functools
import http.server
import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def built_and_served(handler=Quiet):
    """Yields (the base URL, the built site's folder): the site built for a
    free local port (navigation.instant needs the site's address) and
    served there by `handler` until the block ends."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as site:
        # NO_MKDOCS_2_WARNING: Material's end-of-life notice (eight lines on
        # stderr) would sit among the figures this prints (tests/conftest.py)
        env = dict(os.environ, TOYCALC_SITE_URL=f"http://127.0.0.1:{port}/", NO_MKDOCS_2_WARNING="1")
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", site],
                       cwd=ROOT, env=env, check=True)
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port),
                                                functools.partial(handler, directory=site))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{port}", Path(site)
        finally:
            httpd.shutdown()


@contextlib.contextmanager
def served_site():
    """Yields (the base URL, the built site's folder, a headless chromium)."""
    from playwright.sync_api import sync_playwright

    with built_and_served() as (base, site), sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            yield base, site, browser
        finally:
            browser.close()
