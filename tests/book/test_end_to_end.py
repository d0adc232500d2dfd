"""The built End-to-End page: every number of the seed's worked example, as
the seed prints it; every number follows the weights file."""
import re

import pytest

from conftest import fresh_page, page
from toycalc.book import end_to_end
from toycalc.book.example import Example
from toycalc.book.render import token_text
from toycalc.book.toy import embedding  # its steps (tables E, E_ids) are on end_to_end.steps too
from toycalc.model.weights import load_toy

M = "\u2212"


def rows(soup, table_id):
    """A table's cells as text; a table that differs with the heads choice
    is found by its default variant (id suffix -h2)."""
    table = next(filter(None, (soup.find("table", id=f"{where}{table_id}{heads}")
                               for where in ("", "path-") for heads in ("", "-h2"))), None)
    assert table is not None, f"no table #{table_id}"
    return [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])] for tr in table.find_all("tr")]


def seed(text):
    """The seed's notation: '-' for the minus it prints."""
    return text.replace("-", M)


def maths(soup):
    return [m.get_text() for m in soup.select(".arithmatex")]


def default_view(soup):
    """The page as a reader without JavaScript sees it: the default heads
    choice; the other choices' hidden variants removed (from a parse of
    the caller's own, fresh_page)."""
    for hidden in soup.select("[hidden]"):
        hidden.decompose()
    return soup


@pytest.fixture(scope="module")
def e2e(site):
    return default_view(fresh_page(site, "end-to-end"))


def test_no_macro_left_unrendered(site):
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "{{" not in text and "{%" not in text, html
        assert "Macro Rendering Error" not in text and "Macro Syntax Error" not in text, html


def test_where_the_weights_are(e2e):
    assert rows(e2e, "table-pieces")[1:] == [
        ["embedding table \\(E\\)", "\\(V \\times d\\)", "12 × 4 = 48", "38.6 million"],
        ["position table \\(P\\)", "positions × \\(d\\)", "8 × 4 = 32", "786 thousand"],
        ["\\(W_Q\\), \\(W_K\\), \\(W_V\\)", "\\(3 \\times (d \\times d)\\)", "48", "21.2 million"],
        ["\\(W_O\\)", "\\(d \\times d\\)", "16", "7.1 million"],
        ["MLP: \\(W_1\\), \\(W_2\\)", "\\(d \\times\\) width, width \\(\\times\\, d\\)", "32 + 32 = 64", "56.6 million"],
        ["output \\(W_U\\)", "\\(d \\times V\\)", "48", "tied to \\(E\\)"],
        ["total", "", "256", "≈ 124 million"],
    ]
    assert "124,439,808" in e2e.get_text()


def test_check_yourself_boxes(e2e):
    boxes = e2e.select("details.question")
    assert len(boxes) == 4
    assert all(b.find("summary").get_text(strip=True).endswith("?") for b in boxes)


def test_step1_ids(e2e):
    assert rows(e2e, "table-ids") == [["token", "the", "␣cat", "␣climb", "ed", "␣the"],
                                      ["id", "0", "2", "4", "5", "1"]]


def test_step2_table_E_with_the_sentence_in_bold(e2e):
    body = rows(e2e, "table-E")[1:]
    assert body[4] == ["4", "␣climb", seed("-0.5"), "1", "0", seed("-0.5")]
    assert body[11] == ["11", "<eot>", "0.5", seed("-0.5"), "0.5", seed("-0.5")]
    bold = [tr.find("td").get_text() for tr in e2e.find("table", id="table-E").select("tr.in-sentence")]
    assert bold == ["0", "1", "2", "4", "5"]


def test_step2_leaves_the_tables_origin_to_the_toy_chapter(e2e):
    """Step 2 says what E is and links to the toy's pages that work through
    where its numbers come from, rather than printing them a second time."""
    heading = e2e.find(id="step-2-the-table-e")
    text = []
    for el in heading.find_next_siblings():
        if el.name in ("h2", "h3"):
            break
        text.append(el)
    links = [a["href"] for el in text for a in el.select("a")]
    assert "../toy/embedding/" in links and "../toy/training/" in links and "#step-2" in links
    assert not any(el.select(".arithmatex") and "aligned" in el.get_text() for el in text)


@pytest.fixture(scope="module")
def toy_pages(site):
    return {name: default_view(fresh_page(site, f"toy/{name}")) for name in ("embedding", "training")}


