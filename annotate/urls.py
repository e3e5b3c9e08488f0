"""API routes (``/api/...``); one APIView per operation, in ``annotate/apis/`` by resource."""

from django.urls import path

import annotate.converters  # noqa: F401 - registers the <id:...> converter
from annotate.apis import (
    adjudication,
    agreement,
    aligners,
    annotations,
    assignments,
    corpora,
    guidelines,
    jobs,
    me,
    scorers,
    users,
)

app_name = "api"
urlpatterns = [
    path("me/", me.MeApi.as_view(), name="me"),
    path("queue/", me.QueueApi.as_view(), name="queue"),
    path(
        "assignments/<id:assignment_id>/open/",
        annotations.AssignmentOpenApi.as_view(),
        name="assignment-open",
    ),
    path(
        "assignments/<id:assignment_id>/annotation/",
        annotations.AnnotationSaveApi.as_view(),
        name="annotation-save",
    ),
    path(
        "assignments/<id:assignment_id>/submit/",
        annotations.AnnotationSubmitApi.as_view(),
        name="annotation-submit",
    ),
    path(
        "assignments/<id:assignment_id>/reopen/",
        annotations.AnnotationReopenApi.as_view(),
        name="annotation-reopen",
    ),
    path(
        "assignments/<id:assignment_id>/heartbeat/",
        annotations.HeartbeatApi.as_view(),
        name="assignment-heartbeat",
    ),
    path(
        "assignments/<id:assignment_id>/feedback/",
        annotations.TrialFeedbackApi.as_view(),
        name="trial-feedback",
    ),
    path(
        "assignments/<id:assignment_id>/reassign/",
        assignments.AssignmentReassignApi.as_view(),
        name="assignment-reassign",
    ),
    path(
        "assignments/release-abandoned/",
        assignments.AssignmentsReleaseApi.as_view(),
        name="assignments-release",
    ),
    path("corpora/", corpora.CorpusListApi.as_view(), name="corpus-list"),
    path("corpora/create/", corpora.CorpusCreateApi.as_view(), name="corpus-create"),
    path("corpora/import/", corpora.CorpusImportApi.as_view(), name="corpus-import"),
    path("corpora/<id:corpus_id>/", corpora.CorpusDetailApi.as_view(), name="corpus-detail"),
    path("corpora/<id:corpus_id>/pairs/", corpora.CorpusPairsApi.as_view(), name="corpus-pairs"),
    path(
        "corpora/<id:corpus_id>/archive/",
        corpora.CorpusArchiveApi.as_view(),
        name="corpus-archive",
    ),
    path(
        "corpora/<id:corpus_id>/restore/",
        corpora.CorpusRestoreApi.as_view(),
        name="corpus-restore",
    ),
    path("corpora/<id:corpus_id>/delete/", corpora.CorpusDeleteApi.as_view(), name="corpus-delete"),
    path(
        "corpora/<id:corpus_id>/agreement/",
        agreement.AgreementReportJobApi.as_view(),
        name="corpus-agreement",
    ),
    path(
        "corpora/<id:corpus_id>/assignments/",
        assignments.AssignmentsPlanApi.as_view(),
        name="assignments-plan",
    ),
    path(
        "corpora/<id:corpus_id>/assignments/progress/",
        assignments.AssignmentsProgressApi.as_view(),
        name="assignments-progress",
    ),
    path(
        "corpora/<id:corpus_id>/assignments/hand-over/",
        assignments.AssignmentsHandOverApi.as_view(),
        name="assignments-hand-over",
    ),
    path("corpora/<id:corpus_id>/export/", corpora.CorpusExportApi.as_view(), name="corpus-export"),
    path("corpora/<id:corpus_id>/stats/", corpora.CorpusStatsJobApi.as_view(), name="corpus-stats"),
    path(
        "corpora/<id:corpus_id>/prefill/",
        corpora.CorpusPrefillJobApi.as_view(),
        name="corpus-prefill",
    ),
    path(
        "corpora/<id:corpus_id>/queue-order/",
        corpora.CorpusQueueOrderApi.as_view(),
        name="corpus-queue-order",
    ),
    path("aligners/", aligners.AlignerListApi.as_view(), name="aligner-list"),
    path("jobs/", jobs.JobListApi.as_view(), name="job-list"),
    path("scorers/", scorers.ScorerListApi.as_view(), name="scorer-list"),
    path("scorers/train/", scorers.ScorerTrainJobApi.as_view(), name="scorer-train"),
    path(
        "scorers/<id:model_id>/model/",
        scorers.ScorerModelDownloadApi.as_view(),
        name="scorer-model-download",
    ),
    path("score", scorers.ScoreApi.as_view(), name="score"),
    path("score/jobs/", scorers.ScoreJobApi.as_view(), name="score-jobs"),
    path("jobs/<id:job_id>/", jobs.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<id:job_id>/cancel/", jobs.JobCancelApi.as_view(), name="job-cancel"),
    path("jobs/<id:job_id>/result/", jobs.JobResultApi.as_view(), name="job-result"),
    path("jobs/<id:job_id>/download/", jobs.JobDownloadApi.as_view(), name="job-download"),
    path("adjudication/", adjudication.AdjudicationListApi.as_view(), name="adjudication-list"),
    path(
        "adjudication/next/",
        adjudication.AdjudicationNextApi.as_view(),
        name="adjudication-next",
    ),
    path(
        "adjudication/accept-agreed/",
        adjudication.AdjudicationAcceptAgreedApi.as_view(),
        name="adjudication-accept-agreed",
    ),
    path(
        "adjudication/accept-agreed/<id:job_id>/undo/",
        adjudication.AdjudicationAcceptUndoApi.as_view(),
        name="adjudication-accept-undo",
    ),
    path(
        "pairs/<id:pair_id>/adjudication/",
        adjudication.AdjudicationDetailApi.as_view(),
        name="adjudication-detail",
    ),
    path("pairs/<id:pair_id>/gold/", adjudication.GoldSaveApi.as_view(), name="gold-save"),
    path("pairs/<id:pair_id>/gold/clear/", adjudication.GoldClearApi.as_view(), name="gold-clear"),
    path(
        "pairs/<id:pair_id>/gold/events/",
        adjudication.GoldHistoryApi.as_view(),
        name="gold-history",
    ),
    path("guidelines/", guidelines.GuidelinesApi.as_view(), name="guidelines"),
    path("users/", users.UserListApi.as_view(), name="user-list"),
    path("users/create/", users.UserCreateApi.as_view(), name="user-create"),
    path("users/<id:user_id>/", users.UserUpdateApi.as_view(), name="user-update"),
    path(
        "users/<id:user_id>/password-link/",
        users.UserPasswordLinkApi.as_view(),
        name="user-password-link",
    ),
]
