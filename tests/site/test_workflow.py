"""The keepers' workflow: checking a weights file from the command line,
reproducible builds."""
import filecmp
import re
import socket
import subprocess
import sys

import pytest

from conftest import ROOT, build_site, mkdocs_env
from toycalc.model.weights import DEFAULT_TOY


def run_check(*args):
    return subprocess.run([sys.executable, "-m", "toycalc", "check", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_check_prints_the_predictions():
    result = run_check(str(DEFAULT_TOY))
    assert result.returncode == 0, result.stderr
    assert '"the cat climbed the" with 2 heads: ␣roof 0.395' in result.stdout
    assert '"the cat climbed the" with 1 head: ␣cat 0.426' in result.stdout
    assert '"the cat climbed the" with 4 heads: ␣cat 0.306' in result.stdout


def test_check_reports_a_bad_file_in_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(DEFAULT_TOY.read_text(encoding="utf-8").replace("heads: 2 ", "heads: 3 "), encoding="utf-8")
    result = run_check(str(bad))
    assert result.returncode == 1
    assert result.stderr.startswith(f"error: {bad}: key 'heads'") and "Traceback" not in result.stderr


def test_check_reports_a_sentence_it_cannot_cut():
    result = run_check(str(DEFAULT_TOY), "the cat jumped")
    assert result.returncode == 1 and 'cannot cut "␣jumped"' in result.stderr


@pytest.mark.build
def test_two_builds_give_the_same_site(site, tmp_path):
    """Byte for byte, every file but the sitemap (which carries the day)."""
    result = build_site(tmp_path / "again")
    assert result.returncode == 0, result.stderr

    def files(root):
        return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file() and "sitemap" not in p.name)
    pages = files(site)
    assert any(p.suffix == ".html" for p in pages)
    assert pages == files(tmp_path / "again")
    different = [str(p) for p in pages if not filecmp.cmp(site / p, tmp_path / "again" / p, shallow=False)]
    assert different == []


# Two builds in one process, toycalc's code "saved" between them: run in
# a process of its own, since the reload (site/fresh.py) would leave the
# tests' process with modules of two loads, each with its own registries
# (model/models.py's, book/chapters.py's).
REBUILD = """
import sys
from mkdocs.commands.build import build
from mkdocs.config import load_config
config, one, two = sys.argv[1:]
build(load_config(config, site_dir=one))
before = sys.modules["toycalc.book.end_to_end"]
sys.modules["toycalc.site.fresh"].LOADED_AT = 0  # as if a file had been saved since
build(load_config(config, site_dir=two))
assert sys.modules["toycalc.book.end_to_end"] is not before, "the second build ran the modules in memory"
assert sys.modules["toycalc.site.fresh"].LOADED_AT > 0, "the second build did not load toycalc anew"
"""


@pytest.mark.build
def test_a_rebuild_reads_changed_code_again(tmp_path):
    """As under mkdocs serve: a second build in the same process, after
    toycalc's code changed, runs the new code, not the modules in memory."""
    env = mkdocs_env()
    env.pop("TOYCALC_WEIGHTS", None)
    result = subprocess.run([sys.executable, "-c", REBUILD, str(ROOT / "mkdocs.yml"), str(tmp_path / "one"),
                             str(tmp_path / "two")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "two" / "end-to-end" / "index.html").read_text(encoding="utf-8") == \
        (tmp_path / "one" / "end-to-end" / "index.html").read_text(encoding="utf-8")


@pytest.mark.build
def test_a_site_published_under_a_repository_path(tmp_path, monkeypatch):
    """GitHub Pages serves a project at https://USER.github.io/REPO/: the
    sitemap and the 404 page must point there. The address is given as
    configure-pages' base_url gives it, without the last slash."""
    result = build_site(tmp_path / "site", address={"TOYCALC_SITE_URL": "https://user.github.io/repo"})
    assert result.returncode == 0, result.stderr
    sitemap = (tmp_path / "site" / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://user.github.io/repo/end-to-end/</loc>" in sitemap
    not_found = (tmp_path / "site" / "404.html").read_text(encoding="utf-8")
    assert 'href="/repo/end-to-end/"' in not_found and 'href="/end-to-end/"' not in not_found


PINNED = re.compile(r"^\s*(?:- )?uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40})\s+# v\d+(\.\d+)*$")


def workflow():
    import yaml
    text = (ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    return text, yaml.safe_load(text)


def uses(step) -> str:
    """owner/name of an action, without the commit it is pinned to."""
    return step.get("uses", "").split("@")[0]


def test_the_pages_workflow_runs_the_tests_and_deploys():
    _, flow = workflow()
    steps = flow["jobs"]["build"]["steps"]
    runs = [s.get("run", "") for s in steps]
    used = [uses(s) for s in steps] + [uses(s) for s in flow["jobs"]["deploy"]["steps"]]
    assert "./.ci/run" in runs and "make build" in runs
    assert {"actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"} <= set(used)
    # the site's address comes from the Pages settings, before the build uses it
    build = next(s for s in steps if s.get("run") == "make build")
    pages = next(s for s in steps if uses(s) == "actions/configure-pages")
    assert steps.index(pages) < steps.index(build)
    assert build["env"]["TOYCALC_SITE_URL"] == "${{ steps.%s.outputs.base_url }}" % pages["id"]
    # and the edit links point to the repository and branch being built
    assert build["env"]["TOYCALC_REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    assert build["env"]["TOYCALC_EDIT_BRANCH"] == "${{ github.ref_name }}"


def test_the_pages_workflow_grants_the_least_it_can():
    """Only the jobs that run none of our code may write: deploy to Pages,
    notebooks to the branch Colab opens them from (gh, tar and git, no
    action, no checkout); the job that runs apt, pip and the tests can
    only read."""
    _, flow = workflow()
    assert flow["permissions"] == {"contents": "read"}
    assert flow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    notebooks = flow["jobs"]["notebooks"]
    assert notebooks["permissions"] == {"actions": "read", "contents": "write"}
    assert all("uses" not in step and "make" not in step["run"] and ".ci" not in step["run"]
               for step in notebooks["steps"])
    for name, job in flow["jobs"].items():
        granted = job.get("permissions", {})
        if name not in ("deploy", "notebooks"):
            assert all(v in ("read", "none") for v in granted.values()), (name, granted)
        assert 0 < job["timeout-minutes"] <= 60, name
    checkout = [s for job in flow["jobs"].values() for s in job["steps"] if uses(s) == "actions/checkout"]
    assert checkout and all(s["with"]["persist-credentials"] is False for s in checkout)


def test_the_pages_workflow_pins_every_action_by_commit():
    text, flow = workflow()
    lines = [line for line in text.splitlines() if "uses:" in line]
    every = [s for job in flow["jobs"].values() for s in job["steps"] if "uses" in s]
    assert len(lines) == len(every) >= 5
    for line in lines:
        assert PINNED.match(line), f"not pinned by commit with its version beside it: {line.strip()}"


def test_the_pages_workflow_installs_a_pinned_node_before_the_tests():
    """Node typesets every formula at build: the workflow installs one
    version, whole (major.minor.patch), the major of the Node here, before
    the tests and the build run."""
    _, flow = workflow()
    steps = flow["jobs"]["build"]["steps"]
    node = [s for s in steps if uses(s) == "actions/setup-node"]
    assert len(node) == 1
    version = str(node[0]["with"]["node-version"])
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"node-version {version!r} is not one release"
    tests = next(s for s in steps if s.get("run") == "./.ci/run")
    assert steps.index(node[0]) < steps.index(tests)
    here = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    assert here.lstrip("v").split(".")[0] == version.split(".")[0], f"Node {here} here, {version} in CI"


def test_make_serve_on_a_taken_port_says_so_in_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(["make", "--no-print-directory", "serve", f"PORT={port}"], cwd=ROOT,
                                capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert result.stderr.startswith(f"make serve: port {port} is taken (another make serve?): make serve PORT=")
    assert "Traceback" not in result.stderr and "Building" not in result.stderr
