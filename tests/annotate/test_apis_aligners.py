"""The aligner list of the prefill form: every aligner's options, read from its dataclass."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotate import roles
from scoring.aligners.base import aligner_class, available_aligners
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


def test_every_aligner_lists_its_options_but_those_naming_a_file() -> None:
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    listed = {entry["name"]: entry for entry in client.get("/api/aligners/").json()}
    assert list(listed) == list(available_aligners())
    for name, entry in listed.items():
        options_class = aligner_class(name).options_class
        names = [option["name"] for option in entry["options"]]
        assert names == [n for n in options_class.names() if n not in options_class.paths]
        assert all(o["type"] in ("bool", "int", "float", "str") for o in entry["options"])
    em = {option["name"]: option for option in listed["em"]["options"]}
    assert em["decode"]["choices"] == ["viterbi", "posterior", "agreement"]
    assert em["p_null"] == {
        "name": "p_null",
        "type": "float",
        "default": 0.4,
        "choices": [],
        "allowed": "in (0, 1)",
    }
    assert listed["supervised"]["learns_from_annotations"] is True


def test_an_aligner_description_is_its_docstring_first_paragraph_whole() -> None:
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    listed = {entry["name"]: entry for entry in client.get("/api/aligners/").json()}
    assert listed["em"]["description"] == (
        "IBM Model 1 + HMM in both directions, symmetrized: the intersection's links sure and, "
        'with possible="grow-diag-final", grow-diag-final\'s others possible (off by default: '
        "as a prefill they cost annotators more corrections than they save)."
    )
    assert all(entry["description"].endswith((".", ")")) for entry in listed.values())
