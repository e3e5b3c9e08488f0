from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

# Swagger UI loads its set-up script from the same URL (``?script``) rather than inline, and
# draws its icons from data: URLs in its style sheet.
api_docs = SpectacularSwaggerSplitView.as_view(
    url_name="schema", template_name="frontend/swagger_ui.html"
)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", csp_update({"img-src": ["data:"]})(api_docs), name="api-docs"),
    path("api/", include("annotate.urls")),
    path("", include("frontend.urls")),
]

handler400 = "config.error_views.bad_request"
handler404 = "config.error_views.page_not_found"
handler500 = "config.error_views.server_error"
