"""Browser pages (templates); data comes from the API."""

from django.urls import path  # noqa: F401

app_name = "frontend"
urlpatterns: list = []
