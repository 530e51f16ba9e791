#ifndef INTENT_PIPELINE_KAFKA_BASELINE_H
#define INTENT_PIPELINE_KAFKA_BASELINE_H

#include <stddef.h>

/// What a baseline run measured.
typedef struct {
    double seconds;          /* from the first timed message to the last */
    long long messages;      /* messages delivered or consumed */
    long long errors;        /* delivery or consume errors */
    long long bytes;         /* payload bytes seen (consume) */
    double cpu_seconds;      /* process CPU time over the timed span (relay) */
} kb_result;

/// Produces `count` messages of `size` bytes with keys "user-<i % 1000>", the
/// way a minimal C program would: rd_kafka_produceva, delivery reports served
/// by rd_kafka_poll, flush at the end. One untimed warm-up message first.
/// Returns 0, or -1 with a message in `errstr`.
int kb_produce(const char *bootstrap, const char *topic, long long count, int size, int linger_ms,
               kb_result *out, char *errstr, size_t errlen);

/// Consumes `count` messages from `topic` in consumer group `group` (from the
/// earliest offset); timing starts at the first message, so the group join is
/// not measured. Gives up after `timeout_ms` without a message.
int kb_consume(const char *bootstrap, const char *topic, const char *group, long long count, int timeout_ms,
               kb_result *out, char *errstr, size_t errlen);

/// The floor a pipeline worker is measured against: consumes `count` records
/// from `input` in consumer group `group` (from the earliest offset, manual
/// commit) and produces one record per input (same key and value) to `output`
/// with the workers' producer settings (idempotence, acks=all, `linger_ms`).
/// Per batch of up to `batch` records: produce all, wait for every
/// acknowledgement, then commit synchronously, as a worker does before it may
/// commit. Timed from the first record received to the last commit; `out->cpu_seconds`
/// is this process's CPU time (user + system) over the same span.
int kb_relay(const char *bootstrap, const char *input, const char *output, const char *group, long long count,
             int linger_ms, int batch, int timeout_ms, kb_result *out, char *errstr, size_t errlen);

/// The broker's own latency floor for a pipeline of `hops` stages: `hops` raw
/// relays in threads of this process, relay i consuming topic "<prefix><i>"
/// and producing the same key and value to "<prefix><i+1>" (topics created by
/// the caller, `partitions` each), with the workers' settings: idempotence,
/// acks=all, `linger_ms`, `fetch_wait_ms` (fetch.wait.max.ms); no signatures,
/// no state, no commits. After a warm-up record has come through the chain,
/// offers `rate` records per second for `seconds` to "<prefix>0" (keys
/// "user-<i % 50>", 1 KiB values carrying the send time) and reads
/// "<prefix><hops>": each record's publish-to-read time in milliseconds goes
/// to `latencies_ms` (at most `capacity`), their number to `out->messages`.
/// Gives up `drain_ms` after the last record was offered.
int kb_relay_chain(const char *bootstrap, const char *topic_prefix, int hops, int partitions, int rate,
                   double seconds, int linger_ms, int fetch_wait_ms, int drain_ms, double *latencies_ms,
                   long long capacity, kb_result *out, char *errstr, size_t errlen);

#endif
