"""Schema of the annotation workbench.

Invariants live in the database, not in ``save()``:

- a pair's token lists are non-empty and their lengths are stored beside them (``n_source``,
  ``n_target``) so link bounds can be checked in SQL;
- every alignment is stored as one row per link of ``P`` with a ``sure`` flag, so ``S ⊆ P``
  holds by construction; rows have non-negative indices, are unique per alignment, and a trigger
  (migration ``0002``) rejects an index beyond the pair's token count;
- one assignment per (pair, annotator), one annotation per assignment, one gold alignment per
  pair; the annotation and gold event logs are append-only (triggers reject UPDATE).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Concat, Upper

from scoring.aligners.base import aligner_class, available_aligners


def validate_learning_aligner(name: str) -> None:
    """An aligner name from the registry whose training uses finished annotations."""
    if not name:
        return
    if name not in available_aligners():
        raise ValidationError(
            f"unknown aligner {name!r}; available: {', '.join(available_aligners())}"
        )
    if not aligner_class(name).uses_gold:
        learning = [a for a in available_aligners() if aligner_class(a).uses_gold]
        raise ValidationError(
            f"the {name!r} aligner does not learn from annotations, so retraining it as they "
            f"accumulate changes nothing; aligners that do: {', '.join(learning)}"
        )


#: The split whose pairs with a gold alignment train annotators (feedback after submitting).
TRIAL_SPLIT = "trial"


class CorpusManager(models.Manager["Corpus"]):
    """The corpora people see: never one an import is still writing."""

    def get_queryset(self) -> models.QuerySet[Corpus]:
        return super().get_queryset().filter(importing=False)


class Corpus(models.Model):
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    stats = models.JSONField(default=dict, blank=True, help_text="Last computed statistics.")
    prefill_aligner = models.CharField(
        max_length=50,
        blank=True,
        validators=[validate_learning_aligner],
        help_text=(
            "An aligner that learns from finished work (e.g. supervised): it is retrained and "
            "re-prefills the pairs nobody has started each time enough new pairs are finished. "
            "Empty: no automatic retraining."
        ),
    )
    prefill_retrain_every = models.PositiveIntegerField(
        default=25,
        validators=[MinValueValidator(1)],
        help_text="Newly finished pairs (submitted or adjudicated) that trigger a retraining.",
    )
    prefill_options = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            "Options of the prefill aligner used by automatic retraining, e.g. "
            '{"fine_tune_epochs": 5}; set with the prefill command or API, which check them. '
            "Empty: the aligner's defaults."
        ),
    )

    class QueueOrder(models.TextChoices):
        POSITION = "position", "corpus order"
        LEAST_SURE = "least_sure", "least sure prefill first"

    queue_order = models.CharField(
        max_length=20,
        choices=QueueOrder.choices,
        default=QueueOrder.POSITION,
        help_text=(
            "Which of an annotator's planned pairs of this corpus opens next: the next in corpus "
            "order, or the one whose prefill is least sure (most expected corrections), so that "
            "a retrained prefill aligner learns first where it is weakest."
        ),
    )
    archived_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=(
            "Set while the corpus is archived: it keeps every pair and all work, but is left "
            "out of annotators' queues, the adjudication list, prefill retraining and the "
            "corpus lists (except their archived filter) until it is restored."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    importing = models.BooleanField(
        default=False,
        help_text=(
            "An import's staging corpus: it writes its pairs here a batch per transaction, "
            "hidden from every page and query (and archived, so out of queues), and hands them "
            "to their corpus in one short transaction at the end; its archived_at is the time "
            "of its last batch."
        ),
    )

    #: every corpus, staging ones included (their import and its clean-up)
    all_objects = models.Manager()
    objects = CorpusManager()

    class Meta:
        verbose_name_plural = "corpora"
        ordering = ["name"]
        base_manager_name = "all_objects"
        default_manager_name = "objects"
        constraints = [
            models.CheckConstraint(
                condition=Q(prefill_retrain_every__gte=1), name="corpus_retrain_every_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class PairManager(models.Manager["SentencePair"]):
    """Pairs without their ``search_text``, which only the searches' conditions read: it would
    add a third to every row a whole-corpus read (an export, a prefill) carries."""

    def get_queryset(self) -> models.QuerySet[SentencePair]:
        return super().get_queryset().defer("search_text")


class SentencePair(models.Model):
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="pairs")
    external_id = models.CharField(max_length=200)
    subcorpus = models.CharField(max_length=100, blank=True, db_index=True)
    split = models.CharField(max_length=50, blank=True, db_index=True)
    source_text = models.TextField(blank=True)
    target_text = models.TextField(blank=True)
    source_tokens = models.JSONField()
    target_tokens = models.JSONField()
    n_source = models.PositiveIntegerField()
    n_target = models.PositiveIntegerField()
    gold_score = models.FloatField(null=True, blank=True)
    gold_label = models.SmallIntegerField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    position = models.PositiveIntegerField(help_text="Order of the pair in its corpus.")
    # What the searches match: the id and both texts, one per line, upper-cased by the
    # database's UPPER, as an ``icontains`` on each column compared them. Computed by the
    # database on every insert and update (whatever the write path), so it cannot go stale;
    # upper-cased once at write time instead of on every row of every search (a common word
    # in 80,000 pairs: 4-5x faster). See `annotate.selectors.pair_search`.
    search_text = models.GeneratedField(
        expression=Upper(
            Concat(
                "external_id",
                Value("\n"),
                "source_text",
                Value("\n"),
                "target_text",
                output_field=models.TextField(),
            )
        ),
        output_field=models.TextField(),
        db_persist=True,
    )

    objects = PairManager()

    class Meta:
        ordering = ["corpus", "position"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "external_id"], name="pair_unique_id"),
            models.UniqueConstraint(fields=["corpus", "position"], name="pair_unique_position"),
            models.CheckConstraint(
                condition=Q(n_source__gte=1) & Q(n_target__gte=1), name="pair_nonempty"
            ),
        ]
        # Covers the corpus page's figures and the pair list's filters and length sort, so
        # they read the index, not the wide rows with their token lists; and, with the id,
        # a corpus's pairs joined to their assignments, prefills or gold (PostgreSQL's index
        # entries hold no id of their own: without it each join read every pair's row).
        # On PostgreSQL the searches' trigram index on `search_text` is made by the migration
        # `pair_search_text`, outside this state (SQLite, rebuilding the table from it, could
        # not make it).
        # `pair_by_corpus` lists a corpus's pairs in id order with what the Assignments tab and
        # the corpus page read of them: the order of the assignments', prefills' and golds'
        # pair indexes, so PostgreSQL can merge the pairs with those instead of hashing every
        # assignment, and reads a narrower index than `pair_figures` when it does hash.
        # `pair_by_position` gives a page of the pair list in corpus order, however deep, its
        # ids from the index alone (the unique `(corpus, position)` holds no id).
        indexes = [
            models.Index(
                fields=["corpus", "subcorpus", "split", "n_source", "n_target", "position", "id"],
                name="pair_figures",
            ),
            models.Index(
                fields=["corpus", "id", "subcorpus", "n_source", "n_target"],
                name="pair_by_corpus",
            ),
            models.Index(fields=["corpus", "position", "id"], name="pair_by_position"),
        ]

    def __str__(self) -> str:
        return f"{self.corpus.name}:{self.external_id}"

    @property
    def is_trial(self) -> bool:
        """A training pair: in the trial split and with a gold alignment to give feedback."""
        return self.split == TRIAL_SPLIT and GoldAlignment.objects.filter(pair=self).exists()


class PairDisagreement(models.Model):
    """How far the submitted annotations of a pair disagree: the lowest link F1 between two of
    them. A pair has a row exactly when two or more of its annotations are submitted (it is
    then ready for adjudication). Kept by every write that changes a pair's submitted
    annotations (submit, reopen, import).

    The adjudication list filters and sorts 100,000 of them per request, so each row also
    holds its pair's corpus, position, sub-corpus and split (set at import, never changed), who
    submitted, and the source of its gold (kept by the gold's writes): the list then reads this
    small table and its indexes, not the wide pair rows and the assignments."""

    pair = models.OneToOneField(
        SentencePair, on_delete=models.CASCADE, primary_key=True, related_name="disagreement"
    )
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="+", db_index=False)
    position = models.PositiveIntegerField()
    subcorpus = models.CharField(max_length=100, blank=True)
    split = models.CharField(max_length=50, blank=True)
    gold_source = models.CharField(
        max_length=50,
        blank=True,
        help_text="Where the pair's gold alignment came from (GoldAlignment.source; empty "
        "without one): kept by the gold's writes, read by the list's status filter.",
    )
    submitted = models.PositiveSmallIntegerField(help_text="Submitted annotations of the pair.")
    annotators = models.TextField(
        help_text="The ids of the users who submitted them, each between spaces (' 3 17 42 '): "
        "the list's annotator filter matches ' 17 ' in this row instead of looking up the "
        "assignments of every pair."
    )
    lowest_f1 = models.FloatField(
        help_text="The lowest link F1 (P against P) between two submitted annotations."
    )
    unanimous = models.BooleanField(
        default=False,
        help_text="Every submitted annotation is the same alignment (links and sure/possible "
        "alike): its majority has no tie, and a bulk accept may take it as the gold.",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(submitted__gte=2), name="disagreement_pairs"),
            models.CheckConstraint(
                condition=Q(lowest_f1__gte=0.0) & Q(lowest_f1__lte=1.0), name="disagreement_f1"
            ),
        ]
        # Both orders of the list, over every corpus or within one.
        indexes = [
            models.Index(fields=["lowest_f1", "corpus", "position"], name="disagreement_order"),
            models.Index(fields=["corpus", "lowest_f1", "position"], name="disagreement_corpus_f1"),
            models.Index(fields=["corpus", "position"], name="disagreement_corpus_order"),
        ]

    def __str__(self) -> str:
        return (
            f"disagreement of {self.pair_id}: {self.submitted} annotations, F1 ≥ {self.lowest_f1}"
        )


class LinkBase(models.Model):
    """One link of ``P``: source index ``i``, target index ``j``, sure or merely possible."""

    i = models.PositiveIntegerField()
    j = models.PositiveIntegerField()
    sure = models.BooleanField()

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.i}{'-' if self.sure else '?'}{self.j}"


class AutoAlignment(models.Model):
    """The automatic prefill of a pair by one aligner run; the newest one is shown."""

    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="prefills")
    aligner = models.CharField(max_length=100)
    aligner_version = models.CharField(max_length=100, blank=True)
    expected_corrections = models.FloatField(
        null=True,
        blank=True,
        help_text="How unsure the prefill is: the cells an annotator is expected to change.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pair", "-created_at", "-id"]
        get_latest_by = "created_at"

    def __str__(self) -> str:
        return f"{self.aligner} prefill of {self.pair_id}"


class AutoLink(LinkBase):
    alignment = models.ForeignKey(AutoAlignment, on_delete=models.CASCADE, related_name="links")
    confidence = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["alignment", "i", "j"], name="autolink_unique"),
            models.CheckConstraint(
                condition=Q(confidence__isnull=True)
                | (Q(confidence__gte=0.0) & Q(confidence__lte=1.0)),
                name="autolink_confidence_range",
            ),
        ]


class Assignment(models.Model):
    class Status(models.TextChoices):
        NEW = "new", "New"
        IN_PROGRESS = "in_progress", "In progress"
        SUBMITTED = "submitted", "Submitted"

    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="assignments",
        db_index=False,  # `assignment_by_annotator` leads with it
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.NEW)
    assigned_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    last_activity_at = models.DateTimeField(null=True, blank=True)
    active_seconds = models.FloatField(default=0.0)

    class Meta:
        ordering = ["annotator", "pair__corpus", "pair__position"]
        constraints = [
            models.UniqueConstraint(fields=["pair", "annotator"], name="assignment_unique"),
            models.CheckConstraint(condition=Q(active_seconds__gte=0), name="assignment_time"),
        ]
        # The Assignments tab counts a corpus's assignments by pair, status and annotator: read
        # from this index, not from the rows, and the submitted ones found by (pair, status).
        # Not active_seconds, which every heartbeat writes: an indexed column would cost each
        # of those writes an index update (and, on PostgreSQL, its heap-only update).
        # `assignment_by_annotator` finds an annotator's assignments, and whether the annotator
        # has one among a range of pair ids (a corpus's: the pair list's annotator names).
        indexes = [
            models.Index(fields=["pair", "status", "annotator"], name="assignment_progress"),
            models.Index(fields=["annotator", "pair"], name="assignment_by_annotator"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.pair_id} ({self.status})"


class Annotation(models.Model):
    """An annotator's current alignment of a pair; every change bumps ``version``."""

    assignment = models.OneToOneField(
        Assignment, on_delete=models.CASCADE, related_name="annotation"
    )
    version = models.PositiveIntegerField(default=1)
    flags = models.JSONField(default=list, blank=True)
    rating = models.FloatField(null=True, blank=True, help_text="Optional 0–5 similarity.")
    comment = models.TextField(blank=True)
    link_count = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Links in the alignment (kept by every write of the links).",
    )
    prefill_edits = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Cells of the pair's N×M grid whose P state differs from its newest prefill "
        "(kept by every write of the links); empty without a prefill.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(rating__isnull=True) | (Q(rating__gte=0.0) & Q(rating__lte=5.0)),
                name="annotation_rating_range",
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="annotation_version"),
        ]

    def __str__(self) -> str:
        return f"annotation v{self.version} of {self.assignment}"


