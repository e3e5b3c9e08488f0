"""The Redis broker's transport: kombu's own with one change (:class:`RedisTransport`),
registered under kombu's names for it (``redis://``, ``rediss://``) by :mod:`config.celery`.

When Redis goes away under a worker that holds unacknowledged messages (a running job: tasks
are acknowledged late), Celery closes the broken connection twice: its ``collect()`` first,
which may stop at the channel's pending ``BRPOP`` read and leave the channel open but detach
the transport from its connection, then ``close()``. That second close tries to put the
channel's unacknowledged messages back in their queue through a new connection pool built from
the detached connection's settings, and kombu raises ``AttributeError: 'NoneType' object has
no attribute 'hostname'``, which no one catches: the worker logs "Unrecoverable error", lets its
running jobs finish and exits for good (seen on two of three Redis restarts under a running
prefill; celery 5.7, kombu 5.7). Jobs sent afterwards wait for a worker that is not coming.

The same detached channel fails the same way when the running job ends and its message is
acknowledged through it (``'NoneType' object has no attribute 'client'``). Here a channel
whose transport has lost its connection reaches Redis with the settings it was opened with:
the message is acknowledged, or put back in its queue, once Redis answers again (while Redis
is still away the error is a connection error, which kombu and Celery expect and log), and the
worker reconnects instead of exiting.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis


class RedisChannel(kombu_redis.Channel):
    """kombu's Redis channel that remembers how it reached Redis."""

    #: The connection settings of each kind (synchronous or not) the channel has made.
    _opened_with: dict[bool, dict[str, Any]] | None = None

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        transport = self.connection
        if transport is None or transport.client is None:  # detached: a lost connection
            known = self._opened_with or {}
            return dict(known.get(asynchronous) or known[False])
        params: dict[str, Any] = super()._connparams(  # type: ignore[no-untyped-call]
            asynchronous=asynchronous
        )
        if self._opened_with is None:
            self._opened_with = {}
        self._opened_with[asynchronous] = dict(params)
        return params


class RedisTransport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`RedisChannel`."""

    Channel = RedisChannel
