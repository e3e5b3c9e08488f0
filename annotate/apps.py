from django.apps import AppConfig


class AnnotateConfig(AppConfig):
    name = "annotate"
    verbose_name = "Annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings
        from django.contrib.auth.signals import user_logged_in
        from django.db.models.signals import post_save, pre_save

        import annotate.checks
        import annotate.tasks  # noqa: F401 - hands the queue the tasks it sends
        from annotate import signals

        user_model = settings.AUTH_USER_MODEL
        pre_save.connect(signals.credentials_compare, sender=user_model, dispatch_uid="creds")
        post_save.connect(signals.credentials_revoke, sender=user_model, dispatch_uid="creds")
        user_logged_in.connect(signals.session_started, dispatch_uid="session_started")
