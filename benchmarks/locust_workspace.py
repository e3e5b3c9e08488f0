"""Locust user for ``bench_workspace``: an annotator who saves every few seconds and submits.

Not run on its own: ``bench_workspace`` writes the users file (a token per user, each user with
a queue of assignments) and starts ``locust --headless`` with this file. Each user asks for its
queue, opens the assignment it should work on, then every :data:`PERIOD_S` seconds toggles a
random cell and saves on top of the version it holds (so there are no 409s unless the server
loses a write); after :data:`SAVES_PER_PAIR` saves it submits and opens the next assignment the
server names. Every save is followed by a ``GET /api/me/``, the framework-baseline peer. The
last state the server acknowledged for each assignment (version, links, whether submitted) is
written to ``$WORKSPACE_BENCH_ACKS/<assignment>.json`` when the user leaves it or stops, and
the benchmark compares those files with the database.

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


PERIOD_S = float(os.environ["WORKSPACE_BENCH_PERIOD_S"])
SAVES_PER_PAIR = int(os.environ["WORKSPACE_BENCH_SAVES_PER_PAIR"])


class Annotator(FastHttpUser):
    """One request every period, each user at its own random phase.

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
        gevent.sleep(random.Random(me["token"]).uniform(0, PERIOD_S))
        self.next_at = time.monotonic()
        self.headers = {"Authorization": f"Token {me['token']}"}
        self.rng = random.Random(me["token"])
        self.assignment: int | None = None
        self.acknowledged: dict[str, Any] | None = None
        queue = self.client.get("/api/queue/", headers=self.headers, name="queue").json()
        self._open(queue["next_id"])

    def _open(self, assignment: int | None) -> None:
        self.assignment = assignment
        self.acknowledged = None
        self.saves = 0
        if assignment is None:  # nothing left to annotate
            return
        self.url = f"/api/assignments/{assignment}"
        response = self.client.post(f"{self.url}/open/", headers=self.headers, name="open")
        data: dict[str, Any] = response.json()
        self.n = len(data["pair"]["source_tokens"])
        self.m = len(data["pair"]["target_tokens"])
        self.version = data["annotation"]["version"]
        self.links = {(i, j): kind for i, j, kind in data["annotation"]["links"]}

    def _record(self) -> None:
        if self.assignment is not None and self.acknowledged is not None:
            folder = Path(os.environ["WORKSPACE_BENCH_ACKS"])
            (folder / f"{self.assignment}.json").write_text(json.dumps(self.acknowledged))

    def on_stop(self) -> None:
        self._record()

    @task
    def work(self) -> None:
        if self.assignment is None:
            self.client.get("/api/me/", headers=self.headers, name="me (peer)")
            return
        if self.saves >= SAVES_PER_PAIR:
            self._submit()
        else:
            self._save()
        self.client.get("/api/me/", headers=self.headers, name="me (peer)")

    def _save(self) -> None:
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
                self.acknowledged = {
                    "version": self.version,
                    "links": body["links"],
                    "submitted": False,
                }
                self.saves += 1
            else:
                response.failure(f"HTTP {response.status_code}: {response.text[:200]}")

    def _submit(self) -> None:
        with self.client.post(
            f"{self.url}/submit/",
            json={"version": self.version},
            headers=self.headers,
            name="submit",
            catch_response=True,
        ) as response:
            if response.status_code != 200:
                response.failure(f"HTTP {response.status_code}: {response.text[:200]}")
                return
            answer = response.json()
        self.version = answer["version"]
        links = [[i, j, kind] for (i, j), kind in sorted(self.links.items())]
        self.acknowledged = {"version": self.version, "links": links, "submitted": True}
        self._record()
        self._open(answer["next_id"])
