"""A mistake in a page's macro call stops the build with one line naming the
page and what exists, never a traceback, never a published error page.
The macros run in process on the page's text (conftest.macros,
page_error); a few real builds prove the wiring."""
import io
import logging
import re

import pytest
import yaml
from mkdocs.exceptions import PluginError

from conftest import ROOT, build_with_page, claim_calls, page, page_error, render_page
from toycalc.book import claims
from toycalc.book.example import Example
from toycalc.model.weights import DEFAULT_TOY


@pytest.mark.parametrize("call, message", [
    ('{{ table("nope") }}', "bad.md, line 3: table('nope'): no such table; the tables are: pieces, ids, grad_E,"),
    ('{{ number("p", tokn="␣roof") }}', "bad.md, line 3: number('p'): unknown argument 'tokn'; it takes token, places, heads, temperature"),
    ('{{ number("p", token="␣moon") }}', "bad.md, line 3: number('p'): token = '␣moon' is not in the vocabulary"),
    ('{{ table("attention", head=3, heads=2) }}', "bad.md, line 3: table('attention'): head = 3: this run has heads 1 to 2"),
    ('{{ formula("mlp", heads=3) }}', "bad.md, line 3: formula('mlp'): heads = 3 does not divide d = 4; expected one of 1, 2, 4"),
    ('{{ nosuch() }}', "bad.md, line 3: 'nosuch' is undefined; every macro is listed on the page 'Writing for the book'"),
    ('{{ claim("blocks", name="W_1", layout="I|J") }}',
     "bad.md, line 3: claim('blocks'): layout = 'I|J': block 'J' is none of I, -I, 0"),
])
def test_bad_macro_call(macros, call, message):
    assert message in page_error(macros(), f"# Bad\n\nA page with a mistake: {call}\n")


@pytest.mark.parametrize("call, message", [
    ('{{ table("nope") }}', "table('nope'): no such table"),
    ('{{ nosuch() }}', "'nosuch' is undefined"),
    ('{{ claim("identity") }}', "claim('identity'): the argument 'name' is missing; it takes name"),
])
def test_an_error_names_the_line_of_the_call_as_the_file_numbers_it(macros, call, message):
    """Line 10 of the file: the front matter's lines count, though mkdocs
    takes them off before the macros run."""
    source = f"---\nhide:\n  - toc\n---\n\n# T\n\nSome text,\nover two lines.\n{call}\n"
    markdown = source.split("---\n", 2)[2].lstrip("\n")
    assert page_error(macros(), markdown, "p.md", source).startswith(f"p.md, line 10: {message}")


@pytest.mark.parametrize("call, message", [
    ('{{ number("p", token="␣roof", places=100000000) }}', "places = 100000000: expected 0 to 6 decimal places"),
    ('{{ number("p", token="␣roof", places="2") }}', "places = '2': expected a whole number"),
    ('{{ number("p", token="␣roof", heads="2") }}', "heads = '2': expected a whole number, such as heads=2"),
    ('{{ number("p", token="␣roof", temperature=0) }}', "temperature = 0: expected a number above 0, at most 100"),
    ('{{ number("token", position=99) }}', "position = 99: the sentence has positions 1 to 5"),
    ('{{ nano_gpt_matrix("E", cols=100000) }}', "cols = 100000: expected 1 to 192 columns shown"),
    ('{{ nano_gpt_matrix("qkv", head="worst") }}', "head = 'worst': expected a whole number or \"best\""),
    ('{{ claim("identity", nom="W_O") }}', "claim('identity'): unknown argument 'nom'; it takes name, heads"),
    ('{{ claim("attends", head="1", keys="the") }}', "claim('attends'): head = '1': expected a whole number"),
])
def test_every_argument_is_checked_before_work(macros, call, message):
    line = page_error(macros(), f"# Bad\n\n{call}\n")
    assert line.startswith("bad.md, line 3: ") and message in line


@pytest.mark.build
def test_a_bad_macro_call_stops_the_build(project):
    """The wiring of the above: the build stops, says it in one line, publishes no error page."""
    result = build_with_page(project, '# Bad\n\nA page with a mistake: {{ table("nope") }}\n')
    assert result.returncode != 0
    assert "bad.md, line 3: table('nope'): no such table; the tables are: pieces, ids, grad_E," in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert not (project / "site" / "bad" / "index.html").exists()


def test_a_good_page_renders(macros):
    assert "p = 0.426" in render_page(macros(), '# Good\n\np = {{ number("p", heads=1) }}\n')


