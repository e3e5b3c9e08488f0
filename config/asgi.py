import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()

# Each web process loads what scoring pairs needs in a background thread, from its first request
# on, before a request asks for it.
from annotate.services.scorers import scorers_preload_on_requests  # noqa: E402

scorers_preload_on_requests()
