"""API routes (``/api/...``); one APIView per operation, see annotate/apis.py."""

from django.urls import path

from annotate import apis

app_name = "api"
urlpatterns = [
    path("me/", apis.MeApi.as_view(), name="me"),
    path("queue/", apis.QueueApi.as_view(), name="queue"),
    path(
        "assignments/<int:assignment_id>/open/",
        apis.AssignmentOpenApi.as_view(),
        name="assignment-open",
    ),
    path(
        "assignments/<int:assignment_id>/annotation/",
        apis.AnnotationSaveApi.as_view(),
        name="annotation-save",
    ),
    path(
        "assignments/<int:assignment_id>/submit/",
        apis.AnnotationSubmitApi.as_view(),
        name="annotation-submit",
    ),
    path(
        "assignments/<int:assignment_id>/reopen/",
        apis.AnnotationReopenApi.as_view(),
        name="annotation-reopen",
    ),
    path(
        "assignments/<int:assignment_id>/heartbeat/",
        apis.HeartbeatApi.as_view(),
        name="assignment-heartbeat",
    ),
    path(
        "assignments/<int:assignment_id>/feedback/",
        apis.TrialFeedbackApi.as_view(),
        name="trial-feedback",
    ),
    path(
        "assignments/<int:assignment_id>/reassign/",
        apis.AssignmentReassignApi.as_view(),
        name="assignment-reassign",
    ),
    path(
        "assignments/release-abandoned/",
        apis.AssignmentsReleaseApi.as_view(),
        name="assignments-release",
    ),
    path("corpora/", apis.CorpusListApi.as_view(), name="corpus-list"),
    path(
        "corpora/<int:corpus_id>/assignments/",
        apis.AssignmentsPlanApi.as_view(),
        name="assignments-plan",
    ),
    path("corpora/<int:corpus_id>/stats/", apis.CorpusStatsJobApi.as_view(), name="corpus-stats"),
    path(
        "corpora/<int:corpus_id>/prefill/",
        apis.CorpusPrefillJobApi.as_view(),
        name="corpus-prefill",
    ),
    path("jobs/", apis.JobListApi.as_view(), name="job-list"),
    path("scorers/", apis.ScorerListApi.as_view(), name="scorer-list"),
    path("scorers/train/", apis.ScorerTrainJobApi.as_view(), name="scorer-train"),
    path("score", apis.ScoreApi.as_view(), name="score"),
    path("jobs/<int:job_id>/", apis.JobDetailApi.as_view(), name="job-detail"),
    path("adjudication/", apis.AdjudicationListApi.as_view(), name="adjudication-list"),
    path(
        "pairs/<int:pair_id>/adjudication/",
        apis.AdjudicationDetailApi.as_view(),
        name="adjudication-detail",
    ),
    path("pairs/<int:pair_id>/gold/", apis.GoldSaveApi.as_view(), name="gold-save"),
    path("guidelines/", apis.GuidelinesApi.as_view(), name="guidelines"),
]
