"""The whole model in one drawing (toycalc/book/model_drawing.py): every
part there and named in words, every cell's <title> equal to toycalc's
number, for each heads choice and for other sentences; one frame holds
the block; the stream is one line."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from toycalc.book import model_drawing
from toycalc.book.example import Example
from toycalc.book.render import fixed


def drawn(ex: Example) -> BeautifulSoup:
    tokens = [ex.model.show(i) for i in ex.ids]
    return BeautifulSoup(model_drawing.model_svg(ex.trace, tokens, ex.model.vocab), "html.parser")


def titles(soup, part: str) -> list[str]:
    return [t.get_text() for g in soup.select(f'g[data-part="{part}"]') for t in g.select("rect > title")]


EXAMPLES = [("the cat climbed the", 1), ("the cat climbed the", 2), ("the cat climbed the", 4),
            ("the dog climbed the wall. the", 2), ("the", 4)]


@pytest.mark.parametrize("text, heads", EXAMPLES)
def test_every_part_is_drawn_once_in_the_order_the_data_flows(toy, text, heads):
    soup = drawn(Example(toy, text=text, heads=heads))
    names = [g["data-part"] for g in soup.select("g[data-part]") if g["data-part"] != "tokens"]
    assert list(dict.fromkeys(names)) == model_drawing.PARTS[1:]
    assert names.count("heads") == heads                       # a lane per head
    assert len(soup.select("svg")) == 1
    assert len(soup.select('g[data-part="tokens"]')) == len(model_drawing.ROWS)   # each row of parts names the tokens


@pytest.mark.parametrize("text, heads", EXAMPLES)
def test_every_cell_carries_toycalcs_number(toy, text, heads):
    ex = Example(toy, text=text, heads=heads)
    soup, tr, blk = drawn(ex), ex.trace, ex.block
    tokens = [ex.model.show(i) for i in ex.ids]
    T = len(tokens)

    def rows(M, row):
        return [f"{row.format(token=tokens[t], t=t + 1)}, column {j + 1}: {fixed(v)}"
                for t in range(T) for j, v in enumerate(M[t])]
    assert titles(soup, "E") == rows(tr["E_ids"], "E, the row of {token}")
    assert titles(soup, "X") == rows(tr["X"], "x of {token} (position {t})")
    assert titles(soup, "Q") == rows(blk["Q"], "q, the query of {token} (position {t})")
    assert titles(soup, "add1") == rows(blk["h"], "h, x plus attention's output, of {token} (position {t})")
    assert titles(soup, "mlp") == rows(blk["m"], "m, the MLP's output for {token} (position {t})")
    assert titles(soup, "lnf") == rows(tr["f"], "f, y after LayerNorm, of {token} (position {t})")
    heads_want = [f"head {h + 1}, {tokens[i]} (query {i + 1}) reads {tokens[j]} (key {j + 1}): "
                  f"{fixed(blk['weights'][h, i, j])}" for h in range(heads) for i in range(T) for j in range(i + 1)]
    assert titles(soup, "heads") == heads_want
    shown = [v.replace(" ", "␣") for v in toy.vocab]
    assert titles(soup, "softmax") == [f"p after {tokens[t]} (position {t + 1}), p({shown[i]}): {fixed(tr['p'][t, i])}"
                                       for t in range(T) for i in range(len(shown))]
    # every part with cells has one per number of its matrix
    for part, M in (("P", tr["P_t"]), ("ln1", blk["u"]), ("K", blk["K"]), ("V", blk["V"]), ("W_O", blk["attn"]),
                    ("ln2", blk["u2"]), ("add2", blk["y"]), ("W_U", tr["z"])):
        got = [float(t.rsplit(": ", 1)[1].replace("−", "-")) for t in titles(soup, part)]
        assert got == pytest.approx([round(float(v), 3) for v in M.ravel()], abs=5e-4), part


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_the_answer_is_the_most_probable_token_after_the_last_position(toy, heads):
    """The answer is written with its p, in the box of the one chosen, and
    its cell of p (the last row's, and no other) is the one chosen."""
    ex = Example(toy, heads=heads)
    soup = drawn(ex)
    answer = soup.select('g[data-part="next"] text.answer')
    word, p = ex.model.show(ex.top_id), fixed(ex.p_last[ex.top_id])
    assert len(answer) == 1
    assert answer[0].find(string=True, recursive=False) == f"{word}, p = {p}"
    assert answer[0].title.get_text().endswith(f"p = {p}")
    assert len(soup.select('g[data-part="next"] rect.chosen-box')) == 1
    chosen = soup.select("rect.chosen")
    T = len(ex.ids)
    assert [c.title.get_text() for c in chosen] == [
        f"p after {ex.model.show(ex.ids[-1])} (position {T}), p({word}): {p}"]
    assert chosen[0].parent["data-part"] == "softmax"


@pytest.mark.parametrize("text, heads", EXAMPLES)
def test_one_frame_holds_the_block_and_the_stream_is_one_line(toy, text, heads):
    """The block is one frame, titled with how often it repeats, around
    every head and the MLP (and no part outside the block); the parts are
    named in words; the residual stream is one path; cells are 11 px or more."""
    soup = drawn(Example(toy, text=text, heads=heads))
    frames = soup.select("rect.block")
    assert len(frames) == 1
    x0, y0 = int(frames[0]["x"]), int(frames[0]["y"])
    x1, y1 = x0 + int(frames[0]["width"]), y0 + int(frames[0]["height"])

    def inside(el):
        return x0 <= int(el["x"]) <= x1 and y0 <= int(el["y"]) <= y1
    for g in soup.select("g[data-part]"):
        labels = g.select("text.hdr")
        if g["data-part"] == "tokens":
            continue
        assert all(inside(t) for t in labels) == (g["data-part"] in model_drawing.IN_BLOCK), g["data-part"]
    assert [t.get_text() for t in soup.select('g[data-part="heads"] text.hdr')] == [f"head {h + 1}" for h in range(heads)]
    assert soup.select_one("text.frame-title").get_text() == "Transformer block × 1"
    shown = " ".join(t.get_text() for t in soup.select("text"))
    for words in ("Tokens", "Embedding", "Positions", "LayerNorm", "Attention", "Queries", "Mix", "MLP",
                  "Logits", "Probabilities", "Next token"):
        assert words in shown, words
    assert len(soup.select("path.stream")) == 1 and len(soup.select("path.stream-end")) == 1
    assert min(int(r["width"]) for r in soup.select("g[data-part] rect[class^=v-]")) >= 10


def test_symbols_are_printed_with_subscripts_and_primes(toy):
    soup = drawn(Example(toy))
    shown = " ".join(t.get_text(" ") for t in soup.select("text"))
    assert "_" not in shown and "^" not in shown and "´" not in shown
    assert soup.select_one('g[data-part="W_O"] text tspan.sub').get_text() == "O"
    label = soup.select_one('g[data-part="ln2"] text.hdr')
    assert label.get_text() == "LayerNorm u′" and label.select_one("tspan.prime").get_text() == "′"   # a serif's prime


def test_a_token_is_text_in_the_drawing(toy):
    """A token is escaped where it lands: the vocabulary is the reader's."""
    import dataclasses
    vocab = list(toy.vocab)
    vocab[2] = ' <b onmouseover="x">&amp'
    model = dataclasses.replace(toy, vocab=vocab)
    ex = Example(model, text="the" + vocab[2])
    out = model_drawing.model_svg(ex.trace, [model.show(i) for i in ex.ids], vocab)
    assert "<b" not in out and "&lt;b␣onmouseover=&quot;x&quot;&gt;&amp;amp" in out


def test_links_and_the_highlight_follow_the_caller(toy):
    ex = Example(toy)
    tokens = [ex.model.show(i) for i in ex.ids]
    soup = BeautifulSoup(model_drawing.model_svg(ex.trace, tokens, toy.vocab, links={"E": "toy/embedding/"},
                                                 here=("ln1",)), "html.parser")
    assert [a["data-page"] for a in soup.select("a")] == ["toy/embedding/"]
    # the label is the link, inside its part; the cells are not in it
    assert soup.select_one("a").find_parent("g")["data-part"] == "E" and not soup.select("a rect[class^=v-]")
    assert [g["data-part"] for g in soup.select("g.here")] == ["ln1"]
    assert re.search(r"Transformer block × 1", soup.get_text())


@pytest.mark.parametrize("text, heads", EXAMPLES)
def test_end_to_ends_steps_are_regions_of_the_drawing(toy, text, heads):
    """With steps: each of the nine steps has one button (its first bar) that
    names its panel, and every part says which step it belongs to."""
    ex = Example(toy, text=text, heads=heads)
    tokens = [ex.model.show(i) for i in ex.ids]
    soup = BeautifulSoup(model_drawing.model_svg(ex.trace, tokens, toy.vocab, steps=True), "html.parser")
    buttons = soup.select('[role="button"]')
    assert [b["id"] for b in buttons] == [f"path-step-{n}" for n in range(1, 10)]
    assert [b["aria-controls"] for b in buttons] == [f"step-{n}" for n in range(1, 10)]

    def words(text):                                           # as axe compares them
        return " ".join(re.sub(r"[^\w\s]", " ", text).lower().split())
    # label in name: each button's name holds the words its bar shows
    assert [b["id"] for b in buttons if words(b.get_text()) not in words(b["aria-label"])] == []
    tokens_first, *tokens_again = soup.select('g[data-part="tokens"]')
    assert tokens_first["data-step"] == "1" and not any(g.get("data-step") for g in tokens_again)
    for g in soup.select("g[data-part]:not([data-part=tokens])"):
        assert g["data-step"] == str(model_drawing.STEP_OF[g["data-part"]])
    # each step drawn once, its number and its whole name on its bar
    assert [b.get_text() for b in soup.select("g.path-step")] == [f"{n}  {name}" for n, name, _ in model_drawing.STEPS]
    assert not BeautifulSoup(model_drawing.model_svg(ex.trace, tokens, toy.vocab), "html.parser").select("[data-step]")


def test_home_opens_with_the_whole_model_for_every_heads_choice(site, toy):
    """On the built Home page: the drawing comes right after what the book
    is, once per heads choice (the default shown), with no control before
    it; the heads chooser is in the story, where the heads are told; each
    part a link to a page that exists."""
    from conftest import page
    home = page(site, "")
    content = home.select_one("article")
    figures = content.select('figure[data-figure="model"]')
    assert [f.find_parent(attrs={"data-heads": True})["data-heads"] for f in figures] == ["1", "2", "4"]
    before = []                                   # the controls the reader meets before the drawing
    for el in content.descendants:
        if el is figures[0]:
            break
        if getattr(el, "name", None) in ("input", "select", "button", "textarea", "fieldset"):
            before.append(el.name)
    assert before == []
    box = figures[0].find_parent(class_="home-figure")
    assert not box.select("fieldset") and box.select("figure") == figures
    assert content.select_one('.home-story .story-part[data-part="heads"] fieldset.heads-chooser')
    shown = [f for f in figures if not f.find_parent(attrs={"hidden": True})]
    assert len(shown) == 1 and shown[0].find_parent(attrs={"data-heads": True})["data-heads"] == str(toy.heads)
    for figure in figures:
        heads = int(figure.find_parent(attrs={"data-heads": True})["data-heads"])
        ex = Example(toy, heads=heads)
        assert titles(figure, "softmax") == titles(drawn(ex), "softmax")
        links = {a.find_parent("g")["data-part"]: a["xlink:href"] for a in figure.select("a")}
        assert set(links) == set(model_drawing.PARTS)
        for href in links.values():
            assert (site / href / "index.html").is_file(), href


# ---------------------------------------------------------------- the browser's twin

JS_CASES = ["model_drawing.js:modelSvg", "model_drawing.js:modelFigure"]

RUNNER = r"""
const g = (await js("gpt")), m = (await js("model_drawing"));
const model = g.load(job.weights);
process.stdout.write(JSON.stringify(job.runs.map((r) => {
  const own = g.run(model, r.text, r.heads, 1);
  const tokens = own.ids.map((i) => g.show(model.vocab[i]));
  return {given: m.modelSvg(r.tr, tokens, model.vocab, r.links, r.here, 1, r.steps),
          own: m.modelSvg(own, tokens, model.vocab, r.links, r.here, 1, r.steps),
          figure: m.modelFigure(own, tokens, model.vocab, r.links)};
}).concat(job.wide.map((w) => ({given: m.modelSvg(w.tr, w.tokens, w.vocab, w.links, [], w.blocks, false)})))));
"""


def plain_trace(trace: dict) -> dict:
    """The parts of a forward trace the drawing reads, as lists (JSON)."""
    return {**{n: trace[n].tolist() for n in ("E_ids", "P_t", "X", "f", "z", "p")},
            "blocks": [{n: trace["blocks"][0][n].tolist() for n in ("u", "Q", "K", "V", "weights", "attn", "h",
                                                                    "u2", "m", "y")}]}


def test_the_browser_draws_the_model_as_the_build_does(toy):
    """model_drawing.js against model_drawing.py, string for string: on
    toycalc's numbers, and on the browser's own forward pass."""
    from nodejs import run_json
    from toycalc.site.export import weights_data
    cases, figures, runs = [], [], []
    for k, (text, heads) in enumerate(EXAMPLES + [("the cat climbed the roof. the", 1)]):
        ex = Example(toy, text=text, heads=heads)
        links = model_drawing.TOY_PAGES if k % 2 else {}
        here = ("ln1", "heads") if k == 2 else ()
        steps = k % 3 == 0                        # End to End's regions
        tr = {"E_ids": ex.trace["E_ids"].tolist(), "P_t": ex.trace["P_t"].tolist(), "X": ex.trace["X"].tolist(),
              "f": ex.trace["f"].tolist(), "z": ex.trace["z"].tolist(), "p": ex.trace["p"].tolist(),
              "blocks": [{n: ex.block[n].tolist() for n in ("u", "Q", "K", "V", "weights", "attn", "h", "u2", "m", "y")}]}
        runs.append({"text": text, "heads": heads, "tr": tr, "links": links, "here": list(here), "steps": steps})
        tokens = [toy.show(i) for i in ex.ids]
        cases.append(model_drawing.model_svg(ex.trace, tokens, toy.vocab, links, here, steps=steps))
        figures.append(model_drawing.model_figure(ex.trace, tokens, toy.vocab, links))
    # nano-gpt: 48 columns a vector, drawn as heat strips, in its three blocks' frame
    from toycalc.book.nano_example import Run
    from toycalc.model import nanogpt
    nano = Run(nanogpt.load())
    letters = [nanogpt.VOCAB[i] for i in nano.ids]
    wide = [{"tr": plain_trace(nano.trace), "tokens": letters, "vocab": list(nanogpt.VOCAB),
             "links": {}, "blocks": nano.cfg.n_blocks}]
    wide_want = model_drawing.model_svg(nano.trace, letters, list(nanogpt.VOCAB), {}, (), nano.cfg.n_blocks)
    assert "strip-hit" in wide_want
    drawn = run_json(RUNNER, {"weights": weights_data(toy), "runs": runs, "wide": wide})
    assert drawn[-1]["given"] == wide_want
    drawn = drawn[:-1]
    for want, figure, got, run in zip(cases, figures, drawn, runs):
        assert got["given"] == want, (run["text"], run["heads"])
        assert got["own"] == want, (run["text"], run["heads"])
        assert got["figure"] == figure, (run["text"], run["heads"])
    assert len(set(cases)) == len(cases)
