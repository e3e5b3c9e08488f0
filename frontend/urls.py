"""Browser pages: Django templates rendered from the selectors (``frontend/pages/``), and the
pages whose scripts read the API.

Names are not namespaced: ``settings.LOGIN_URL`` is the bare name ``login``."""

from django.contrib.auth import views as auth_views
from django.urls import path

import annotate.converters  # noqa: F401 - registers the <id:...> converter
from annotate.services.users import password_link_tokens
from frontend import views
from frontend.pages import (
    account,
    adjudication,
    corpora,
    corpus_agreement,
    corpus_assignments,
    corpus_export,
    corpus_overview,
    corpus_prefill,
    guidelines,
    home,
    jobs,
    pairs,
    scorers,
    users,
)

#: The corpus tabs rendered by frontend.pages: each page, and the forms it posts.
corpus_tabs = [
    path(
        "corpora/<id:corpus_id>/agreement/",
        corpus_agreement.corpus_agreement,
        name="corpus-agreement",
    ),
    path(
        "corpora/<id:corpus_id>/agreement/run/",
        corpus_agreement.corpus_agreement_run,
        name="corpus-agreement-run",
    ),
    path("corpora/<id:corpus_id>/prefill/", corpus_prefill.corpus_prefill, name="corpus-prefill"),
    path(
        "corpora/<id:corpus_id>/prefill/run/",
        corpus_prefill.corpus_prefill_run,
        name="corpus-prefill-run",
    ),
    path(
        "corpora/<id:corpus_id>/prefill/retraining-off/",
        corpus_prefill.corpus_prefill_retraining_off,
        name="corpus-prefill-retraining-off",
    ),
    path(
        "corpora/<id:corpus_id>/prefill/queue-order/",
        corpus_prefill.corpus_prefill_queue_order,
        name="corpus-prefill-queue-order",
    ),
    path(
        "corpora/<id:corpus_id>/assignments/",
        corpus_assignments.corpus_assignments,
        name="corpus-assignments",
    ),
    path(
        "corpora/<id:corpus_id>/assignments/plan/",
        corpus_assignments.corpus_assignments_plan,
        name="corpus-assignments-plan",
    ),
    path(
        "corpora/<id:corpus_id>/assignments/hand-over/",
        corpus_assignments.corpus_assignments_hand_over,
        name="corpus-assignments-hand-over",
    ),
    path(
        "corpora/<id:corpus_id>/assignments/release/",
        corpus_assignments.corpus_assignments_release,
        name="corpus-assignments-release",
    ),
    path("corpora/<id:corpus_id>/export/", corpus_export.corpus_export, name="corpus-export"),
    path(
        "corpora/<id:corpus_id>/export/run/",
        corpus_export.corpus_export_run,
        name="corpus-export-run",
    ),
]

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # the one-time page where an invited user (or one an admin reset) sets a password
    path(
        "password/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="frontend/password_set.html", token_generator=password_link_tokens
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="frontend/password_set_done.html"
        ),
        name="password_reset_complete",
    ),
    # a logged-in user changes their own password (the old one first); the session goes on
    path(
        "account/password/",
        account.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "account/password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="frontend/password_change_done.html"
        ),
        name="password_change_done",
    ),
    path("work/<id:assignment_id>/", views.workspace, name="workspace"),
    path("adjudication/", adjudication.adjudication_list, name="adjudication"),
    path(
        "adjudication/accept-agreed/",
        adjudication.adjudication_accept_agreed,
        name="adjudication-accept-agreed",
    ),
    path(
        "adjudication/accept-agreed/<id:job_id>/undo/",
        adjudication.adjudication_accept_undo,
        name="adjudication-accept-undo",
    ),
    path("adjudicate/<id:pair_id>/", adjudication.adjudicate, name="adjudicate"),
    path("guidelines/", guidelines.guidelines_page, name="guidelines"),
    path("scorers/", scorers.scorers_page, name="scorers"),
    path("scorers/train/", scorers.scorer_train_view, name="scorer-train"),
    path("scorers/<int:pk>/model.json", scorers.scorer_model_download, name="scorer-model"),
    # the corpus admin's pages
    path("corpora/", corpora.corpus_list, name="corpus-list"),
    path("corpora/import/", corpora.corpus_import_view, name="corpus-import"),
    path("corpora/<id:corpus_id>/", corpus_overview.corpus_detail, name="corpus-detail"),
    path("corpora/<id:corpus_id>/stats/", corpora.corpus_stats_view, name="corpus-stats"),
    path("corpora/<id:corpus_id>/archive/", corpora.corpus_archive_view, name="corpus-archive"),
    path("corpora/<id:corpus_id>/restore/", corpora.corpus_restore_view, name="corpus-restore"),
    path("corpora/<id:corpus_id>/delete/", corpora.corpus_delete_view, name="corpus-delete"),
    path("corpora/<id:corpus_id>/pairs/", pairs.corpus_pairs, name="corpus-pairs"),
    *corpus_tabs,
    path("jobs/", jobs.job_list, name="job-list"),
    path("jobs/<id:job_id>/cancel/", jobs.job_cancel_view, name="job-cancel-page"),
    path("users/", users.user_list, name="user-list"),
    path("users/create/", users.user_create_view, name="user-create"),
    path("users/<id:user_id>/roles/", users.user_roles_view, name="user-roles"),
    path("users/<id:user_id>/active/", users.user_active_view, name="user-active"),
    path("users/<id:user_id>/link/", users.user_link_view, name="user-link"),
]
