"""The prose's claims at build time: `claim` (the toy's and nano-gpt's,
book/claims.py) and what a false claim does, which the writer's
`writer_claim` (writer_run.py) shares. Strict (TOYCALC_CLAIMS unset, a
build): each false claim is reported as it is found and kept for its page,
which page_checks.py replaces by the list of them once all its claims ran;
the build then stops after every page named its own (macros.on_post_build).
Warn: each is logged and the sentence marked on its page."""
from __future__ import annotations

from ..book import claims
from ..book.render import plain
from .arguments import check_arguments
from .errors import BookError, claims_log, claims_mode, located, report, sentence_at, template_line


def refuted(env, what: str, options: dict, false: str, weights, markdown: str | None = None) -> str:
    """A false claim (`false`: what holds instead) of the sentence it ends,
    found in `markdown` (the page's, by default): the markup in its place."""
    args = ", ".join(f"{k}={v!r}" for k, v in options.items())
    sentence = sentence_at(markdown if markdown is not None else env.markdown or "", template_line())
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


def claim_macro(env, example, nano, check_choices):
    """The macro `claim(what, heads=None, **options)`: nothing on the page
    while the claim holds. Without `heads` a toy claim must hold for every
    heads choice, since the reader may pick any of them; a nano-gpt claim
    takes no heads. example, nano: the runs (runs.py); check_choices:
    macros.py's check of heads and temperature."""
    claims_mode()   # an unknown mode stops the build at once, named (errors.py)

    def claim(what, heads=None, **options):
        """Nothing on the page; a false claim stops the build (each named, page by page)."""
        page = located(env)
        if what not in claims.CLAIMS and what not in claims.NANO_CLAIMS:
            raise BookError(f"{page}: claim({what!r}): no such claim; the claims are: "
                            f"{', '.join([*claims.CLAIMS, *claims.NANO_CLAIMS])}")
        nano_claim = what in claims.NANO_CLAIMS
        function = (claims.NANO_CLAIMS if nano_claim else claims.CLAIMS)[what]
        try:
            if nano_claim:
                check_arguments(function, dict(options, **({"heads": heads} if heads is not None else {})))
                false = function(nano, **options)
            else:
                check_arguments(function, options, ("heads",))
                check_choices({"heads": heads})
                choices = [heads] if heads is not None else example().heads_choices
                false = next(filter(None, (function(example(h), **options) for h in choices)), None)
        except (ValueError, TypeError) as e:
            raise BookError(f"{page}: claim({what!r}): {e}") from None
        if not false:
            return ""
        return refuted(env, what, options, false, (nano.model if nano_claim else example().model).path)
    claim.registry = {**claims.CLAIMS, **claims.NANO_CLAIMS}
    return claim
