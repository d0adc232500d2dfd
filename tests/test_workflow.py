"""The keepers' workflow: checking a weights file from the command line,
reproducible builds."""
import filecmp
import subprocess
import sys

from conftest import ROOT, build_site
from toycalc.weights import DEFAULT_TOY


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
