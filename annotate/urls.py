"""API routes (``/api/...``); one APIView per operation, see annotate/apis.py."""

from django.urls import path  # noqa: F401

app_name = "api"
urlpatterns: list = []
