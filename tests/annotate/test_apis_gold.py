"""The gold alignment through the API: the adjudication view gives its version, a save names
the version it was made on, and a stale save is a 409 with the current gold."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import GoldAlignment, GoldEvent
from tests.annotate.factories import make_pair, make_user

pytestmark = pytest.mark.django_db


def _client(name: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user(name, roles.ADJUDICATOR))
    return client


def _put(client: APIClient, pair: Any, version: Any, links: list) -> Any:
    return client.put(
        f"/api/pairs/{pair.pk}/gold/", {"version": version, "links": links}, format="json"
    )


def test_the_adjudication_view_gives_the_gold_with_its_version() -> None:
    pair = make_pair(gold=[(0, 0, True)])
    body = _client("carol").get(f"/api/pairs/{pair.pk}/adjudication/").json()
    assert body["gold"]["links"] == [[0, 0, "S"]]
    assert body["gold"]["version"] == 1
    assert (body["gold"]["adjudicator"], body["gold"]["origin"]) == (None, "imported")


def test_two_adjudicators_on_one_pair_the_second_save_is_a_409_with_the_first_ones_gold() -> None:
    pair = make_pair(prefill=None)
    carol, dave = _client("carol"), _client("dave")
    loaded = [c.get(f"/api/pairs/{pair.pk}/adjudication/").json()["gold"] for c in (carol, dave)]
    assert loaded == [None, None]
    first = _put(carol, pair, None, [[0, 0, "S"]])
    assert first.status_code == 200
    assert first.json()["version"] == 1 and first.json()["changed"] is True
    second = _put(dave, pair, 0, [[2, 2, "P"]])
    assert second.status_code == 409
    error = second.json()["error"]
    assert error["code"] == "stale_version"
    assert "saved by carol" in error["message"]
    assert error["server"]["links"] == [[0, 0, "S"]]
    assert error["server"]["version"] == 1
    assert error["server"]["adjudicator"] == "carol"
    assert error["server"]["updated_at"]
    gold = GoldAlignment.objects.get(pair=pair)
    assert sorted(gold.links.values_list("i", "j", "sure")) == [(0, 0, True)]
    assert GoldEvent.objects.count() == 1
    reloaded = _put(dave, pair, 1, [[2, 2, "P"]])  # after loading the current gold
    assert reloaded.status_code == 200 and reloaded.json()["version"] == 2


def test_a_save_without_a_version_is_a_400_naming_it() -> None:
    pair = make_pair(prefill=None)
    response = _client("carol").put(
        f"/api/pairs/{pair.pk}/gold/", {"links": [[0, 0, "S"]]}, format="json"
    )
    assert response.status_code == 400
    assert "version" in response.json()["error"]["fields"]
    assert not GoldAlignment.objects.exists()


@pytest.mark.parametrize("version", [-1, 2**31, "one"])
def test_a_version_out_of_range_is_a_400(version: Any) -> None:
    pair = make_pair(prefill=None)
    response = _put(_client("carol"), pair, version, [[0, 0, "S"]])
    assert response.status_code == 400
    assert "version" in response.json()["error"]["fields"]


def _clear(client: APIClient, pair: Any, body: Any) -> Any:
    return client.post(f"/api/pairs/{pair.pk}/gold/clear/", body, format="json")


def test_a_pair_sent_back_to_waiting_has_no_gold_and_a_save_goes_on_from_the_next_version() -> None:
    pair = make_pair(prefill=None)
    carol = _client("carol")
    assert _put(carol, pair, 0, [[0, 0, "S"]]).json()["version"] == 1
    cleared = _clear(carol, pair, {"version": 1})
    assert cleared.status_code == 200
    assert cleared.json() == {
        "pair": pair.pk,
        "changed": True,
        "cleared_version": 2,
        "version": 2,
        "status": "waiting",
    }
    detail = carol.get(f"/api/pairs/{pair.pk}/adjudication/").json()
    assert detail["gold"] is None
    assert detail["cleared"]["version"] == 2 and detail["cleared"]["adjudicator"] == "carol"
    events = carol.get(f"/api/pairs/{pair.pk}/gold/events/").json()["events"]
    assert [(e["version"], e["kind"], e["actor"]) for e in events] == [
        (2, "cleared", "carol"),
        (1, "adjudicated", "carol"),
    ]
    again = _clear(carol, pair, {"version": 1})  # a retried request
    assert again.status_code == 200 and again.json()["changed"] is False
    stale = _put(carol, pair, 0, [[1, 1, "P"]])  # as a page opened before the first gold
    assert stale.status_code == 409
    assert stale.json()["error"]["server"]["origin"] == "cleared"
    assert not GoldAlignment.objects.filter(pair=pair).exists()
    saved = _put(carol, pair, 2, [[1, 1, "P"]])
    assert saved.status_code == 200 and saved.json()["version"] == 3


def test_a_stale_clear_is_a_409_with_the_current_gold() -> None:
    pair = make_pair(prefill=None)
    carol, dave = _client("carol"), _client("dave")
    _put(carol, pair, 0, [[0, 0, "S"]])
    _put(carol, pair, 1, [[0, 0, "S"], [1, 1, "S"]])
    response = _clear(dave, pair, {"version": 1})
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "stale_version"
    assert error["server"]["version"] == 2
    assert error["server"]["links"] == [[0, 0, "S"], [1, 1, "S"]]
    assert GoldAlignment.objects.get(pair=pair).version == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "version"), ({"version": 0}, "version"), ({"version": 1, "verison": 1}, "verison")],
)
def test_a_clear_without_a_gold_version_or_with_unknown_fields_is_a_400(
    body: Any, field: str
) -> None:
    pair = make_pair(gold=[(0, 0, True)])
    response = _clear(_client("carol"), pair, body)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert GoldAlignment.objects.filter(pair=pair).exists()
