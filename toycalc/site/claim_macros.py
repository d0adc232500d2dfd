"""The prose's claims at build time: `claim`, the toy's (book/claims.py)
and every chapter's (book/chapters.py: nano-gpt's, the writer's, ...),
and what a false claim does. Strict (TOYCALC_CLAIMS unset, a
build): each false claim is reported as it is found and kept for its page,
which page_checks.py replaces by the list of them once all its claims ran;
the build then stops after every page named its own (macros.on_post_build).
Warn: each is logged and the sentence marked on its page."""
from __future__ import annotations

from ..book import claims
from ..book.chapters import CHAPTERS
from ..book.render import plain
from ..model import models
from .arguments import check_arguments
from .errors import BookError, claims_log, claims_mode, located, report, sentence_at, template_line
from .weights_files import model_file


def refuted(env, what: str, options: dict, false: str, weights) -> str:
    """A false claim (`false`: what holds instead) of the sentence it ends,
    found in the page's Markdown: the markup in its place."""
    args = ", ".join(f"{k}={v!r}" for k, v in options.items())
    sentence = sentence_at(env.markdown or "", template_line())
    quoted = f" (“{sentence}”)" if sentence else ""
    message = (f"{located(env)}: the text{quoted} claims {what}({args}), but {false}: "
               f"rewrite the sentence or the weights ({weights})")
    if claims_mode() == "strict":
        report(message)
        env.toycalc_false_claims.setdefault(env.page.file.src_path if env.page else "", []).append(message)
        env.toycalc_false_count = getattr(env, "toycalc_false_count", 0) + 1
        return ""
    claims_log.warning(message)
    return ('<span class="claim-broken" role="note">This sentence was written for the book\'s '
            f"weights and does not hold for these: {plain(false)}.</span>")


def claim_macro(env, example, runs: dict, check_choices):
    """The macro `claim(what, heads=None, **options)`: nothing on the page
    while the claim holds. A toy claim without `heads` must hold for every
    heads choice, since the reader may pick any of them; a chapter's claim
    (book/chapters.py) is checked on its chapter's run and takes no heads.
    example: the toy's runs (runs.py); runs: model name -> its chapter's
    run(); check_choices: macros.py's check of heads and temperature."""
    claims_mode()   # an unknown mode stops the build at once, named (errors.py)
    # one name, one claim: chapters.add refuses a name the toy or another chapter has
    chapter_of = {name: model for model, chapter in CHAPTERS.items() for name in chapter.claims}
    everything = claims.CLAIMS | {name: check for chapter in CHAPTERS.values() for name, check in chapter.claims.items()}

    def claim(what, heads=None, **options):
        """Nothing on the page; a false claim stops the build (each named, page by page)."""
        page = located(env)
        if what not in everything:
            raise BookError(f"{page}: claim({what!r}): no such claim; the claims are: {', '.join(everything)}")
        function, model = everything[what], chapter_of.get(what)
        try:
            if model is not None:
                check_arguments(function, dict(options, **({"heads": heads} if heads is not None else {})))
                false, weights = function(runs[model](), **options), model_file(models.REGISTRY[model])
            else:
                check_arguments(function, options, ("heads",))
                check_choices({"heads": heads})
                choices = [heads] if heads is not None else example().heads_choices
                false = next(filter(None, (function(example(h), **options) for h in choices)), None)
                weights = example().model.path
        except (ValueError, TypeError) as e:
            raise BookError(f"{page}: claim({what!r}): {e}") from None
        if not false:
            return ""
        return refuted(env, what, options, false, weights)
    claim.registry = everything
    return claim
