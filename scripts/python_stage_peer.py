#!/usr/bin/env python3
"""A stage as a Python team would write it with confluent-kafka: the peer a worker is
measured against (issue 30, point 3; `intent-bench pipeline` runs it beside each worker).

For every record already on the input topic (all partitions, from the beginning to the
ends as they are at start): parse the CloudEvents JSON, check the envelope's required
attributes, verify the HMAC-SHA256 signature headers with the key the key id names,
decide nothing, derive an event (new id, this source, causation), encode it canonically
(sorted keys, no whitespace, raw UTF-8), sign it and produce it keyed by the user, with
an idempotent acks=all producer; then flush. No state, no replay guard, no chain, no view
signature, no commits: the least a stage does, so a worker that is slower than this peer
is slower than the simplest thing that could work.

    python_stage_peer.py --bootstrap-servers HOST:PORT --input TOPIC --output TOPIC \\
        --keys FILE [--keys FILE ...] [--source /peer/stage]

Key files hold `SOURCE [KEYID] HEXKEY` lines (docs/producers.md, section 3). The last line
is JSON: records, bad (refused records), seconds (first record read to last
acknowledgement), per_s, cpu_s (this process's user + system CPU over the same span),
cpu_s_per_1000.
"""

import argparse
import hashlib
import hmac
import json
import os
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

REQUIRED = ("specversion", "id", "source", "type", "time", "userid", "conversationid", "data")


def read_keys(paths):
    keys = {}
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                parts = line.split()
                if len(parts) < 2:
                    continue
                key = bytes.fromhex(parts[-1])
                key_id = parts[1] if len(parts) == 3 else hashlib.sha256(key).hexdigest()[:16]
                keys[key_id.encode()] = key
    return keys


def canonical(envelope):
    return json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--keys", action="append", required=True)
    parser.add_argument("--source", default="/peer/stage")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds without a record that end the run")
    options = parser.parse_args()
    keys = read_keys(options.keys)
    signing_key = next(iter(keys.values()))
    signing_id = hashlib.sha256(signing_key).hexdigest()[:16].encode()

    consumer = Consumer(
        {
            "bootstrap.servers": options.bootstrap_servers,
            "group.id": f"python-peer-{os.getpid()}",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 5,
        }
    )
    metadata = consumer.list_topics(options.input, timeout=30).topics[options.input]
    if metadata.error is not None:
        raise SystemExit(f"error: topic {options.input}: {metadata.error}")
    consumer.assign([TopicPartition(options.input, p, OFFSET_BEGINNING) for p in metadata.partitions])
    producer = Producer(
        {
            "bootstrap.servers": options.bootstrap_servers,
            "enable.idempotence": True,
            "acks": "all",
            "linger.ms": 0,
        }
    )
    failed = []
    acknowledged = [None]

    def delivered(error, _message):
        if error is not None:
            failed.append(error)
        else:
            acknowledged[0] = time.monotonic()

    read = bad = 0
    started = cpu_started = cpu_ended = None
    last_read = time.monotonic()
    # The records are all there before the peer starts: it is done when nothing more comes
    # for --idle seconds (not counted: its time ends at the last acknowledgement).
    while time.monotonic() - last_read < options.idle:
        # Block briefly for the first record, then take what is already fetched.
        first = consumer.poll(0.1)
        batch = [first] + consumer.consume(999, 0) if first is not None else []
        if batch:
            last_read = time.monotonic()
        if started is None and batch:
            started, cpu_started = time.monotonic(), sum(os.times()[:2])
        for message in batch:
            if message.error():
                continue
            read += 1
            try:
                value = message.value()
                headers = dict(message.headers() or [])
                key = keys[headers["intent-key-id"]]
                expected = hmac.new(key, value, hashlib.sha256).hexdigest().encode()
                if not hmac.compare_digest(expected, headers["intent-signature"]):
                    raise ValueError("bad signature")
                event = json.loads(value)
                if any(name not in event for name in REQUIRED) or event["specversion"] != "1.0":
                    raise ValueError("not an event")
            except (KeyError, ValueError):
                bad += 1
                continue
            derived = dict(event)
            derived["id"] = "peer-" + event["id"]
            derived["source"] = options.source
            derived["causationid"] = event["id"]
            output = canonical(derived)
            signature = hmac.new(signing_key, output, hashlib.sha256).hexdigest().encode()
            while True:
                try:
                    producer.produce(
                        options.output,
                        key=event["userid"].encode("utf-8"),
                        value=output,
                        headers=[
                            ("content-type", b"application/cloudevents+json"),
                            ("intent-signature", signature),
                            ("intent-key-id", signing_id),
                        ],
                        on_delivery=delivered,
                    )
                    break
                except BufferError:
                    producer.poll(0.01)
        producer.poll(0)
        if started is not None and not batch and cpu_ended is None and len(producer) == 0:
            # Everything read so far is acknowledged: the CPU it took, without the idle wait.
            cpu_ended = sum(os.times()[:2])
        elif batch:
            cpu_ended = None
    producer.flush(60)
    seconds = acknowledged[0] - started if started and acknowledged[0] else 0.0
    cpu = (cpu_ended or sum(os.times()[:2])) - cpu_started if started else 0.0
    consumer.close()
    print(
        json.dumps(
            {
                "records": read,
                "bad": bad,
                "failed": len(failed),
                "seconds": round(seconds, 3),
                "per_s": round(read / seconds, 1) if seconds else 0,
                "cpu_s": round(cpu, 3),
                "cpu_s_per_1000": round(cpu / read * 1000, 4) if read else 0,
            }
        )
    )


if __name__ == "__main__":
    main()
