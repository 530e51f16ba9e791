"""The latency floor of the broker: a chain of raw Kafka relays, no worker logic.

    producer -> t0 -> relay -> t1 -> relay -> ... -> tN -> reader

Each relay is a confluent-kafka (librdkafka) consumer and an idempotent
acks=all producer with linger.ms 0 and fetch.wait.max.ms 5, as the workers
are configured, in its own process; no signatures, no state round, no
commits. A message round trip through the pipeline is three such hops
(resolve, confirm, handle) plus handle's state round, so whatever this
measures at a rate is the least the pipeline can do at that rate on the same
broker and machine (issue 9, docs/benchmarks.md "What stands in the way").

    .venv/bin/python scripts/broker_latency_floor.py HOST:PORT RATE SECONDS HOPS
    # e.g. against a fresh local broker: ... 127.0.0.1:19096 1000 5 3

The last line is JSON: hops, rate, read, p50_ms, p99_ms, p999_ms, max_ms.
"""
import json, sys, time, os, multiprocessing as mp

# Partitions per topic (the benchmark uses 6): FLOOR_PARTITIONS.
PARTITIONS = int(os.environ.get("FLOOR_PARTITIONS", "6"))
# The producers' linger.ms (the workers use 0): FLOOR_LINGER_MS.
LINGER = int(os.environ.get("FLOOR_LINGER_MS", "0"))
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
cons = lambda bs, g: {"bootstrap.servers": bs, "group.id": g, "fetch.wait.max.ms": 5, "auto.offset.reset": "earliest", "enable.auto.commit": False}
prod = lambda bs: {"bootstrap.servers": bs, "enable.idempotence": True, "acks": "all", "linger.ms": LINGER}

def relay(bs, src, dst, ready):
    c = Consumer(cons(bs, f"g-{src}")); c.assign([TopicPartition(src, p, 0) for p in range(PARTITIONS)])
    p = Producer(prod(bs)); ready.set()
    while True:
        first = c.poll(0.05)
        for m in ([first] + c.consume(999, 0) if first is not None else []):
            if m.error(): continue
            p.produce(dst, key=m.key(), value=m.value())
        p.poll(0)

def main():
    bs, rate, seconds, hops = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    tag = f"chain{os.getpid()}"
    topics = [f"{tag}-{i}" for i in range(hops + 1)]
    a = AdminClient({"bootstrap.servers": bs})
    for f in a.create_topics([NewTopic(t, PARTITIONS, 1) for t in topics]).values(): f.result()
    procs = []
    for i in range(hops):
        ev = mp.get_context("spawn").Event(); pr = mp.get_context("spawn").Process(target=relay, args=(bs, topics[i], topics[i + 1], ev), daemon=True); pr.start(); ev.wait(); procs.append(pr)
    reader = Consumer(cons(bs, f"{tag}-reader")); reader.assign([TopicPartition(topics[-1], p, 0) for p in range(PARTITIONS)])
    time.sleep(2)
    p = Producer(prod(bs)); n = int(rate * seconds); lat = []
    t0 = time.perf_counter(); sent = 0
    while len(lat) < n and time.perf_counter() - t0 < seconds + 30:
        now = time.perf_counter()
        while sent < n and t0 + sent / rate <= now:
            p.produce(topics[0], key=str(sent % 50).encode(), value=(f"{time.time()*1000:.3f}".ljust(24) + "x" * 600).encode()); sent += 1
        p.poll(0)
        for m in reader.consume(1000, 0.001):
            if m.error(): continue
            lat.append(time.time() * 1000 - float(m.value()[:24]))
    # The first tenth (connections, fetch sessions warming) is left out.
    lat = sorted(lat[len(lat) // 10:])
    q = lambda x: lat[min(len(lat) - 1, int(len(lat) * x))]
    print(f"hops {hops} rate {rate}/s: {len(lat)} read, p50 {q(.5):.1f} p99 {q(.99):.1f} p99.9 {q(.999):.1f} max {lat[-1]:.1f} ms")
    print(json.dumps({"hops": hops, "rate": rate, "read": len(lat), "p50_ms": round(q(.5), 1), "p99_ms": round(q(.99), 1),
                      "p999_ms": round(q(.999), 1), "max_ms": round(lat[-1], 1)}))
    for pr in procs: pr.kill()
    os._exit(0)

if __name__ == "__main__":
    main()