def test_the_tables_random_start_says_what_it_draws(toy_pages, toy):
    """Where E's numbers come from (toy Embedding): the sentence before the
    random row names the spread from the code that draws it, and the row
    has d numbers (it typed "Four such draws" and N(0, 0.02²) by hand)."""
    from toycalc.book.example import INIT_STD, random_row
    page = toy_pages["embedding"]
    para = next(" ".join(p.get_text(" ").split()) for p in page.find_all("p")
                if p.get_text().startswith("A random start"))
    d = toy.cfg.d
    assert f"\\mathcal{{N}}(0, {INIT_STD}^2)" in para, para
    row = next(m for m in maths(page) if m.startswith("\\[[") or m.startswith("\\[\\left["))
    assert row.count(",") == d - 1 and len(random_row(d, embedding.INIT_SEED)) == d, row


def test_the_seeds_training_step(toy_pages):
    """The seed's training step on E, number for number (toy Training)."""
    page = toy_pages["training"]
    math = maths(page)
    assert "\\[L = -\\ln p(\\text{␣roof}) = -\\ln 0.395 = 0.928\\]" in math
    assert rows(page, "table-grad-E-h2")[1:] == [
        ["0", "the", seed("[-0.001, 0.000, 0.001, 0.000]")],
        ["2", "␣cat", seed("[0.000, 0.000, 0.026, -0.026]")],
        ["4", "␣climb", seed("[-0.001, 0.000, 0.001, 0.000]")],
        ["5", "ed", seed("[0.002, 0.002, 0.000, -0.004]")],
        ["1", "␣the", seed("[-0.011, 0.011, 0.027, -0.028]")],
    ]
    text = " ".join(page.get_text(" ").split())
    assert "Every other row gets exactly zero" in text
    update = next(m for m in math if "aligned" in m and "0.1 \\cdot" in m)
    for line in ["-0.5 - 0.1 \\cdot (-0.011) &= -0.499", "0.0 - 0.1 \\cdot (0.011) &= -0.001",
                 "-0.5 - 0.1 \\cdot (0.027) &= -0.503", "1.0 - 0.1 \\cdot (-0.028) &= 1.003"]:
        assert line in update
    assert "goes from 0.395 to 0.396 , the loss from 0.928 to 0.927" in text


def test_reading_a_row_and_the_rows_of_the_sentence(toy_pages, e2e):
    assert ("\\[\\begin{aligned} E[1] &= [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\\, E \\\\ "
            "&= [-0.5, 0.0, -0.5, 1.0] \\end{aligned}\\]") in maths(toy_pages["embedding"])
    # the path's narrow box writes the zeros after the one as dots
    assert ("\\[\\begin{aligned} E[1] &= [0, 1, 0, \\ldots, 0]\\, E \\\\ "
            "&= [-0.5, 0.0, -0.5, 1.0] \\end{aligned}\\]") in maths(e2e)
    assert rows(toy_pages["embedding"], "table-E-ids")[1:] == [
        ["the", "0", seed("[-0.5, -0.5, 0.0, 1.0]")], ["␣cat", "2", seed("[1.0, -0.5, 0.0, -0.5]")],
        ["␣climb", "4", seed("[-0.5, 1.0, 0.0, -0.5]")], ["ed", "5", seed("[0.0, 0.5, -0.5, 0.0]")],
        ["␣the", "1", seed("[-0.5, 0.0, -0.5, 1.0]")]]


def test_step3_positions(e2e):
    assert rows(e2e, "table-X")[1:] == [[seed(c) for c in r] for r in [
        ["the", "[-0.5, -0.5, 0.0, 1.0]", "[0.0, 0.0, 0.0, 0.0]", "[-0.5, -0.5, 0.0, 1.0]"],
        ["␣cat", "[1.0, -0.5, 0.0, -0.5]", "[0.5, 0.0, -0.5, 0.0]", "[1.5, -0.5, -0.5, -0.5]"],
        ["␣climb", "[-0.5, 1.0, 0.0, -0.5]", "[0.0, 0.5, 0.0, -0.5]", "[-0.5, 1.5, 0.0, -1.0]"],
        ["ed", "[0.0, 0.5, -0.5, 0.0]", "[-0.5, 0.0, 0.5, 0.0]", "[-0.5, 0.5, 0.0, 0.0]"],
        ["␣the", "[-0.5, 0.0, -0.5, 1.0]", "[0.0, -0.5, 0.0, 0.5]", "[-0.5, -0.5, -0.5, 1.5]"]]]


