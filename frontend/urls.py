"""Browser pages (templates); data comes from the API.

Names are not namespaced: ``settings.LOGIN_URL`` is the bare name ``login``."""

from django.contrib.auth import views as auth_views
from django.urls import path

import annotate.converters  # noqa: F401 - registers the <id:...> converter
from frontend import admin_views, views
from frontend.pages import adjudication, jobs

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # the one-time page where an invited user (or one an admin reset) sets a password
    path(
        "password/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(template_name="frontend/password_set.html"),
        name="password_reset_confirm",
    ),
    path(
        "password/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="frontend/password_set_done.html"
        ),
        name="password_reset_complete",
    ),
    path("work/<id:assignment_id>/", views.workspace, name="workspace"),
    path("adjudication/", adjudication.adjudication_list, name="adjudication"),
    path("adjudicate/<id:pair_id>/", adjudication.adjudicate, name="adjudicate"),
    path("guidelines/", views.guidelines_page, name="guidelines"),
    path("scorers/", views.scorers_page, name="scorers"),
    # the corpus admin's pages
    path("corpora/", admin_views.corpus_list, name="corpus-list"),
    path("corpora/<id:corpus_id>/", admin_views.corpus_detail, name="corpus-detail"),
    path("corpora/<id:corpus_id>/pairs/", admin_views.corpus_pairs, name="corpus-pairs"),
    path(
        "corpora/<id:corpus_id>/agreement/",
        admin_views.corpus_agreement,
        name="corpus-agreement",
    ),
    path("corpora/<id:corpus_id>/prefill/", admin_views.corpus_prefill, name="corpus-prefill"),
    path(
        "corpora/<id:corpus_id>/assignments/",
        admin_views.corpus_assignments,
        name="corpus-assignments",
    ),
    path("corpora/<id:corpus_id>/export/", admin_views.corpus_export, name="corpus-export"),
    path("jobs/", jobs.job_list, name="job-list"),
    path("jobs/<id:job_id>/cancel/", jobs.job_cancel_view, name="job-cancel-page"),
    path("users/", admin_views.user_list, name="user-list"),
]
