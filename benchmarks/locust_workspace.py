"""Locust user for ``bench_workspace``: an annotator who saves every 2 seconds.

Not run on its own: ``bench_workspace`` writes the users file (token and assignment per user)
and starts ``locust --headless`` with this file. Each user owns one assignment, opens it once,
then every 2 s toggles a random cell and saves on top of the version it holds (so there are no
409s unless the server loses a write), plus a ``GET /api/me/`` as the framework-baseline peer.
When it stops it writes the last save the server acknowledged (version and links) to
``$WORKSPACE_BENCH_ACKS/<assignment>.json``, which the benchmark compares with the database.

``FastHttpUser`` (geventhttpclient) rather than ``HttpUser`` (requests): the load generator
shares this machine's two cores with the server, and requests' per-call CPU cost was measured
to dominate the latencies it reported.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
from pathlib import Path
from typing import Any

import gevent
from locust import FastHttpUser, task

USERS = json.loads(Path(os.environ["WORKSPACE_BENCH_USERS"]).read_text(encoding="utf-8"))
_NEXT = itertools.count()


PERIOD_S = 2.0


class Annotator(FastHttpUser):
    """One save every 2 s, each user at its own random phase.

    Annotators do not save in lockstep. locust's ``constant_pacing`` counts from the moment the
    user object was created, which is the same instant for every user, so it re-synchronised
    all of them after the first period (measured: every request of a 50-user run started in
    the same 200 ms of each 2 s); the schedule is therefore kept here, from each user's phase.
    """

    def wait_time(self) -> float:
        self.next_at += PERIOD_S
        return max(0.0, self.next_at - time.monotonic())

    def on_start(self) -> None:
        me = USERS[next(_NEXT) % len(USERS)]
        gevent.sleep(random.Random(me["assignment"]).uniform(0, PERIOD_S))
        self.next_at = time.monotonic()
        self.headers = {"Authorization": f"Token {me['token']}"}
        self.url = f"/api/assignments/{me['assignment']}"
        self.rng = random.Random(me["assignment"])
        response = self.client.post(f"{self.url}/open/", headers=self.headers, name="open")
        data: dict[str, Any] = response.json()
        self.n = len(data["pair"]["source_tokens"])
        self.m = len(data["pair"]["target_tokens"])
        self.version = data["annotation"]["version"]
        self.links = {(i, j): kind for i, j, kind in data["annotation"]["links"]}
        self.assignment = me["assignment"]
        self.acknowledged: dict[str, Any] | None = None

    def on_stop(self) -> None:
        if self.acknowledged is not None:
            folder = Path(os.environ["WORKSPACE_BENCH_ACKS"])
            (folder / f"{self.assignment}.json").write_text(json.dumps(self.acknowledged))

    @task
    def save(self) -> None:
        cell = (self.rng.randrange(self.n), self.rng.randrange(self.m))
        if cell in self.links:
            del self.links[cell]
        else:
            self.links[cell] = "S"
        body = {
            "version": self.version,
            "links": [[i, j, kind] for (i, j), kind in sorted(self.links.items())],
        }
        with self.client.put(
            f"{self.url}/annotation/",
            json=body,
            headers=self.headers,
            name="save",
            catch_response=True,
        ) as response:
            if response.status_code == 200:
                self.version = response.json()["version"]
                self.acknowledged = {"version": self.version, "links": body["links"]}
            else:
                response.failure(f"HTTP {response.status_code}: {response.text[:200]}")
        self.client.get("/api/me/", headers=self.headers, name="me (peer)")
