#ifndef INTENT_PIPELINE_CRDKAFKA_SHIM_H
#define INTENT_PIPELINE_CRDKAFKA_SHIM_H

#include <librdkafka/rdkafka.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/// Swift cannot call the variadic `rd_kafka_producev`, and building an
/// `rd_kafka_vu_t` array with its anonymous union from Swift is error-prone.
/// This helper builds the array on the C stack and calls `rd_kafka_produceva`,
/// which returns its error directly (no thread-local `rd_kafka_last_error`,
/// unsafe when Swift tasks hop threads). The payload, key and headers are
/// copied by librdkafka (`RD_KAFKA_MSG_F_COPY`), so Swift buffers may be freed
/// as soon as this returns.
static inline rd_kafka_error_t *intent_rd_kafka_produce(
    rd_kafka_t *rk, const char *topic, int32_t partition,
    const void *key, size_t key_len,
    const void *value, size_t value_len,
    const char *const *header_names, const void *const *header_values,
    const size_t *header_lengths, size_t header_count,
    int64_t timestamp_ms, void *opaque) {
    enum { FIXED = 7, MAX_HEADERS = 64 };
    rd_kafka_vu_t vus[FIXED + MAX_HEADERS];
    size_t n = 0;
    if (header_count > MAX_HEADERS) {
        return rd_kafka_error_new(RD_KAFKA_RESP_ERR__INVALID_ARG,
                                  "at most %d headers per message", MAX_HEADERS);
    }
    vus[n].vtype = RD_KAFKA_VTYPE_TOPIC; vus[n++].u.cstr = topic;
    vus[n].vtype = RD_KAFKA_VTYPE_PARTITION; vus[n++].u.i32 = partition;
    vus[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS; vus[n++].u.i = RD_KAFKA_MSG_F_COPY;
    vus[n].vtype = RD_KAFKA_VTYPE_OPAQUE; vus[n++].u.ptr = opaque;
    if (key != NULL) {
        vus[n].vtype = RD_KAFKA_VTYPE_KEY;
        vus[n].u.mem.ptr = (void *)key; vus[n++].u.mem.size = key_len;
    }
    vus[n].vtype = RD_KAFKA_VTYPE_VALUE;
    vus[n].u.mem.ptr = (void *)value; vus[n++].u.mem.size = value_len;
    if (timestamp_ms != 0) {
        vus[n].vtype = RD_KAFKA_VTYPE_TIMESTAMP; vus[n++].u.i64 = timestamp_ms;
    }
    for (size_t i = 0; i < header_count; i++) {
        vus[n].vtype = RD_KAFKA_VTYPE_HEADER;
        vus[n].u.header.name = header_names[i];
        vus[n].u.header.val = header_values[i];
        vus[n++].u.header.size = (ssize_t)header_lengths[i];
    }
    return rd_kafka_produceva(rk, vus, n);
}

#endif
