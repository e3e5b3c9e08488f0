"""The Redis broker's transport (config/redis_broker.py) on a real Redis."""

from __future__ import annotations

import os

import pytest
from kombu import Connection, Exchange, Producer, Queue

import config.celery  # noqa: F401  # registers the transport under redis://
from config.redis_broker import RedisTransport

pytestmark = pytest.mark.integration

BROKER = os.environ.get("CELERY_BROKER_URL", "")


@pytest.mark.skipif(not BROKER.startswith("redis://"), reason="needs CELERY_BROKER_URL=redis://")
def test_a_channel_detached_from_its_connection_still_acks_and_requeues_its_messages() -> None:
    """What Celery does when Redis goes away under a running job (acknowledged late): its
    ``collect()`` detaches the transport from the connection but may leave the channel open,
    then ``close()`` closes the channel, putting its unacknowledged messages back; the running
    job, ending after Redis is back, acknowledges its message through that channel. kombu's
    own channel raised AttributeError at both ('NoneType' object has no attribute 'hostname',
    'client'), and the worker exited for good."""
    connection = Connection(BROKER)
    assert isinstance(connection.transport, RedisTransport)
    channel = connection.channel()
    name = "redis-broker-test"
    queue = Queue(name, Exchange(name), name)
    producer = Producer(channel)
    for job in (1, 2):
        producer.publish({"job": job}, exchange=queue.exchange, routing_key=name, declare=[queue])
    done, running = queue(channel).get(no_ack=False), queue(channel).get(no_ack=False)
    assert done is not None and running is not None and len(channel.qos._delivered) == 2
    try:
        channel._disconnect_pools()
        connection.transport.client = None  # what Connection._do_close_transport does

        done.ack()  # raised AttributeError with kombu's channel
        channel.close()  # puts `running` back in its queue; raised AttributeError too

        with Connection(BROKER) as again:
            redis = again.default_channel.client
            assert not redis.hexists(again.default_channel.unacked_key, done.delivery_tag)
            back = queue(again.default_channel).get(no_ack=True)
            assert back is not None and back.payload == {"job": 2}
    finally:
        with Connection(BROKER) as again:
            queue(again.default_channel).delete()
