"""Loading what scoring a pair needs ahead of the first request."""

from __future__ import annotations

import pytest

from scoring import resources
from scoring.errors import ResourceMissingError
from scoring.scorers.preload import scorers_preload


def test_it_scores_a_pair_with_each_kind_and_reports_the_seconds() -> None:
    report = scorers_preload(["mt", "pfsm"])
    assert set(report) == {"mt", "pfsm"}
    assert all(isinstance(seconds, float) for seconds in report.values())


def test_a_kind_missing_a_resource_is_reported_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing() -> None:
        raise ResourceMissingError(
            "the NLTK resource 'wordnet' is not installed; install it with "
            "`python -m nltk.downloader wordnet`"
        )

    monkeypatch.setattr(resources, "wordnet", missing)
    report = scorers_preload(["pfsm", "mt"])
    assert "python -m nltk.downloader wordnet" in str(report["pfsm"])
    assert isinstance(report["mt"], float)