def test_step4_layernorm(e2e):
    assert ("\\[\\begin{aligned} \\mu &= 0.000 \\\\ \\sigma &= 0.866 \\\\ "
            "u_5 &= \\frac{x_5 - \\mu}{\\sigma} \\\\ &= [-0.577, -0.577, -0.577, 1.732] \\end{aligned}\\]") in maths(e2e)
    assert rows(e2e, "table-u")[1:] == [[seed(c) for c in r] for r in [
        ["the", "-0.816", "-0.816", "0.000", "1.633"], ["␣cat", "1.732", "-0.577", "-0.577", "-0.577"],
        ["␣climb", "-0.535", "1.604", "0.000", "-1.069"], ["ed", "-1.414", "1.414", "0.000", "0.000"],
        ["␣the", "-0.577", "-0.577", "-0.577", "1.732"]]]


def test_step5_qkv(e2e):
    assert rows(e2e, "table-QKV")[1:] == [[seed(c) for c in r] for r in [
        ["the", "[1.633, -0.816, 1.633, -0.816]", "[-0.816, 1.633, -0.816, 1.633]", "[-0.816, -0.816, 0.000, 1.633]"],
        ["␣cat", "[-0.577, -0.577, -0.577, 1.732]", "[-0.577, -0.577, 1.732, -0.577]", "[1.732, -0.577, -0.577, -0.577]"],
        ["␣climb", "[-1.069, 1.604, -1.069, -0.535]", "[1.604, -1.069, -0.535, -1.069]", "[-0.535, 1.604, 0.000, -1.069]"],
        ["ed", "[0.000, 1.414, 0.000, -1.414]", "[1.414, 0.000, -1.414, 0.000]", "[-1.414, 1.414, 0.000, 0.000]"],
        ["␣the", "[1.732, -0.577, 1.732, -0.577]", "[-0.577, 1.732, -0.577, 1.732]", "[-0.577, -0.577, -0.577, 1.732]"]]]
    assert "\\(Q = [u_4, u_2, u_4, u_1]\\)" in maths(e2e)


def test_step6_attention(e2e):
    assert rows(e2e, "table-attention-1-h2")[1:] == [[seed(c) for c in r] for r in [
        ["the", "[-0.816, 1.633]", "-2.357", "-1.667", "0.189", "0.011"],
        ["␣cat", "[-0.577, -0.577]", "-0.667", "-0.471", "0.624", "0.035"],
        ["␣climb", "[1.604, -1.069]", "3.395", "2.400", "11.027", "0.622"],
        ["ed", "[1.414, 0.000]", "2.449", "1.732", "5.652", "0.319"],
        ["␣the", "[-0.577, 1.732]", "-2.000", "-1.414", "0.243", "0.014"]]]
    assert rows(e2e, "table-attention-2-h2")[1:] == [[seed(c) for c in r] for r in [
        ["the", "[-0.816, 1.633]", "-2.357", "-1.667", "0.189", "0.016"],
        ["␣cat", "[1.732, -0.577]", "3.333", "2.357", "10.559", "0.882"],
        ["␣climb", "[-0.535, -1.069]", "-0.309", "-0.218", "0.804", "0.067"],
        ["ed", "[-1.414, 0.000]", "-2.449", "-1.732", "0.177", "0.015"],
        ["␣the", "[-0.577, 1.732]", "-2.000", "-1.414", "0.243", "0.020"]]]
    text = " ".join(e2e.get_text(" ").split())
    assert "get 0.940 of head 1's weight together" in text
    assert "Where each head looks most: head 1 gives 0.622 to ␣climb and head 2 gives 0.882 to ␣cat" in text
    assert seed("[0.930, 0.063, 0.007, 0.000, 0.000]") in text
    assert "Head 1, whose query is \\(q_{5}\\) = " + seed("[1.732, -0.577]") in text


