#!/usr/bin/env python3
"""A voice service's client for intent-pipeline, in Python with confluent-kafka.

Written from docs/producers.md and schemas/ alone, as a voice-service team
would: it publishes signed intents (a message and a payment), answers the
payment's confirmation request the way a user who says "yes" would, and
waits for each intent's final response.

    voice_client.py --bootstrap-servers HOST:PORT --source-keys FILE \\
        --source /voice/eu-1 --user alice --message-to "Brandon Lee" \\
        --pay-to "Brandon Lee" --amount 12.50 --currency CNY

Prints one JSON object per intent as it ends ({"intent", "kind", "code",
"reason", "prompts"}), then a summary line; exit 0 when every intent
ended with "success", 1 when one did not, 2 on a usage or setup error.
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

from confluent_kafka import Consumer, KafkaException, Producer


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
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            }
        )
        self.consumer.subscribe([self.topics["intents.prompts"], self.topics["intents.responses"]])

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
        self.publish(
            "intents.requested",
            "intent.requested.v1",
            intent_id,
            {"turn": 1, "intent": intent},
            "urn:intent-pipeline:schema:intent.requested:v1",
        )

    def run(self, intents):
        """Publishes every intent, answers confirmations with "confirmed", returns the final responses."""
        for intent_id, intent in intents.items():
            self.request(intent_id, intent)
        prompts = {intent_id: [] for intent_id in intents}
        finals = {}
        deadline = time.monotonic() + self.options.timeout
        while len(finals) < len(intents) and time.monotonic() < deadline:
            message = self.consumer.poll(0.5)
            if message is None:
                continue
            if message.error():
                raise KafkaException(message.error())
            event = json.loads(message.value())
            intent_id = event.get("intentid")
            if intent_id not in intents or message.key() != self.options.user.encode("utf-8"):
                continue
            prompts[intent_id].append(event["type"])
            if event["type"] == "payment.confirmation.requested.v1":
                # The user heard the payee, the account credited and the amount, and said yes.
                self.publish(
                    "intents.confirmations",
                    "payment.confirmation.v1",
                    intent_id,
                    {"decision": "confirmed", "binding": event["data"]["binding"]},
                    "urn:intent-pipeline:schema:payment.confirmation:v1",
                )
            elif event["type"] == "intent.response.v1" and event["data"]["code"] != "inProgress":
                finals[intent_id] = event["data"]
        self.consumer.close()
        return prompts, finals


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
    parser.add_argument("--amount", default="1.00", help="a decimal string, e.g. 12.50")
    parser.add_argument("--currency", default="CNY")
    parser.add_argument("--partitioner", default="murmur2_random")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the final responses")
    options = parser.parse_args()

    intents = {}
    run_id = uuid.uuid4().hex[:8]
    if options.message_to:
        intents[f"py-message-{run_id}"] = {
            "kind": "sendMessage",
            "recipients": [{"spoken": options.message_to}],
            "content": options.text,
        }
    if options.pay_to:
        intents[f"py-payment-{run_id}"] = {
            "kind": "sendPayment",
            "payee": {"spoken": options.pay_to},
            "currencyAmount": {"amount": options.amount, "currency": options.currency},
        }
    if not intents:
        parser.error("nothing to do: give --message-to and/or --pay-to")

    prompts, finals = VoiceService(options).run(intents)
    for intent_id, intent in intents.items():
        final = finals.get(intent_id)
        print(
            json.dumps(
                {
                    "intent": intent_id,
                    "kind": intent["kind"],
                    "code": final["code"] if final else None,
                    "reason": final.get("reason") if final else "no final response before the timeout",
                    "prompts": prompts[intent_id],
                },
                ensure_ascii=False,
            )
        )
    succeeded = sum(1 for final in finals.values() if final["code"] == "success")
    print(json.dumps({"intents": len(intents), "succeeded": succeeded, "partitioner": options.partitioner}))
    return 0 if succeeded == len(intents) else 1


if __name__ == "__main__":
    sys.exit(main())