class AnnotationLink(LinkBase):
    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="links")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["annotation", "i", "j"], name="annotationlink_unique"),
        ]


class AnnotationEvent(models.Model):
    """Append-only log of every change to an annotation (a trigger forbids UPDATE).

    Rows disappear only with their annotation (deleting a whole corpus)."""

    class Kind(models.TextChoices):
        CREATED = "created", "Created"
        EDITED = "edited", "Edited"
        SUBMITTED = "submitted", "Submitted"
        REOPENED = "reopened", "Reopened"
        IMPORTED = "imported", "Imported"

    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="events")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=Kind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    added = models.JSONField(default=list, help_text="[[i, j, 'S'|'P'], ...] set by this change")
    removed = models.JSONField(default=list, help_text="[[i, j], ...] cleared by this change")
    payload = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["annotation", "version", "id"]
        constraints = [
            models.UniqueConstraint(fields=["annotation", "version"], name="event_unique_version"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} v{self.version} of annotation {self.annotation_id}"


class GoldAlignment(models.Model):
    """The adjudicated (or imported) reference alignment of a pair; every change bumps
    ``version`` and appends a :class:`GoldEvent`.

    A pair sent back to "waiting for adjudication" has no row (its history stays, in the
    pair's events): every reader takes "no row" for "no gold". A later save makes a new row
    whose version follows the pair's last event, so a version is never used twice."""

    pair = models.OneToOneField(SentencePair, on_delete=models.CASCADE, related_name="gold")
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    source = models.CharField(max_length=50, default="adjudicated")
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(version__gte=1), name="gold_version"),
        ]

    def __str__(self) -> str:
        return f"gold alignment v{self.version} of {self.pair_id}"


