#!/usr/bin/env python3
"""A voice service's client for intent-pipeline, in Python with confluent-kafka.

Written from docs/producers.md and schemas/ alone, as a voice-service team
would: it publishes signed intents (a message, a payment, a payment request,
and with --invalid one the pipeline must refuse), answers each confirmation
request the way a user who says "yes" would, and waits for each intent's
final response, read from the user's partition from before the request on
(request/reply, correlated by intent id).

    voice_client.py --bootstrap-servers HOST:PORT --source-keys FILE \\
        --source /voice/eu-1 --user alice --message-to "Brandon Lee" \\
        --pay-to "Brandon Lee" --request-from "Brandon Lee" --amount 12.50 \\
        --currency CNY --invalid

Prints one JSON object per intent as it ends ({"intent", "kind", "code",
"reason", "prompts", "expected", "ok"}), then a summary line; exit 0 when
every intent ended as expected (success, or for the --invalid request a
failure whose reason is schema_invalid), 1 when one did not, 2 on a usage
or setup error.
`--partitioner` picks librdkafka's partitioner: the guide asks for
murmur2_random (what Kafka's Java client and the workers use); any other
value shows what happens when a producer leaves librdkafka's default.
"""

import argparse
import datetime
import hashlib
import hmac
import json
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition


def read_key(path, source):
    """The key of `source` from a key file: `SOURCE [KEYID] HEXKEY` lines (guide, section 3)."""
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            parts = line.split()
            if len(parts) >= 2 and parts[0] == source:
                key = bytes.fromhex(parts[-1])
                key_id = parts[1] if len(parts) == 3 else hashlib.sha256(key).hexdigest()[:16]
                return key, key_id
    raise SystemExit(f"error: no key for source {source} in {path}")


