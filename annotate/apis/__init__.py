"""The HTTP API, one module per resource; every view is one operation (``*Api``).

Body of every view: validate input → call a service or selector → serialise. Domain errors
(:mod:`annotate.exceptions`) become HTTP statuses in the single exception handler; roles are
checked by the permission classes of :mod:`annotate.permissions`.
"""