def test_steps7_to_9(e2e):
    math = " ".join(maths(e2e))
    for expected in ["o_5^{(1)} &= \\sum_j a_{5,j}\\, v_j = [-0.739, 1.411]", "o_5^{(2)} &= [-0.521, -0.520]",
                     "a_5 &= [-0.739, 1.411, -0.521, -0.520]", "[-1.239, 0.911, -1.021, 0.980]",
                     "[-1.102, 0.964, -0.892, 1.030]",
                     "[-1.102, 0.964, -0.892, 1.030, 1.102, -0.964, 0.892, -1.030]",
                     "[-0.149, 0.802, -0.166, 0.874, 0.952, -0.162, 0.726, -0.156]",
                     "[0.803, 0.640, 0.560, 0.718]", "[-0.436, 1.551, -0.461, 1.698]",
                     "[-0.987, 0.928, -1.011, 1.069]",
                     "&= -0.987 \\cdot (-0.5) + 0.928 \\cdot (1.0) \\\\ &\\quad - 1.011 \\cdot (0.0) "
                     "+ 1.069 \\cdot (1.0) \\\\ &= 2.491"]:
        assert expected in math


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_step9_names_the_token_of_its_formula(site, toy, heads):
    """The sentence above the logit's sum names the token whose column the
    sum uses, for every heads choice; no sum prints "+ -"."""
    ex, soup = Example(toy, heads=heads), page(site, "end-to-end")
    top = toy.vocab[ex.top_id]
    paragraph = soup.find(id="step-9-the-next-token").find_next("p")
    variant = paragraph.find("span", attrs={"data-heads": str(heads)})
    assert paragraph.get_text().endswith(", the most probable:")
    assert variant.get_text() == token_text(top)
    block = paragraph.find_next("div", attrs={"data-heads": str(heads)})
    assert f"z_{{\\text{{{token_text(top)}}}}} &= f_5 \\cdot W_U^{{(\\text{{{token_text(top)}}})}}" in block.get_text()
    assert "+ -" not in " ".join(maths(soup))


@pytest.mark.parametrize("heads, words", [
    (1, "With 1 head, that head reads all 4 columns"),
    (2, "With 2 heads, each head reads 2 of the 4 columns: head 1 reads columns 1 and 2, head 2 columns 3 and 4"),
    (4, "With 4 heads, each head reads 1 of the 4 columns: head 1 reads column 1, head 2 column 2, "
        "head 3 column 3, head 4 column 4"),
])
def test_step5_names_the_heads_of_the_choice(site, toy, heads, words):
    assert end_to_end.head_columns(Example(toy, heads=heads)) == words
    paragraph = page(site, "end-to-end").find(id="step-5-query-key-and-value").find_next("p")
    variant = paragraph.find("span", attrs={"data-heads": str(heads)})
    assert variant.get_text() == words


def test_step9_softmax_sorted(e2e):
    assert rows(e2e, "table-softmax-h2")[1:] == [[seed(c) for c in r] for r in [
        ["␣roof", "2.491", "12.069", "0.395"], ["␣wall", "1.463", "4.318", "0.141"],
        ["␣sofa", "0.999", "2.715", "0.089"], ["␣floor", "0.970", "2.637", "0.086"],
        ["␣cat", "0.634", "1.886", "0.062"], ["␣dog", "0.564", "1.757", "0.058"],
        ["␣the", "0.418", "1.519", "0.050"], ["ed", "0.410", "1.507", "0.049"],
        ["the", "0.000", "1.000", "0.033"], ["<eot>", "-0.518", "0.596", "0.020"],
        ["␣climb", "-0.945", "0.389", "0.013"], [".", "-2.056", "0.128", "0.004"]]]
    text = " ".join(e2e.get_text(" ").split())
    assert "The winner is ␣roof with p = 0.395" in text
    assert "−ln 0.395 = 0.928" in text


# ------------------------------------------------------------- the weights drive the page

# tables the toy chapter works through (Embedding, Training), which End to End links to instead
ELSEWHERE = ("attention", "weights", "E_ids", "grad_E")


def expected_tables(weights):
    ex = Example(load_toy(weights))
    return {name: f(ex) for name, f in end_to_end.steps.registries["table"].items() if name not in ELSEWHERE} | {
        f"{kind}-{h}": end_to_end.steps.registries["table"][kind](ex, h) for h in (1, 2) for kind in ("attention", "weights")}


def table_html_ids(fragment):
    return re.search(r'<table id="([^"]+)"', fragment).group(1)


