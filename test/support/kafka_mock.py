#!/usr/bin/env python3
"""Starts librdkafka's in-memory mock Kafka cluster and keeps it alive for the tests.

librdkafka prints `Mock cluster enabled: original bootstrap.servers and security.protocol
ignored and replaced with 127.0.0.1:PORT` through the client logger; we route that logger to
stdout so the parent (test/support/kafka-mock.ts) can parse the broker address.

The process exits when its stdin closes (the parent closed the pipe or died) or when its
parent process changes (re-parented after the parent died), so no orphan stays behind.
"""
import logging
import os
import sys
import threading
import time

try:
    from confluent_kafka import Producer
except Exception as e:  # pragma: no cover - reported to the parent
    print("KAFKA_MOCK_ERROR cannot import confluent_kafka: %s" % (e,), flush=True)
    sys.exit(3)

stop = threading.Event()


def watch_stdin():
    try:
        while True:
            chunk = sys.stdin.buffer.read1(4096) if hasattr(sys.stdin.buffer, "read1") else sys.stdin.buffer.read(1)
            if not chunk:
                break
    except Exception:
        pass
    stop.set()


def main():
    parent = os.getppid()
    logger = logging.getLogger("kafka_mock")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

    brokers = int(os.environ.get("KAFKA_MOCK_BROKERS", "1"))
    producer = Producer(
        {"test.mock.num.brokers": brokers, "bootstrap.servers": "unused:9092"},
        logger=logger,
    )
    threading.Thread(target=watch_stdin, daemon=True).start()
    while not stop.is_set():
        producer.poll(0.1)
        sys.stdout.flush()
        if os.getppid() != parent:
            break
    # No flush: the mock holds nothing worth keeping.
    os._exit(0)


if __name__ == "__main__":
    main()
