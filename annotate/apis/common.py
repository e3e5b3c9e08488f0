"""Shared pieces of the API views: link fields, the acting user, schema names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from annotate.exceptions import DomainError, PermissionDenied
from annotate.services.annotations import MAX_LINKS, LinkMap, links_parse

if TYPE_CHECKING:
    from django.contrib.auth.models import User


#: The largest row id a query parameter may name (a 64-bit signed integer).
MAX_ID = 2**63 - 1


class BoundedListField(serializers.ListField):
    """A list field that checks ``max_length`` before it validates the items: DRF's own checks
    the length after validating every item, so a body of half a million tiny items costs
    seconds before it is refused."""

    def to_internal_value(self, data: Any) -> Any:
        if self.max_length is not None and isinstance(data, list) and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class KnownFieldsSerializer(serializers.Serializer[Any]):
    """An input serializer that refuses fields it does not know (400 naming them and the known
    ones) instead of ignoring them: a PATCH of ``is_superuser`` or ``username`` answered 200 and
    changed nothing, as if the change were made; a save's ``comment`` was dropped as if saved."""

    #: Names a request may carry besides the fields: the browsable API's forms' CSRF token.
    allowed_extra: ClassVar[frozenset[str]] = frozenset({"csrfmiddlewaretoken"})

    def to_internal_value(self, data: Any) -> Any:
        if hasattr(data, "keys"):
            ignored = {*self.fields, *self.allowed_extra}
            unknown = sorted(str(key) for key in data if key not in ignored)
            if unknown:
                known = ", ".join(sorted(self.fields))
                raise serializers.ValidationError(
                    {key: [f"unknown field; the fields are {known}"] for key in unknown[:20]}
                )
        return super().to_internal_value(data)


class KnownQueryParamsSerializer(KnownFieldsSerializer):
    """A serializer of query parameters that refuses ones it does not know: a misspelt filter
    (``?stauts=waiting``) answered the whole unfiltered list as if it were the filtered one.
    DRF's own ``format`` parameter (``?format=json``) is let through."""

    allowed_extra: ClassVar[frozenset[str]] = frozenset({api_settings.URL_FORMAT_OVERRIDE or ""})


def link_field() -> serializers.ListField:
    """``[[i, j, "S"|"P"], ...]``; the content is checked by ``links_parse``."""
    return BoundedListField(child=serializers.JSONField(), allow_empty=True, max_length=MAX_LINKS)


#: Rows a page of a paged list, unless the request's ``per_page`` asks for up to
#: :data:`MAX_PER_PAGE`.
PER_PAGE = 50
MAX_PER_PAGE = 200
#: The highest page number a request may name.
MAX_PAGE = 1_000_000


def page_field() -> serializers.IntegerField:
    """``page``: a page number from 1 (a bad one is refused, naming ``page``)."""
    return serializers.IntegerField(
        min_value=1, max_value=MAX_PAGE, required=False, default=1, help_text="from 1"
    )


def per_page_field(default: int = PER_PAGE) -> serializers.IntegerField:
    """``per_page``: rows a page, 1 to :data:`MAX_PER_PAGE` (a bad one is refused)."""
    return serializers.IntegerField(
        min_value=1,
        max_value=MAX_PER_PAGE,
        required=False,
        default=default,
        help_text=f"rows a page, at most {MAX_PER_PAGE} (default {default})",
    )


def page_count(*, total: int, page: int, per_page: int) -> int:
    """The number of pages of ``total`` rows (1 when there are none); a ``page`` past the last
    is refused, naming it and the last, rather than answered with an empty list."""
    pages = max(1, -(-total // per_page))
    if page > pages:
        raise DomainError(
            f"page {page} is past the end: the last page is {pages} "
            f"({total} rows, {per_page} a page)",
            field="page",
        )
    return pages


def page_body(
    results: Any, *, request: Request, total: int, page: int, per_page: int
) -> dict[str, Any]:
    """One page of a paged list, as every paged endpoint answers it: ``total`` rows matching,
    this ``page`` of ``pages``, ``per_page`` rows a page, the absolute URLs of the ``next`` and
    ``previous`` pages (the same query, null past either end) and its ``results``."""
    pages = page_count(total=total, page=page, per_page=per_page)
    return {
        "total": total,
        "page": page,
        "pages": pages,
        "per_page": per_page,
        "next": _page_url(request, page + 1) if page < pages else None,
        "previous": _page_url(request, page - 1) if page > 1 else None,
        "results": results,
    }


def _page_url(request: Request, page: int) -> str:
    query = request.query_params.copy()
    query["page"] = str(page)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


class PageSerializer(serializers.Serializer[Any]):
    """The fields :func:`page_body` answers besides ``results``."""

    total = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    per_page = serializers.IntegerField()
    next = serializers.URLField(allow_null=True, help_text="the next page (absolute), or null")
    previous = serializers.URLField(allow_null=True, help_text="the previous page, or null")


def actor(request: Request) -> User:
    """The logged-in user (every view requires authentication)."""
    user = request.user
    if not isinstance(user, get_user_model()):
        raise PermissionDenied("log in first")
    return user


def parse_links(request_links: list[Any], *, n_source: int, n_target: int) -> LinkMap:
    return links_parse(request_links, n_source=n_source, n_target=n_target)


def user_named(username: str) -> Any:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise DomainError(f"there is no user {username!r}")
    return user


def name_nested_serializers(namespace: dict[str, Any]) -> None:
    """Give each nested ``InputSerializer``/``OutputSerializer`` of the views in ``namespace`` (a
    module's ``globals()``) a unique OpenAPI component name (``MeApiOutput`` …); otherwise every
    one of them would be called ``Input`` or ``Output``."""
    for view in list(namespace.values()):
        if isinstance(view, type) and issubclass(view, APIView):
            for attr, nested in list(vars(view).items()):
                if isinstance(nested, type) and issubclass(nested, serializers.BaseSerializer):
                    name = f"{view.__name__}{attr.removesuffix('Serializer')}"
                    setattr(view, attr, extend_schema_serializer(component_name=name)(nested))