@pytest.mark.build
def test_a_broken_link_fails_the_build(project):
    links = ["nowhere.md", "end-to-end.md#no-such-step", "#not-here"]
    result = build_with_page(project, "# Links\n\n" + "".join(f"See [gone]({link}).\n\n" for link in links))
    assert result.returncode != 0
    for link in links:
        assert any("bad.md" in line and f"'{link}'" in line for line in result.stderr.splitlines()), link


def changed_weights(tmp_path, change):
    """A copy of the shipped weights file, with change(data) applied."""
    data = yaml.safe_load(DEFAULT_TOY.read_text(encoding="utf-8"))
    change(data)
    weights = tmp_path / "w.yaml"
    weights.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return weights


def entry(key, row, column, value):
    def change(data):
        data[key][row][column] = value
    return change


def scaled(key, factor):
    def change(data):
        data[key] = [[v * factor for v in row] for row in data[key]]
    return change


def swapped_columns(key, a, b):
    def change(data):
        for row in data[key]:
            row[a], row[b] = row[b], row[a]
    return change


def new_token(token):
    def change(data):
        data["vocab"].append(token)
        data["E"].append([0.5, 0, 0, -0.5])
        for row in data["W_U"]:
            row.append(0)
    return change


def test_claims_about_the_prediction(macros):
    env = macros()
    assert render_page(env, '# C\n\n{{ claim("top_token", token="␣roof", heads=2) }}\n') == "# C\n\n"
    for call in ('claim("top_token", token="␣roof", heads=1)',
                 'claim("top_token", token="␣roof")'):  # the reader may choose any heads
        assert ("bad.md, line 5: the text (“The model picks ␣roof.”) claims top_token(token='␣roof'), "
                "but the most probable token with 1 head is ␣cat"
                in page_error(env, f'# C\n\nIt reads the sentence.\nThe model picks ␣roof.\n{{{{ {call} }}}}\n'))


# ---------------------------------------------------------------- the toy chapter's claims

def test_the_chapter_claims_hold_for_the_shipped_weights(toy):
    calls = list(claim_calls(ROOT / "docs" / "toy"))
    assert {what for _, what, _ in calls} == set(claims.CLAIMS) - {"top_token"}
    for page, what, options in calls:
        heads = options.pop("heads", None)
        for h in [heads] if heads else Example(toy).heads_choices:  # without heads: every choice
            assert claims.CLAIMS[what](Example(toy, heads=h), **options) is None, (page, what, options, h)


