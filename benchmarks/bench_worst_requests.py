"""The slowest request any role can send to each endpoint, and its server time.

For every operation of the OpenAPI schema, every server-rendered page and the login form, the
request that costs the server most within the limits the product enforces: the longest
sentences (the import's token limit), the most links a grid holds, the most pairs, the largest
body, the longest guidelines, the deepest JSON, pathological text, and the data of a corpus of
10,000 pairs × 3 annotators (the dashboards' scale). Each request goes through Django's full
stack in this process (``django.test.Client``: routing, sessions, permissions, parsing,
serialization) on a fresh SQLite database, or on ``--database-url``; requests that change data
are rebuilt for every round so each round does the full work. The figure of an endpoint is its
slowest request in any round (p100) after a warm-up round; the target is p100 ≤ 1 s of server
time on this machine. An operation of the schema without a worst case here is a failure too.

    python -m benchmarks.bench_worst_requests [--pairs 10000] [--rounds 3] [--only TEXT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.results import Row, save
from benchmarks.worst_requests import Case, World, all_cases, clients_for

TARGET_MS = 1000.0


def _setup(var: Path, database_url: str | None) -> None:
    os.environ["VAR_DIR"] = str(var)
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{var}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["CACHE_URL"] = "locmem://"
    os.environ["CELERY_BROKER_URL"] = "memory://"
    os.environ["EXPORT_DIR"] = str(var / "exports")
    for scope in ("USER", "ADDRESS", "ANONYMOUS", "JOBS", "SCORE"):
        os.environ[f"API_RATE_{scope}"] = "1000000/min"
    import django

    django.setup()
    from django.core.management import call_command

    if database_url:
        call_command("flush", "--no-input", verbosity=0)
    call_command("migrate", "--no-input", verbosity=0)


def measure(cases: list[Case], rounds: int, clients: dict[str, Any]) -> None:
    """Run every case ``rounds + 1`` times (the first is a warm-up), interleaved."""
    for round_ in range(rounds + 1):
        for case in cases:
            request = case.build(round_)
            client = clients[case.role]
            kwargs: dict[str, Any] = {}
            if request.body is not None:
                if request.content_type == "multipart":
                    kwargs["data"] = request.body
                else:
                    body = request.body
                    kwargs["data"] = body if isinstance(body, str | bytes) else json.dumps(body)
                    kwargs["content_type"] = request.content_type
            start = time.perf_counter()
            response = client.generic_call(request.method, request.url, **kwargs)
            elapsed = (time.perf_counter() - start) * 1000
            if response.status_code not in request.expect:
                case.error = (
                    f"{request.method} {request.url} answered {response.status_code}, expected "
                    f"{' or '.join(map(str, request.expect))}: {response.content[:200]!r}"
                )
                print(f"{case.operation} ({case.label}): {case.error}", flush=True)
            if round_:
                case.times.append(elapsed)
            # Responses are read whole, as a client would (a streamed file included).
            if hasattr(response, "streaming_content"):
                for _ in response.streaming_content:
                    pass


def schema_operations(client: Any) -> set[str]:
    schema = client.get("/api/schema/?format=json").json()
    return {
        f"{method.upper()} {path}"
        for path, operations in schema["paths"].items()
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
    }


def report(cases: list[Case], operations: set[str]) -> list[Row]:
    """One row per endpoint: its slowest request over every case and round. Printed by
    endpoint; returned slowest first (the README's summary shows a benchmark's first row)."""
    by_endpoint: dict[str, list[Case]] = {}
    covered = {case.operation.split(" [")[0] for case in cases}
    for case in cases:
        by_endpoint.setdefault(case.operation, []).append(case)
    print(f"\n{'endpoint':62} {'worst request':48} {'p100 ms':>9}  target")
    rows = []
    for endpoint in sorted(by_endpoint):
        worst = max(by_endpoint[endpoint], key=lambda c: (bool(c.error), max(c.times)))
        p100 = max(worst.times)
        met = p100 <= TARGET_MS and not worst.error
        flag = "ok" if met else "MISSED" if not worst.error else "WRONG ANSWER"
        print(f"{endpoint:62} {worst.label[:48]:48} {p100:9.1f}  ≤ {TARGET_MS:.0f} ms {flag}")
        rows.append(
            Row(
                f"{endpoint}: {worst.label}",
                p100,
                "ms",
                target=f"p100 ≤ {TARGET_MS:.0f} ms",
                met=met,
            )
        )
    rows.sort(key=lambda row: -row.figure)
    missing = sorted(operations - covered)
    for operation in missing:
        print(f"{operation:62} {'(no worst case in the benchmark)':48} {'—':>9}  MISSED")
        rows.append(
            Row(f"{operation}: no worst case measured", 0.0, "ms", target="measured", met=False)
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="only endpoints whose name contains this")
    parser.add_argument(
        "--upload-mb", type=int, default=0, help="the upload's size (default: MAX_UPLOAD_BYTES)"
    )
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    with tempfile.TemporaryDirectory() as tmp:
        _setup(Path(tmp), args.database_url)
        from django.conf import settings

        start = time.perf_counter()
        upload = args.upload_mb * 2**20 if args.upload_mb else settings.MAX_UPLOAD_BYTES
        world = World.build(args.pairs, rounds=args.rounds, var=Path(tmp), upload_bytes=upload)
        print(f"built the data in {time.perf_counter() - start:.0f} s")
        clients = clients_for(world)
        operations = schema_operations(clients["root"])
        cases = [c for c in all_cases(world) if args.only in c.operation]
        if args.only:
            operations = {op for op in operations if args.only in op}
        measure(cases, args.rounds, clients)
        rows = report(cases, operations)
    save(
        "bench_worst_requests",
        rows,
        pairs=args.pairs,
        rounds=args.rounds,
        only=args.only or None,
    )
    return 0 if all(row.met for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