def test_page_follows_the_weights(altered, e2e):
    """Built on other weights with a 13th token (conftest.altered_toy)."""
    from bs4 import BeautifulSoup
    weights = altered.toy
    built = default_view(fresh_page(altered.site, "end-to-end"))
    for name, fragment in expected_tables(weights).items():
        table_id = table_html_ids(fragment)
        want = rows(BeautifulSoup(fragment, "html.parser"), table_id)
        assert rows(built, table_id) == want, name
    changed = {tid: rows(built, tid) for tid in ("table-softmax-h2", "table-u", "table-X", "table-E")}
    for tid, body in changed.items():
        assert body != rows(e2e, tid), f"{tid} did not change"
    text = " ".join(built.get_text(" ").split())
    assert "p = 0.395" not in text and "ln 0.395" not in text
    # the 13th token, ␣mat
    assert len(rows(built, "table-E")) == 14 and len(rows(built, "table-softmax-h2")) == 14
    assert "13 × 4 = 52" in text and "␣mat" in text
    assert rows(built, "table-pieces")[-1][2] == "264"


def test_every_formula_is_where_mathjax_looks(soups):
    """MathJax only typesets inside .arithmatex: no TeX delimiter may sit elsewhere."""
    for html, soup in soups.items():
        for node in soup.find_all(string=re.compile(r"\\[(\[]")):
            if node.find_parent("script") is None:
                assert node.find_parent(class_="arithmatex") is not None, (html, node)


def test_no_math_is_marked_twice_on_any_page(site, soups):
    """A number macro's inline math in a paragraph is marked once: marked by
    the macro and again by arithmatex, MathJax would typeset only the inner
    mark (render.prose_math)."""
    assert len(soups) > 20
    twice = {}
    for path, soup in soups.items():
        nested = [m.get_text() for m in soup.select(".arithmatex .arithmatex")]
        if nested:
            twice[str(path.relative_to(site))] = nested
    assert twice == {}
    # and the math the macros put in the prose is still there, marked once
    end_to_end = page(site, "end-to-end")
    picks = [m.get_text() for m in end_to_end.select("p .arithmatex")]
    assert any(t.startswith("\\(Q = [") for t in picks)


def test_every_internal_link_and_anchor_resolves(site, soups):
    """Offline link check of the built site, raw HTML from macros and the
    theme included (MkDocs' own validation sees Markdown links only): every
    relative href or src reaches a file, and every #fragment an id there."""
    from urllib.parse import unquote, urljoin, urlsplit
    ids = {}

    def soup_of(path):
        if path not in ids:
            ids[path] = {el["id"] for el in soups[path].find_all(id=True)} | \
                        {el["name"] for el in soups[path].find_all("a", attrs={"name": True})}
        return soups[path]

    pages = [p for p in soups if p.name != "404.html"]  # 404 links from the root
    broken, checked = [], 0
    for path in pages:
        base = "http://book.invalid/" + path.relative_to(site).as_posix()
        for el in soup_of(path).find_all(["a", "link", "script", "img"]):
            ref = el.get("href") or el.get("src")
            if not ref or ref.startswith(("mailto:", "javascript:", "data:")):
                continue
            url = urlsplit(urljoin(base, ref))
            if url.netloc != "book.invalid":
                continue  # an outside link (credits): not fetched offline
            target = site / unquote(url.path).lstrip("/")
            if target.is_dir() or url.path.endswith("/"):
                target = target / "index.html"
            checked += 1
            if not target.is_file():
                broken.append(f"{path.relative_to(site)}: {ref} (no {target.relative_to(site)})")
            elif url.fragment and target.suffix == ".html":
                soup_of(target)
                if unquote(url.fragment) not in ids[target]:
                    broken.append(f"{path.relative_to(site)}: {ref} (no id {url.fragment!r})")
    assert checked > 1000
    assert broken == [], "\n".join(broken)


def test_links_to_the_full_table_of_models(site, e2e):
    link = e2e.find("a", string="full table of models")
    assert link is not None and link["href"] == "../what-changed/#five-models-counted-by-one-function"
    assert page(site, "what-changed").find(id="five-models-counted-by-one-function") is not None
    assert page(site, "what-changed").find("table", id="table-models") is not None


def test_no_formula_adds_a_negative_number(soups):
    """A sum of terms is written a − b, never a + −b (typography, every page)."""
    bad = {}
    for html, soup in soups.items():
        if html.name != "index.html":
            continue
        found = [m.get_text()[:60] for m in soup.select(".arithmatex") if re.search(r"\+\s*-\s*\d", m.get_text())]
        if found:
            bad[html.parent.name] = found
    assert bad == {}
