"""Users and roles (admins): the list, create or invite, change roles and state, and a new
set-password link."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import permissions, roles
from annotate.apis.common import (
    BoundedListField,
    KnownFieldsSerializer,
    KnownQueryParamsSerializer,
    actor,
    name_nested_serializers,
)
from annotate.selectors import users as users_reads
from annotate.services import users


class UserOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField()
    roles = serializers.ListField(child=serializers.ChoiceField(choices=roles.ROLES))
    is_superuser = serializers.BooleanField()
    is_staff = serializers.BooleanField(help_text="Can use the Django admin")
    can_change = serializers.BooleanField(
        help_text="Whether the caller may change this account (only superusers change "
        "superusers and staff)"
    )
    is_active = serializers.BooleanField()
    has_password = serializers.BooleanField(
        help_text="False until an invited user has set a password"
    )
    last_login = serializers.DateTimeField(allow_null=True)
    date_joined = serializers.DateTimeField()
    assigned = serializers.IntegerField()
    submitted = serializers.IntegerField()


def _user_row(user_id: int, viewer: Any) -> dict[str, Any]:
    return users_reads.users_listed(user_id=user_id, viewer=viewer)[0]


class UserListApi(APIView):
    permission_classes = permissions.ADMINS

    class InputSerializer(KnownQueryParamsSerializer):
        role = serializers.ChoiceField(choices=roles.ROLES, required=False)
        search = serializers.CharField(required=False, allow_blank=True, max_length=150)

    @extend_schema(parameters=[InputSerializer], responses=UserOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        query = self.InputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = users_reads.users_listed(
            viewer=request.user,
            role=query.validated_data.get("role"),
            search=query.validated_data.get("search", ""),
        )
        return Response(UserOutputSerializer(rows, many=True).data)


class UserCreateApi(APIView):
    """Create a user with roles. Without a password the answer carries ``invite_path``: the
    page where the new user sets one (pass it on; it works once)."""

    permission_classes = permissions.ADMINS

    class InputSerializer(KnownFieldsSerializer):
        username = serializers.CharField(max_length=150)
        email = serializers.CharField(max_length=254, required=False, allow_blank=True)
        roles = BoundedListField(
            child=serializers.ChoiceField(choices=roles.ROLES),
            required=False,
            max_length=len(roles.ROLES),
        )
        password = serializers.CharField(
            max_length=128, required=False, allow_blank=True, write_only=True
        )

    class OutputSerializer(UserOutputSerializer):
        invite_path = serializers.CharField(allow_null=True)

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = users.user_create(
            username=data.validated_data["username"],
            email=data.validated_data.get("email", ""),
            role_names=data.validated_data.get("roles", []),
            password=data.validated_data.get("password") or None,
        )
        invite = None
        if not user.has_usable_password():
            invite = users.user_password_link(user=user, actor=actor(request))
        body = {**_user_row(user.pk, request.user), "invite_path": invite}
        return Response(self.OutputSerializer(body).data, status=status.HTTP_201_CREATED)


class UserUpdateApi(APIView):
    """Change roles (the full list), the active flag or the e-mail; absent fields stay."""

    permission_classes = permissions.ADMINS

    class InputSerializer(KnownFieldsSerializer):
        roles = BoundedListField(
            child=serializers.ChoiceField(choices=roles.ROLES),
            required=False,
            max_length=len(roles.ROLES),
        )
        is_active = serializers.BooleanField(required=False)
        email = serializers.CharField(max_length=254, required=False, allow_blank=True)

    @extend_schema(request=InputSerializer, responses=UserOutputSerializer)
    def patch(self, request: Request, user_id: int) -> Response:
        user = users_reads.user_get(user_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        users.user_update(
            user=user,
            actor=actor(request),
            role_names=data.validated_data.get("roles"),
            is_active=data.validated_data.get("is_active"),
            email=data.validated_data.get("email"),
        )
        return Response(UserOutputSerializer(_user_row(user.pk, request.user)).data)


class UserPasswordLinkApi(APIView):
    """A new one-time link where the user sets a password (an invitation or a reset)."""

    permission_classes = permissions.ADMINS

    class OutputSerializer(serializers.Serializer[Any]):
        path = serializers.CharField()

    @extend_schema(request=None, responses={201: OutputSerializer})
    def post(self, request: Request, user_id: int) -> Response:
        path = users.user_password_link(user=users_reads.user_get(user_id), actor=actor(request))
        return Response({"path": path}, status=status.HTTP_201_CREATED)


name_nested_serializers(globals())
