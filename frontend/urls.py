"""Browser pages (templates); data comes from the API.

Names are not namespaced: ``settings.LOGIN_URL`` is the bare name ``login``."""

from django.contrib.auth import views as auth_views
from django.urls import path

from frontend import views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("work/<int:assignment_id>/", views.workspace, name="workspace"),
    path("adjudicate/<int:pair_id>/", views.adjudicate, name="adjudicate"),
    path("guidelines/", views.guidelines_page, name="guidelines"),
    path("scorers/", views.scorers_page, name="scorers"),
]
