"""What users read of a job's unexpected file system error."""

from __future__ import annotations

import errno

from annotate.jobs_runtime import internal_error_message


def test_a_file_the_job_may_not_read_is_not_called_a_job_file_it_may_not_write() -> None:
    """A job that crashes reading a resource it may not read (a PPDB table, the encoder's
    weights under DATA_DIR) is told nothing about writing job files under EXPORT_DIR."""
    error = PermissionError(errno.EACCES, "Permission denied", "/srv/data/ppdb-lexical.txt")
    message = internal_error_message(error)
    assert "ppdb-lexical.txt" in message
    assert "write" not in message and "EXPORT_DIR" not in message