@pytest.mark.parametrize("what, options, message", [
    ("picks_columns", {"name": "W_X"}, "name = 'W_X': expected one of W_Q, W_K, W_V, W_O, W_1, W_2"),
    ("blocks", {"name": "W_2", "layout": "I;I|I"}, "layout = 'I;I|I': each row of blocks needs the same number"),
    ("attends", {"head": 3, "keys": "ed"}, "head = 3: this run has heads 1 to 2"),
    ("attends", {"head": 1, "keys": "␣moon"}, "token = '␣moon' is not in the vocabulary"),
])
def test_a_claim_with_a_bad_option_says_what_exists(toy, what, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        claims.CLAIMS[what](Example(toy), **options)


# (page, the call it makes, a change to the weights, what the build then says)
CHANGES = [
    ("../end-to-end.md", 'claim("identity", name="W_O")', entry("W_O", 0, 1, 0.5),
     "identity(name='W_O'), but W_O is not the identity matrix"),
    ("attention.md", 'claim("picks_columns", name="W_Q")', entry("W_Q", 2, 0, 1),
     "picks_columns(name='W_Q'), but column 1 of W_Q has 2 non-zero entries"),
    ("mlp.md", 'claim("blocks", name="W_1", layout="I|-I")', entry("W_1", 0, 4, 0.5),
     "blocks(name='W_1', layout='I|-I'), but row 1, column 5 of W_1 is 0.5, where I|-I has -1"),
    ("attention.md", 'claim("default_heads", n=2)', lambda data: data.update(heads=4),
     "default_heads(n=2), but the weights file's default is 4 heads"),
    ("attention.md", 'claim("attends", head=1, keys="␣climb ed")', scaled("W_Q", 0),
     "attends(head=1, keys='␣climb ed'), but with 1 head, head 1 gives 0.400 to ␣climb ed "
     "and its largest weight, 0.200, to the"),
    ("training.md", 'claim("step_lowers_loss")', scaled("E", 0.1),
     "step_lowers_loss(), but with 2 heads the step takes the loss from 1.012724 to 1.210401"),
    ("positions.md", 'claim("order_matters")', scaled("P", 0),
     "order_matters(), but with 1 head and P the two orders' probabilities differ by 0.000 at most"),
    ("tokens.md", 'claim("cuts", text="␣climbed", into="␣climb ed")', new_token("␣climbed"),
     "cuts(text='␣climbed', into='␣climb ed'), but the tokenizer cuts \"␣climbed\" into ␣climbed"),
    ("tokens.md", 'claim("cannot_cut", text="the cat climbed the moon")', new_token("␣moon"),
     "cannot_cut(text='the cat climbed the moon'), but the tokenizer cuts "
     "\"the cat climbed the moon\" into the ␣cat ␣climb ed ␣the ␣moon"),
]


@pytest.mark.parametrize("page, call, change, message", CHANGES, ids=[c[1].split('"')[1] for c in CHANGES])
def test_weights_that_break_a_claim_of_the_book_stop_the_build(macros, tmp_path, page, call, change, message):
    """Each claim the book makes, on a page of its own, with weights that make it false."""
    assert call in (ROOT / "docs" / "toy" / page).read_text(encoding="utf-8")
    weights = changed_weights(tmp_path, change)
    line = page_error(macros(weights), f"# C\n\nA sentence{{{{ {call} }}}}.\n")
    assert line == f"bad.md, line 3: the text (“A sentence”) claims {message}: rewrite the sentence or the weights ({weights})"


def test_claims_can_warn_instead_of_stopping_the_build(macros, tmp_path, monkeypatch, caplog):
    """TOYCALC_CLAIMS=warn: the same line is printed as a warning, outside
    mkdocs' loggers (so that --strict does not count it), and the page marks
    the sentence; the default stays strict."""
    weights = changed_weights(tmp_path, entry("W_O", 0, 1, 0.5))
    message = ("end-to-end.md, line 3: the text (“W_O is the identity”) claims identity(name='W_O'), "
               "but W_O is not the identity matrix")
    text = '# E\n\nW_O is the identity{{ claim("identity", name="W_O") }}.\n'
    env = macros(weights, claims="warn")
    from toycalc.site.errors import claims_log
    (printed,) = [h for h in claims_log.handlers if type(h) is logging.StreamHandler]   # stderr
    monkeypatch.setattr(printed, "stream", io.StringIO())
    shown = render_page(env, text, "end-to-end.md")
    assert shown == ('# E\n\nW_O is the identity<span class="claim-broken" role="note">This sentence was written '
                     "for the book's weights and does not hold for these: W&#95;O is not the identity matrix.</span>.")
    assert f"WARNING -  {message}: rewrite the sentence or the weights ({weights})\n" in printed.stream.getvalue()
    assert not [r for r in caplog.records if r.name.startswith("mkdocs")]
    assert page_error(macros(weights), text, "end-to-end.md").startswith(message)


def test_an_unknown_claims_mode_is_named(macros):
    with pytest.raises(PluginError, match=re.escape("TOYCALC_CLAIMS='loose': expected strict")):
        macros(claims="loose")


@pytest.mark.parametrize("text, line", [
    ('The loss, {{ formula("loss") }} and so on.', 6),       # after text on its line
    ('The loss is\n{{ formula("loss", heads=2) }}\n', 7),    # the paragraph runs into it
    ('The table:\n{{ table("E") }}\n', 7),
])
def test_display_math_inside_a_paragraph_stops_the_build(macros, text, line):
    """Markdown keeps raw HTML only as a block of its own: inside a sentence
    the formula lands in a <p> and the reader sees raw TeX. The message
    names the line of the macro call, front matter counted."""
    markdown = f"# Bad\n\n{text}\n"
    source = f"---\ntitle: Bad\n---\n{markdown}"
    with pytest.raises(PluginError, match=f"bad.md, line {line}: a formula, table or figure sits inside a paragraph"):
        render_page(macros(), markdown, source=source)
    with pytest.raises(PluginError, match="bad.md: a formula, table or figure sits inside a paragraph"):
        render_page(macros(), markdown)      # no file to read: the page alone


def test_display_math_on_its_own_line_builds(macros):
    shown = render_page(macros(), '# Good\n\nThe loss is\n\n{{ formula("loss") }}\n\n'
                        '!!! note\n\n    {{ table("E") | indent(4) }}\n')
    assert '<table id="table-E"' in shown and "\\[" in shown


def test_every_macro_has_a_description(site):
    """The contributor page lists every macro with the first paragraph of
    its docstring: none may be empty, and no TeX leaks into it."""
    tables = page(site, "contributing").select("table[id^=table-macro-]")
    rows = [tr.find_all("td") for t in tables for tr in t.select("tbody tr")]
    assert len(rows) > 150
    empty = [cells[0].get_text() for cells in rows if not cells[1].get_text().strip()]
    assert empty == []
    assert "\\ldots" not in page(site, "contributing").get_text()
