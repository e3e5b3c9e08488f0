import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Each web process loads what scoring pairs needs in a background thread, from its first request
# on, before a request asks for it.
from django.core.signals import request_started  # noqa: E402

from annotate.services.scorers import scorers_preload_in_this_process  # noqa: E402


def _preload_scorers(**kwargs: object) -> None:
    scorers_preload_in_this_process()


request_started.connect(_preload_scorers, dispatch_uid="preload-scorers")