def now_rfc3339_millis():
    """RFC 3339 UTC with exactly three fraction digits, as the canonical form wants."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def murmur2(data):
    """Kafka's murmur2 (the Java client's partitioner, librdkafka's murmur2_random)."""
    m = 0x5BD1E995
    h = (0x9747B28C ^ len(data)) & 0xFFFFFFFF
    for i in range(len(data) // 4):
        k = int.from_bytes(data[i * 4 : i * 4 + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    rest = data[len(data) & ~3 :]
    if len(rest) == 3:
        h ^= rest[2] << 16
    if len(rest) >= 2:
        h ^= rest[1] << 8
    if len(rest) >= 1:
        h = ((h ^ rest[0]) * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    return h ^ (h >> 15)


def user_partition(user, partitions):
    """The partition of a user's records on a topic of `partitions` partitions (guide, section 1)."""
    return (murmur2(user.encode("utf-8")) & 0x7FFFFFFF) % partitions


def canonical(envelope):
    """The canonical form (guide, section 3): keys sorted, no whitespace, raw UTF-8."""
    envelope = dict(envelope)
    envelope.setdefault("datacontenttype", "application/json")
    return json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class VoiceService:
    def __init__(self, options):
        self.options = options
        self.key, self.key_id = read_key(options.source_keys, options.source)
        prefix = options.topic_prefix
        self.topics = {
            name: prefix + name
            for name in ("intents.requested", "intents.confirmations", "intents.prompts", "intents.responses")
        }
        self.producer = Producer(
            {
                "bootstrap.servers": options.bootstrap_servers,
                "partitioner": options.partitioner,
                "enable.idempotence": True,
                "acks": "all",
            }
        )
        self.consumer = Consumer(
            {
                "bootstrap.servers": options.bootstrap_servers,
                "group.id": f"voice-client-{uuid.uuid4()}",
                "enable.auto.commit": False,
            }
        )
        self.listen()

    def listen(self):
        """Reads the answers to come: the user's partition of the prompts and responses
        topics, from their current ends, taken *before* anything is published (guide,
        section 4). A consumer that subscribes and waits for its group's assignment starts
        at the end as it is then, and misses an answer that came first; one that reads from
        the beginning reads every other user's answers too. Assigning the partition, rather
        than subscribing, is also how an instance reads only the users whose sessions it holds."""
        assignment = []
        for name in ("intents.prompts", "intents.responses"):
            topic = self.topics[name]
            metadata = self.consumer.list_topics(topic, timeout=30).topics[topic]
            if metadata.error is not None:
                raise SystemExit(f"error: topic {topic}: {metadata.error}")
            partition = user_partition(self.options.user, len(metadata.partitions))
            _low, high = self.consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)
            assignment.append(TopicPartition(topic, partition, high))
        self.consumer.assign(assignment)

    def publish(self, topic, event_type, intent_id, data, dataschema):
        envelope = {
            "specversion": "1.0",
            "id": str(uuid.uuid4()),
            "source": self.options.source,
            "type": event_type,
            "time": now_rfc3339_millis(),
            "dataschema": dataschema,
            "userid": self.options.user,
            "conversationid": f"conv-{intent_id}",
            "intentid": intent_id,
            "data": data,
        }
        value = canonical(envelope)
        signature = hmac.new(self.key, value, hashlib.sha256).hexdigest()
        errors = []
        self.producer.produce(
            self.topics[topic],
            key=self.options.user.encode("utf-8"),
            value=value,
            headers=[
                ("content-type", b"application/cloudevents+json"),
                ("intent-signature", signature.encode()),
                ("intent-key-id", self.key_id.encode()),
            ],
            on_delivery=lambda error, _message: errors.append(error) if error else None,
        )
        if self.producer.flush(30) != 0 or errors:
            raise SystemExit(f"error: publishing to {self.topics[topic]} failed: {errors or 'timed out'}")

    def request(self, intent_id, intent):
        """Turn 1 of an intent; `intent` as schemas/intent/requested.v1.json has it."""
        self.publish(
            "intents.requested",
            "intent.requested.v1",
            intent_id,
            {"turn": 1, "intent": intent},
            "urn:intent-pipeline:schema:intent.requested:v1",
        )

    def run(self, sessions):
        """Publishes every session's intent, answers confirmations with "confirmed", and
        records each intent's final response in its session (correlated by `intentid`)."""
        for intent_id, session in sessions.items():
            self.request(intent_id, session["intent"])
        deadline = time.monotonic() + self.options.timeout
        while any(s["final"] is None for s in sessions.values()) and time.monotonic() < deadline:
            message = self.consumer.poll(0.5)
            if message is None:
                continue
            if message.error():
                raise KafkaException(message.error())
            event = json.loads(message.value())
            session = sessions.get(event.get("intentid"))
            if session is None or message.key() != self.options.user.encode("utf-8"):
                continue  # another session's answer (another instance's, or one already over)
            session["prompts"].append(event["type"])
            if event["type"] == "payment.confirmation.requested.v1":
                # The user heard the payee (or payer), the account and the amount, and said yes.
                self.publish(
                    "intents.confirmations",
                    "payment.confirmation.v1",
                    event["intentid"],
                    {"decision": "confirmed", "binding": event["data"]["binding"]},
                    "urn:intent-pipeline:schema:payment.confirmation:v1",
                )
            elif event["type"] == "intent.response.v1" and event["data"]["code"] != "inProgress":
                session["final"] = event["data"]
        self.consumer.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--topic-prefix", default="")
    parser.add_argument("--source-keys", required=True, help="key file: SOURCE [KEYID] HEXKEY lines")
    parser.add_argument("--source", required=True, help="this service's source, e.g. /voice/eu-1")
    parser.add_argument("--user", required=True)
    parser.add_argument("--message-to", help="send a message to this spoken name")
    parser.add_argument("--text", default="on my way")
    parser.add_argument("--pay-to", help="send a payment to this spoken name")
    parser.add_argument("--request-from", help="request a payment from this spoken name")
    parser.add_argument(
        "--invalid",
        action="store_true",
        help="also send a signed request the pipeline must refuse (an amount as a JSON number)",
    )
    parser.add_argument("--amount", default="1.00", help="a decimal string, e.g. 12.50")
    parser.add_argument("--currency", default="CNY")
    parser.add_argument("--partitioner", default="murmur2_random")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the final responses")
    options = parser.parse_args()

    run_id = uuid.uuid4().hex[:8]
    amount = {"amount": options.amount, "currency": options.currency}
    wanted = []
    if options.message_to:
        wanted.append(("message", {"kind": "sendMessage", "recipients": [{"spoken": options.message_to}], "content": options.text}))
    if options.pay_to:
        wanted.append(("payment", {"kind": "sendPayment", "payee": {"spoken": options.pay_to}, "currencyAmount": amount}))
    if options.request_from:
        wanted.append(("request", {"kind": "requestPayment", "payer": {"spoken": options.request_from}, "currencyAmount": amount}))
    if options.invalid:
        # Amounts are strings (guide, section 2): a number is refused, and the intent ends with
        # a failure response naming the dead letter's reason, so the client need not time out.
        number = {"amount": float(options.amount), "currency": options.currency}
        wanted.append(("invalid", {"kind": "sendPayment", "payee": {"spoken": "anyone"}, "currencyAmount": number}))
    if not wanted:
        parser.error("nothing to do: give --message-to, --pay-to, --request-from and/or --invalid")
    # One session per intent: what was asked, what it should end with, what came back.
    sessions = {
        f"py-{name}-{run_id}": {
            "intent": intent,
            "expected": ("failure", "schema_invalid") if name == "invalid" else ("success", None),
            "prompts": [],
            "final": None,
        }
        for name, intent in wanted
    }

    VoiceService(options).run(sessions)
    ok = 0
    for intent_id, session in sessions.items():
        final = session["final"]
        ended = (final["code"], final.get("reason") if final["code"] != "success" else None) if final else None
        matched = ended == session["expected"]
        ok += matched
        print(
            json.dumps(
                {
                    "intent": intent_id,
                    "kind": session["intent"]["kind"],
                    "code": final["code"] if final else None,
                    "reason": final.get("reason") if final else "no final response before the timeout",
                    "prompts": session["prompts"],
                    "expected": session["expected"][0],
                    "ok": matched,
                },
                ensure_ascii=False,
            )
        )
    print(json.dumps({"intents": len(sessions), "ok": ok, "partitioner": options.partitioner}))
    return 0 if ok == len(sessions) else 1

if __name__ == "__main__":
    sys.exit(main())
