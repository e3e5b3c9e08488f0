from django.apps import AppConfig


class AnnotateConfig(AppConfig):
    name = "annotate"
    verbose_name = "Annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings
        from django.contrib.auth.signals import user_logged_in
        from django.db.models.signals import post_save, pre_save

        import annotate.checks  # noqa: F401 - registers the system checks
        from annotate import signals

        # Each kind of job is a Celery task defined with its service: importing them registers
        # every kind (annotate.jobs_runtime) in web and worker processes alike.
        from annotate.services import (  # noqa: F401
            adjudication_bulk,
            agreement,
            assignments,
            corpora,
            exports,
            prefill,
            scorers,
            stats,
            uploads,
        )

        user_model = settings.AUTH_USER_MODEL
        pre_save.connect(signals.credentials_compare, sender=user_model, dispatch_uid="creds")
        post_save.connect(signals.credentials_revoke, sender=user_model, dispatch_uid="creds")
        user_logged_in.connect(signals.session_started, dispatch_uid="session_started")