class GoldLink(LinkBase):
    gold = models.ForeignKey(GoldAlignment, on_delete=models.CASCADE, related_name="links")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["gold", "i", "j"], name="goldlink_unique"),
        ]


class GoldEvent(models.Model):
    """Append-only log of every change to a pair's gold alignment (a trigger forbids UPDATE):
    who made version ``version``, when, and the links it set and cleared. ``cleared``: the
    gold was removed and the pair waits for adjudication again (its links are in ``removed``).

    The log belongs to the pair, not to its current gold alignment, so it outlives a clear;
    rows disappear only with their pair (deleting the pair or its corpus)."""

    class Kind(models.TextChoices):
        IMPORTED = "imported", "Imported"
        ADJUDICATED = "adjudicated", "Adjudicated"
        CLEARED = "cleared", "Cleared"

    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="gold_events")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=Kind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    job_id = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The job that made this change for ``actor`` (a bulk accept), if one did: a "
        "number, not a key, so that deleting old jobs never rewrites this append-only log.",
    )
    added = models.JSONField(default=list, help_text="[[i, j, 'S'|'P'], ...] set by this change")
    removed = models.JSONField(default=list, help_text="[[i, j], ...] cleared by this change")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pair", "version", "id"]
        constraints = [
            models.UniqueConstraint(fields=["pair", "version"], name="goldevent_unique_version"),
            models.CheckConstraint(condition=Q(version__gte=1), name="goldevent_version"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} v{self.version} of the gold of pair {self.pair_id}"


class Job(models.Model):
    """A background computation run by a Celery worker."""

    #: Set by ``job_create``: ``True`` when an identical queued or running job was returned.
    reused: bool = False

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    kind = models.CharField(max_length=50, db_index=True)
    parameters = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    progress = models.PositiveSmallIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    sent_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the job's message last went to the broker (pending jobs unclaimed long "
        "after it are sent again).",
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    snapshot = models.JSONField(
        null=True,
        blank=True,
        help_text="The input frozen when the job started (an agreement report's annotations, "
        "as JSONL lines), so every chunk of the job reads the same data.",
    )
    snapshot_at = models.DateTimeField(null=True, blank=True)
    deferred = models.BooleanField(
        default=False,
        help_text="The runner handed the job to a Celery canvas (an agreement report's chunks), "
        "whose tasks may wait in the queue behind other jobs with nothing beating meanwhile.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__lte=100), name="job_progress_range"),
            models.CheckConstraint(
                condition=Q(finished_at__isnull=True) | Q(finished_at__gte=F("created_at")),
                name="job_finished_after_created",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.SUCCEEDED, self.Status.FAILED, self.Status.CANCELLED}


class JobChunk(models.Model):
    """A task of a deferred job's canvas (an agreement report's chunk) computing now: written
    when it starts, removed when it ends however it ends, a process that dies with its pool
    process too (its message goes back to the queue). A row left behind is a task whose whole
    worker was killed (``kill -9`` of its main process, a machine lost): its message stays
    unacknowledged on the broker for hours, so the reaper fails its job instead of letting it
    wait for the task (``jobs_reap_stale``)."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="chunks_computing")
    #: The chunk within its job: the id of its first pair (chunks hold disjoint pairs).
    key = models.BigIntegerField()
    worker = models.CharField(max_length=255, blank=True)
    started_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "key"], name="jobchunk_unique")]

    def __str__(self) -> str:
        return f"chunk {self.key} of job {self.job_id} on {self.worker or '(unknown)'}"


class ScorerModel(models.Model):
    """A trained similarity scorer (TERp/PERP, pFSM/pPDA, MT-metric SVM) and its evaluation."""

    kind = models.CharField(max_length=30)
    name = models.CharField(max_length=200, unique=True)
    corpus = models.ForeignKey(Corpus, on_delete=models.SET_NULL, null=True, blank=True)
    training = models.JSONField(default=dict, help_text="Training data selection.")
    parameters = models.JSONField(default=dict, blank=True)
    weights = models.JSONField(default=dict, blank=True)
    evaluation = models.JSONField(default=dict, blank=True)
    job = models.ForeignKey(Job, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind}: {self.name}"


class LoginAttempts(models.Model):
    """Login tries of one account from one address, or of any account from one address, within
    the lockout window (see :mod:`annotate.services.logins`): failures, and tries whose
    password is being checked."""

    #: sha256 of the (normalised username, client address) pair, or of the address alone:
    #: fixed length, and no username or address an attacker made up is stored as it was typed.
    key = models.CharField(max_length=64, unique=True)
    #: sha256 of the normalised username (empty on an address's row): an account's rows, to
    #: lift its lockout from every address.
    account = models.CharField(max_length=64, blank=True, db_index=True)
    #: sha256 of the client address: an address's rows, to lift its lockout.
    address = models.CharField(max_length=64, blank=True, db_index=True)
    count = models.PositiveIntegerField(default=0)
    last_attempt_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name_plural = "login attempts"

    def __str__(self) -> str:
        return f"{self.key[:12]}…: {self.count} since {self.last_attempt_at:%Y-%m-%d %H:%M}"


class WorkerHeartbeat(models.Model):
    """A Celery worker's sign of life: written every few seconds by the worker's main process,
    removed when it stops cleanly. A worker killed outright leaves its row to go stale."""

    hostname = models.CharField(max_length=255, unique=True)
    pid = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField(db_index=True)
    #: The queues the worker takes jobs from, each between commas (",celery,quick,"), so that
    #: one is found with ``queues__contains=",quick,"``; empty when not known (every queue).
    queues = models.CharField(max_length=1000, blank=True, default="")
    #: The broker the worker takes its messages from (its ``CELERY_BROKER_URL``, password
    #: masked): a worker of another broker never gets this site's jobs. Empty when not known
    #: (taken as this site's).
    broker = models.CharField(max_length=1000, blank=True, default="")

    class Meta:
        ordering = ["-beat_at"]

    def __str__(self) -> str:
        return f"{self.hostname} (pid {self.pid}, last seen {self.beat_at:%Y-%m-%d %H:%M:%S})"
