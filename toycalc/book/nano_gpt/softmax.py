"""The nano-gpt chapter's page Softmax (docs/nano-gpt/softmax.md): the final
softmax of one row, step by step. (Attention's softmax, which the page
shows too, is self_attention.attention_row_table.)"""
from __future__ import annotations

import numpy as np

from ...model import nanogpt
from ..nano_example import Run
from ..render import fixed, html_table, inline_math as im, tex
from .shared import check_t, nano_gpt


@nano_gpt.table("softmax", live=True)
def softmax_table(run: Run, t: int = 6) -> str:
    """The final softmax of the row of position t: logits, max, shifted, exponent, p."""
    i = check_t(run, t)
    z, p = run.trace["z"][i], run.trace["p"][i]
    m = z.max()
    e = np.exp(z - m)
    body = [[l, fixed(z[k]), fixed(z[k] - m), fixed(e[k]), fixed(p[k])] for k, l in enumerate(nanogpt.VOCAB)]
    body.append(["<strong>sum</strong>", "", "", f"<strong>{fixed(e.sum())}</strong>",
                 f"<strong>{fixed(p.sum())}</strong>"])
    return html_table(f"nano-softmax-{t}", ["letter", im("z"), im(f"z - {tex(fixed(m))}"),
                                            im("e^{z - \\max z}"), im("p")], body,
                      caption=f"The softmax of the row t = {t}: max {fixed(m)}, sum {fixed(e.sum())}")
