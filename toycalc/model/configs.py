"""The published models the book compares with the toy, as gpt.Config.

Only their shapes matter here (parameter counts, cache sizes); no weights
of theirs are ever loaded.
"""
from __future__ import annotations

from .gpt import Config

# GPT-2 small, as OpenAI released it: 12 blocks of d = 768 with 12 heads,
# 1,024 positions, 50,257 tokens, biases, LayerNorm weights, tied output.
GPT2_SMALL = Config(vocab_size=50257, d=768, n_ctx=1024, n_blocks=12, n_heads=12,
                    width=3072, bias=True, ln_weights=True, tied=True)

# Llama 2 7B as its published config gives it: 32 blocks of d = 4,096 with
# 32 heads, SwiGLU width 11,008, RMSNorm with a learned scale, rotary
# positions, 4,096 positions, 32,000 tokens, an untied output, no biases.
LLAMA2_7B = Config(vocab_size=32000, d=4096, n_ctx=4096, n_blocks=32, n_heads=32,
                   width=11008, bias=False, ln_weights=True, tied=False,
                   norm="rms", positions="rope", mlp="swiglu")

# --8<-- [start:nano_gpt]
# nano-gpt: minGPT's sort demo (3 blocks of d = 48 with 3 heads, 11 positions,
# the letters A, B, C), trained by toycalc.model.train.
NANO_GPT = Config(vocab_size=3, d=48, n_ctx=11, n_blocks=3, n_heads=3, width=192,
                  bias=True, ln_weights=True, tied=False)
# --8<-- [end:nano_gpt]
