"""``python -m scoring warm``: compile the numba kernels ahead of use (:mod:`scoring.kernels`).

    python -m scoring warm [--group NAME ...] [--force]

Run it after installing or updating: numba then compiles each kernel once, into its cache, and
no job or request has to wait minutes for it later. When the cache still holds everything the
last complete run left in it, it only checks that (about a second) and says so.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from scoring import kernels


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "warm",
        help="compile the numba kernels into numba's cache ahead of use",
        description=(
            "Compile every numba kernel of scoring (or those of the named groups) by running "
            "it once on tiny inputs, so that numba caches its code and later processes load it "
            "instead of compiling. Cheap when the cache is already warm."
        ),
    )
    parser.add_argument(
        "--group",
        action="append",
        choices=kernels.group_names(),
        help="only this group of kernels (repeatable; default: all)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="run every group even if the cache looks warm",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()

    groups = len(args.group) if args.group else len(kernels.group_names())

    def say(fraction: float, stage: str) -> None:
        print(f"  [{round(fraction * groups) + 1}/{groups}] {stage} …", flush=True)

    if args.force or args.group or not kernels.cache_is_current():
        print(
            "compiling scoring's numba kernels into numba's cache, so that no job or request "
            "waits for them (the first time after an install or an upgrade: 2 to 5 minutes on "
            "two cores)",
            flush=True,
        )
    report = kernels.warm(args.group, force=args.force, progress=say)
    total = time.perf_counter() - start
    if report.current:
        count = len(kernels.cached_kernels())
        print(f"the {count} numba kernels are compiled and cached; nothing to do ({total:.1f} s)")
        return 0
    if report.recompiled:
        print(f"compiled again, as kernels they call changed: {', '.join(report.recompiled)}")
    for name, reason in report.skipped.items():
        print(f"warning: {name}: {reason}; its kernels compile on first use", file=sys.stderr)
    if report.skipped and report.unreached:  # the skipped groups' kernels, as expected
        print(f"{len(report.unreached)} kernels compile on first use", file=sys.stderr)
    else:
        for name in report.unreached:
            print(f"warning: no warm-up group calls the kernel {name}", file=sys.stderr)
    slowest = max(report.seconds, key=report.seconds.__getitem__)
    print(
        f"numba kernels compiled or loaded from its cache in {total:.1f} s "
        f"(slowest group: {slowest}, {report.seconds[slowest]:.1f} s)"
    )
    return 0
