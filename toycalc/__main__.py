"""Command line: check a weights file without building the site, or train nano-gpt.

    python -m toycalc check toycalc/weights/toy.yaml ["the cat climbed the"] [--heads N]
    python -m toycalc train [--seed 1337] [--max-steps 5000] [--every 100] [--out PATH.npz | --force]
    python -m toycalc train-writer [--seed 1337] [--steps 6000] [--every 100] [--out PATH.npz | --force]

`check` prints the model's shape and, for the sentence, the prediction of
each heads choice; a bad file or sentence prints one line and exits with 1.
`train` is toycalc.model.train: once a run sorts all 729 inputs it writes
the weights --out names (.npz) and their record beside them (.json); the
book's own (weights/nanogpt.npz) only with --force or --out naming them.
A bad argument prints one line and exits with 2, before any training.
`train-writer` is toycalc.model.train_writer: the character-level writer.
"""
from __future__ import annotations

import argparse
import sys

if __name__ == "__main__" and sys.argv[1:2] in (["train"], ["train-writer"]):
    from .model.blas import pin_kernel
    pin_kernel()  # before anything imports numpy: see model/blas.py

from .book.example import Example
from .book.render import fixed
from .model.tokenizer import shorten, show
from .model.tokenizer import TokenizerError
from .model import train
from .model.weights import WeightsError, load_toy


def check(path: str, text: str, heads: int | None) -> str:
    model = load_toy(path)
    cfg = model.cfg
    lines = [f"{path}: V = {cfg.vocab_size}, d = {cfg.d}, positions = {cfg.n_ctx}, "
             f"MLP width = {cfg.mlp_width}, default heads = {model.heads}"]
    base = Example(model, text=text)
    try:
        for h in [heads] if heads else base.heads_choices:
            ex = base.with_heads(h)
            ranked = sorted(range(cfg.vocab_size), key=lambda i: -ex.p_last[i])[:3]
            best = ", ".join(f"{show(model.vocab[i])} {fixed(ex.p_last[i])}" for i in ranked)
            lines.append(f'"{shorten(text)}" with {h} head{"s" * (h > 1)}: {best}')
    except ValueError as e:   # the sentence, the heads, an overflow: name the file all the same
        raise WeightsError(f"{path}: {e}") from None
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toycalc", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="load a toy weights file and print its predictions")
    c.add_argument("weights")
    c.add_argument("text", nargs="?", default="the cat climbed the")
    c.add_argument("--heads", type=int)
    sub.add_parser("train", add_help=False, help="train nano-gpt (python -m toycalc train --help)")
    sub.add_parser("train-writer", add_help=False,
                   help="train the writer on Shakespeare (python -m toycalc train-writer --help)")
    args, rest = parser.parse_known_args(argv)
    if args.command == "train":
        return train.main(rest)
    if args.command == "train-writer":
        from .model import train_writer
        return train_writer.main(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        print(check(args.weights, args.text, args.heads))
    except (WeightsError, TokenizerError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
