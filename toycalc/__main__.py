"""Command line: check a weights file without building the site, or train nano-gpt.

    python -m toycalc check toycalc/weights/toy.yaml ["the cat climbed the"] [--heads N]
    python -m toycalc check toycalc/weights/nanogpt.safetensors   (or writer.safetensors)
    python -m toycalc train [MODEL] [--seed 1337] [--max-steps 5000] [--every 100] [--out PATH.safetensors | --force]
    python -m toycalc train-writer [--seed 1337] [--steps 2000] [--every 100] [--out PATH.safetensors | --force]

`check` prints the model's shape and, for the sentence, the prediction of
each heads choice; for nano-gpt's or the writer's weights (.safetensors, their
record beside them) what the build checks and a line about them; a bad
file or sentence prints one line and exits with 1.
`train` is toycalc.model.train: once a run sorts all 729 inputs it writes
the weights --out names (.safetensors) and their record beside them (.json); the
book's own (weights/nanogpt.safetensors) only with --force or --out naming them.
A bad argument prints one line and exits with 2, before any training.
`train MODEL` trains any model registered in toycalc.model.models (nano-gpt,
writer) through the one loop (trainer.py); `train-writer` is `train writer`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __name__ == "__main__" and sys.argv[1:2] in (["train"], ["train-writer"]):
    from .model.blas import pin_kernel
    pin_kernel()  # before anything imports numpy: see model/blas.py

from .book.example import Example
from .book.render import fixed
from .model.tokenizer import shorten, show
from .model.tokenizer import TokenizerError
from .model import sizes, train
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


def check_weights(path: str) -> str:
    """A model's weights file (.safetensors) with its record beside it:
    loaded and checked as a build loads it (models.load), the model found
    by its record's config among the registered ones (nano-gpt's loader
    says what is wrong with a record that names none)."""
    from .model import models, nanogpt
    try:
        record = nanogpt.record_json(nanogpt.record_path(Path(path)), 1_000_000, ValueError)
    except ValueError:
        record = None
    declaration = models.which(record) or models.NANO_GPT
    loaded = models.load(declaration, path)
    said = declaration.describe(loaded) if declaration.describe else "its record checked"
    return f"{path}: {declaration.title}, {sizes.count_params(declaration.config)['total']:,} parameters, {said}"


def train_writer_main(argv) -> int:
    from .model import train_writer
    return train_writer.main(argv)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toycalc", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="load a weights file (the toy's .yaml, a .safetensors) and print what it does")
    c.add_argument("weights")
    c.add_argument("text", nargs="?", default="the cat climbed the")
    c.add_argument("--heads", type=int)
    sub.add_parser("train", add_help=False, help="train a model: python -m toycalc train [MODEL] [options] "
                   "(nano-gpt by default; writer), --help says more")
    sub.add_parser("train-writer", add_help=False,
                   help="train the writer on Shakespeare (python -m toycalc train-writer --help)")
    args, rest = parser.parse_known_args(argv)
    if args.command == "train":
        from .model import models, trainer
        if rest and not rest[0].startswith("-"):      # train MODEL [options]
            recipes = models.trained()
            if rest[0] not in recipes:
                print(f"error: train {rest[0]}: no such model; the models: {', '.join(recipes)}", file=sys.stderr)
                return 2
            return train_writer_main(rest[1:]) if rest[0] == "writer" else trainer.main(recipes[rest[0]], rest[1:])
        return train.main(rest)
    if args.command == "train-writer":
        return train_writer_main(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        print(check_weights(args.weights) if args.weights.endswith(".safetensors")
              else check(args.weights, args.text, args.heads))
    except (WeightsError, TokenizerError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
