"""A save replacing thousands of links is set-based: exact, and a bounded number of statements."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import Annotation, AnnotationEvent, AnnotationLink
from annotate.services import annotations as svc
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]
N = 120


def _big_pair() -> Any:
    words = " ".join(f"w{k}" for k in range(N))
    return make_assignment(make_pair(source=words, target=words, prefill=None))


def test_replacing_7200_links_on_a_120_by_120_pair_stores_exactly_the_new_set(
    django_assert_max_num_queries: Any,
) -> None:
    assignment = _big_pair()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    first = {(i, j): True for i in range(N) for j in range(N) if (i + j) % 2 == 0}  # 7,200 sure
    svc.annotation_save(
        assignment=assignment, actor=assignment.annotator, base_version=1, links=first
    )
    # every link goes, 7,200 others come, and half of those are possible
    second = {(i, j): j % 4 == 1 for i in range(N) for j in range(N) if (i + j) % 2 == 1}
    with django_assert_max_num_queries(30):  # a per-link approach needs over 7,000
        result = svc.annotation_save(
            assignment=assignment, actor=assignment.annotator, base_version=2, links=second
        )
    assert result.changed
    assert svc.annotation_links(result.annotation) == second
    assert AnnotationLink.objects.filter(annotation=result.annotation).count() == 7200
    event = AnnotationEvent.objects.get(annotation=result.annotation, version=3)
    assert len(event.added) == 7200 and len(event.removed) == 7200


def test_flipping_the_flag_of_thousands_of_links_keeps_the_other_links(
    django_assert_max_num_queries: Any,
) -> None:
    assignment = _big_pair()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    links = {(i, j): True for i in range(N) for j in range(0, N, 3)}
    svc.annotation_save(
        assignment=assignment, actor=assignment.annotator, base_version=1, links=links
    )
    flipped = {key: not sure if key[0] % 2 else sure for key, sure in links.items()}
    with django_assert_max_num_queries(40):
        result = svc.annotation_save(
            assignment=assignment, actor=assignment.annotator, base_version=2, links=flipped
        )
    assert svc.annotation_links(result.annotation) == flipped


def test_megabytes_of_client_junk_are_refused_and_nothing_changes() -> None:
    from annotate.exceptions import DomainError

    assignment = _big_pair()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    with pytest.raises(DomainError, match="limited to 4096 bytes"):
        svc.annotation_save(
            assignment=assignment,
            actor=assignment.annotator,
            base_version=1,
            links={(0, 0): True},
            client={"session": "x" * 2_000_000},
        )
    assert AnnotationLink.objects.count() == 0


def test_a_save_over_the_link_limit_is_refused_and_changes_nothing() -> None:
    words = " ".join(f"w{k}" for k in range(101))
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(source=words, target=words, prefill=None), alice)
    svc.annotation_open(assignment=assignment, actor=alice)
    links = {(i, j): False for i in range(101) for j in range(100)}
    assert len(links) > svc.MAX_LINKS
    with pytest.raises(svc.InvalidLinks, match="at most 10,000"):
        svc.annotation_save(assignment=assignment, actor=alice, base_version=1, links=links)
    assert Annotation.objects.get(assignment=assignment).version == 1
