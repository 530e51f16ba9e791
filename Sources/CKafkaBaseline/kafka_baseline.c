/* The raw-librdkafka baseline the Swift layer is measured against. Settings
 * mirror the Swift defaults: idempotence, acks=all, linger.ms as given. */
#include "kafka_baseline.h"

#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Joins the consumer's group for one topic (every partition). */
static void subscribe_one(rd_kafka_t *rk, const char *topic) {
    rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, topic, RD_KAFKA_PARTITION_UA);
    rd_kafka_subscribe(rk, topics);
    rd_kafka_topic_partition_list_destroy(topics);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int set(rd_kafka_conf_t *conf, const char *key, const char *value, char *errstr, size_t errlen) {
    if (rd_kafka_conf_set(conf, key, value, errstr, errlen) != RD_KAFKA_CONF_OK) {
        rd_kafka_conf_destroy(conf);
        return -1;
    }
    return 0;
}

typedef struct {
    long long delivered;
    long long errors;
} delivery_counts;

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *message, void *opaque) {
    (void)rk;
    delivery_counts *counts = (delivery_counts *)opaque;
    if (message->err) counts->errors++;
    else counts->delivered++;
}

static rd_kafka_resp_err_t produce_one(rd_kafka_t *rk, const char *topic, const char *key, const char *value, size_t size) {
    rd_kafka_vu_t vus[4];
    vus[0].vtype = RD_KAFKA_VTYPE_TOPIC; vus[0].u.cstr = topic;
    vus[1].vtype = RD_KAFKA_VTYPE_KEY; vus[1].u.mem.ptr = (void *)key; vus[1].u.mem.size = strlen(key);
    vus[2].vtype = RD_KAFKA_VTYPE_VALUE; vus[2].u.mem.ptr = (void *)value; vus[2].u.mem.size = size;
    vus[3].vtype = RD_KAFKA_VTYPE_MSGFLAGS; vus[3].u.i = RD_KAFKA_MSG_F_COPY;
    rd_kafka_error_t *error = rd_kafka_produceva(rk, vus, 4);
    if (!error) return RD_KAFKA_RESP_ERR_NO_ERROR;
    rd_kafka_resp_err_t code = rd_kafka_error_code(error);
    rd_kafka_error_destroy(error);
    return code;
}

int kb_produce(const char *bootstrap, const char *topic, long long count, int size, int linger_ms,
               kb_result *out, char *errstr, size_t errlen) {
    char linger[32];
    snprintf(linger, sizeof linger, "%d", linger_ms);
    delivery_counts counts = {0, 0};
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", bootstrap, errstr, errlen) || set(conf, "enable.idempotence", "true", errstr, errlen) ||
        set(conf, "acks", "all", errstr, errlen) || set(conf, "linger.ms", linger, errstr, errlen) ||
        set(conf, "message.timeout.ms", "30000", errstr, errlen))
        return -1;
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, &counts);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, errlen);
    if (!rk) { rd_kafka_conf_destroy(conf); return -1; }

    char *value = malloc((size_t)size);
    memset(value, 'x', (size_t)size);
    char key[32];

    /* Warm-up: connection, metadata and producer id are not measured. */
    produce_one(rk, topic, "warm-up", value, (size_t)size);
    rd_kafka_flush(rk, 30000);
    counts.delivered = 0;
    counts.errors = 0;

    double start = now_seconds();
    for (long long i = 0; i < count; i++) {
        snprintf(key, sizeof key, "user-%lld", i % 1000);
        rd_kafka_resp_err_t err;
        while ((err = produce_one(rk, topic, key, value, (size_t)size)) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(rk, 10);
        if (err) counts.errors++;
        if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
    }
    rd_kafka_flush(rk, 60000);
    out->seconds = now_seconds() - start;
    out->messages = counts.delivered;
    out->errors = counts.errors;
    out->bytes = counts.delivered * size;
    free(value);
    rd_kafka_destroy(rk);
    return 0;
}

int kb_consume(const char *bootstrap, const char *topic, const char *group, long long count, int timeout_ms,
               kb_result *out, char *errstr, size_t errlen) {
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", bootstrap, errstr, errlen) || set(conf, "group.id", group, errstr, errlen) ||
        set(conf, "auto.offset.reset", "earliest", errstr, errlen) || set(conf, "enable.auto.commit", "false", errstr, errlen) ||
        set(conf, "enable.auto.offset.store", "false", errstr, errlen) ||
        set(conf, "partition.assignment.strategy", "cooperative-sticky", errstr, errlen) ||
        set(conf, "session.timeout.ms", "6000", errstr, errlen))
        return -1;
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, errlen);
    if (!rk) { rd_kafka_conf_destroy(conf); return -1; }
    rd_kafka_poll_set_consumer(rk);
    subscribe_one(rk, topic);

    long long received = 0, errors = 0, bytes = 0;
    double start = 0, last_message = now_seconds();
    while (received < count) {
        rd_kafka_message_t *message = rd_kafka_consumer_poll(rk, 100);
        if (!message) {
            if ((now_seconds() - last_message) * 1000 > timeout_ms) break;
            continue;
        }
        last_message = now_seconds();
        if (message->err) errors++;
        else {
            if (received == 0) start = now_seconds();
            received++;
            bytes += (long long)message->len;
        }
        rd_kafka_message_destroy(message);
    }
    out->seconds = received ? now_seconds() - start : 0;
    out->messages = received;
    out->errors = errors;
    out->bytes = bytes;
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    if (received < count) {
        snprintf(errstr, errlen, "consumed %lld of %lld messages before %d ms passed without one", received, count, timeout_ms);
        return -1;
    }
    return 0;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
           (double)usage.ru_stime.tv_usec / 1e6;
}

int kb_relay(const char *bootstrap, const char *input, const char *output, const char *group, long long count,
             int linger_ms, int batch, int timeout_ms, kb_result *out, char *errstr, size_t errlen) {
    char linger[32];
    snprintf(linger, sizeof linger, "%d", linger_ms);
    delivery_counts counts = {0, 0};
    rd_kafka_conf_t *pconf = rd_kafka_conf_new();
    if (set(pconf, "bootstrap.servers", bootstrap, errstr, errlen) ||
        set(pconf, "enable.idempotence", "true", errstr, errlen) || set(pconf, "acks", "all", errstr, errlen) ||
        set(pconf, "linger.ms", linger, errstr, errlen) || set(pconf, "message.timeout.ms", "30000", errstr, errlen))
        return -1;
    rd_kafka_conf_set_dr_msg_cb(pconf, on_delivery);
    rd_kafka_conf_set_opaque(pconf, &counts);
    rd_kafka_t *producer = rd_kafka_new(RD_KAFKA_PRODUCER, pconf, errstr, errlen);
    if (!producer) { rd_kafka_conf_destroy(pconf); return -1; }

    rd_kafka_conf_t *cconf = rd_kafka_conf_new();
    if (set(cconf, "bootstrap.servers", bootstrap, errstr, errlen) || set(cconf, "group.id", group, errstr, errlen) ||
        set(cconf, "auto.offset.reset", "earliest", errstr, errlen) ||
        set(cconf, "enable.auto.commit", "false", errstr, errlen) ||
        set(cconf, "partition.assignment.strategy", "cooperative-sticky", errstr, errlen) ||
        set(cconf, "session.timeout.ms", "6000", errstr, errlen)) {
        rd_kafka_destroy(producer);
        return -1;
    }
    rd_kafka_t *consumer = rd_kafka_new(RD_KAFKA_CONSUMER, cconf, errstr, errlen);
    if (!consumer) { rd_kafka_conf_destroy(cconf); rd_kafka_destroy(producer); return -1; }
    rd_kafka_poll_set_consumer(consumer);
    subscribe_one(consumer, input);

    long long received = 0, errors = 0, bytes = 0;
    double start = 0, cpu_start = 0, last_message = now_seconds();
    rd_kafka_message_t **messages = calloc((size_t)batch, sizeof *messages);
    while (received < count) {
        /* One batch: block for the first record, then take what is already fetched. */
        int taken = 0;
        rd_kafka_message_t *message = rd_kafka_consumer_poll(consumer, 100);
        while (message) {
            if (message->err) { errors++; rd_kafka_message_destroy(message); }
            else messages[taken++] = message;
            if (taken == batch) break;
            message = rd_kafka_consumer_poll(consumer, 0);
        }
        if (taken == 0) {
            if ((now_seconds() - last_message) * 1000 > timeout_ms) break;
            continue;
        }
        if (received == 0) { start = now_seconds(); cpu_start = cpu_seconds(); }
        last_message = now_seconds();
        for (int i = 0; i < taken; i++) {
            rd_kafka_message_t *m = messages[i];
            rd_kafka_vu_t vus[4];
            vus[0].vtype = RD_KAFKA_VTYPE_TOPIC; vus[0].u.cstr = output;
            vus[1].vtype = RD_KAFKA_VTYPE_KEY; vus[1].u.mem.ptr = m->key; vus[1].u.mem.size = m->key_len;
            vus[2].vtype = RD_KAFKA_VTYPE_VALUE; vus[2].u.mem.ptr = m->payload; vus[2].u.mem.size = m->len;
            vus[3].vtype = RD_KAFKA_VTYPE_MSGFLAGS; vus[3].u.i = RD_KAFKA_MSG_F_COPY;
            rd_kafka_error_t *error;
            while ((error = rd_kafka_produceva(producer, vus, 4)) &&
                   rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
                rd_kafka_error_destroy(error);
                rd_kafka_poll(producer, 10);
            }
            if (error) { counts.errors++; rd_kafka_error_destroy(error); }
            bytes += (long long)m->len;
            rd_kafka_message_destroy(m);
        }
        received += taken;
        /* Every output acknowledged before the input is committed. */
        rd_kafka_flush(producer, 30000);
        rd_kafka_resp_err_t err = rd_kafka_commit(consumer, NULL, 0);
        if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET) errors++;
    }
    free(messages);
    out->seconds = received ? now_seconds() - start : 0;
    out->cpu_seconds = received ? cpu_seconds() - cpu_start : 0;
    out->messages = counts.delivered;
    out->errors = errors + counts.errors;
    out->bytes = bytes;
    rd_kafka_consumer_close(consumer);
    rd_kafka_destroy(consumer);
    rd_kafka_destroy(producer);
    if (received < count) {
        snprintf(errstr, errlen, "relayed %lld of %lld records before %d ms passed without one", received, count,
                 timeout_ms);
        return -1;
    }
    return 0;
}

/* ---- A chain of raw relays: the latency floor (kb_relay_chain) ---- */

#include <pthread.h>
#include <stdatomic.h>

typedef struct {
    const char *bootstrap;
    char input[256];
    char output[256];
    int partitions;
    int linger_ms;
    int fetch_wait_ms;
    atomic_int *stop;
    rd_kafka_t *consumer;
    rd_kafka_t *producer;
} chain_relay;

/* A consumer reading every partition of `topic` from its beginning, without a group's join. */
static rd_kafka_t *chain_consumer(const char *bootstrap, const char *topic, int partitions, int fetch_wait_ms,
                                  char *errstr, size_t errlen) {
    char wait[32];
    snprintf(wait, sizeof wait, "%d", fetch_wait_ms);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", bootstrap, errstr, errlen) ||
        set(conf, "group.id", "kb-relay-chain", errstr, errlen) ||
        set(conf, "enable.auto.commit", "false", errstr, errlen) ||
        set(conf, "fetch.wait.max.ms", wait, errstr, errlen))
        return NULL;
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, errlen);
    if (!rk) { rd_kafka_conf_destroy(conf); return NULL; }
    rd_kafka_poll_set_consumer(rk);
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(partitions);
    for (int p = 0; p < partitions; p++)
        rd_kafka_topic_partition_list_add(list, topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(rk, list);
    rd_kafka_topic_partition_list_destroy(list);
    return rk;
}

static rd_kafka_t *chain_producer(const char *bootstrap, int linger_ms, char *errstr, size_t errlen) {
    char linger[32];
    snprintf(linger, sizeof linger, "%d", linger_ms);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", bootstrap, errstr, errlen) ||
        set(conf, "enable.idempotence", "true", errstr, errlen) || set(conf, "acks", "all", errstr, errlen) ||
        set(conf, "linger.ms", linger, errstr, errlen) || set(conf, "message.timeout.ms", "30000", errstr, errlen))
        return NULL;
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, errlen);
    if (!rk) rd_kafka_conf_destroy(conf);
    return rk;
}

/* One hop: what arrives is produced on at once (delivery reports served as it goes). */
static void *chain_relay_run(void *argument) {
    chain_relay *relay = argument;
    while (!atomic_load(relay->stop)) {
        rd_kafka_message_t *message = rd_kafka_consumer_poll(relay->consumer, 20);
        while (message) {
            if (!message->err) {
                rd_kafka_vu_t vus[4];
                vus[0].vtype = RD_KAFKA_VTYPE_TOPIC; vus[0].u.cstr = relay->output;
                vus[1].vtype = RD_KAFKA_VTYPE_KEY; vus[1].u.mem.ptr = message->key; vus[1].u.mem.size = message->key_len;
                vus[2].vtype = RD_KAFKA_VTYPE_VALUE; vus[2].u.mem.ptr = message->payload; vus[2].u.mem.size = message->len;
                vus[3].vtype = RD_KAFKA_VTYPE_MSGFLAGS; vus[3].u.i = RD_KAFKA_MSG_F_COPY;
                rd_kafka_error_t *error;
                while ((error = rd_kafka_produceva(relay->producer, vus, 4)) &&
                       rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
                    rd_kafka_error_destroy(error);
                    rd_kafka_poll(relay->producer, 10);
                }
                if (error) rd_kafka_error_destroy(error);
            }
            rd_kafka_message_destroy(message);
            message = rd_kafka_consumer_poll(relay->consumer, 0);
        }
        rd_kafka_poll(relay->producer, 0);
    }
    return NULL;
}

typedef struct {
    rd_kafka_t *consumer;
    atomic_int *stop;
    atomic_llong received;  /* timed records read */
    atomic_int warm;        /* a warm-up record came through */
    double *latencies_ms;
    long long capacity;
} chain_reader;

static void *chain_reader_run(void *argument) {
    chain_reader *reader = argument;
    while (!atomic_load(reader->stop)) {
        rd_kafka_message_t *message = rd_kafka_consumer_poll(reader->consumer, 5);
        if (!message) continue;
        if (!message->err && message->len >= 24) {
            double now = now_seconds();
            char stamp[25];
            memcpy(stamp, message->payload, 24);
            stamp[24] = 0;
            if (stamp[0] == 'w') {
                atomic_store(&reader->warm, 1);
            } else {
                long long index = atomic_load(&reader->received);
                if (index < reader->capacity) reader->latencies_ms[index] = (now - atof(stamp)) * 1000;
                atomic_store(&reader->received, index + 1);
            }
        }
        rd_kafka_message_destroy(message);
    }
    return NULL;
}

int kb_relay_chain(const char *bootstrap, const char *topic_prefix, int hops, int partitions, int rate,
                   double seconds, int linger_ms, int fetch_wait_ms, int drain_ms, double *latencies_ms,
                   long long capacity, kb_result *out, char *errstr, size_t errlen) {
    if (hops < 1 || hops > 16 || partitions < 1 || rate < 1) {
        snprintf(errstr, errlen, "hops 1-16, partitions and rate at least 1");
        return -1;
    }
    atomic_int stop = 0;
    chain_relay relays[16];
    pthread_t threads[16];
    int started = 0, status = 0;
    rd_kafka_t *source = NULL;
    chain_reader reader = {0};
    pthread_t reader_thread;
    int reader_started = 0;
    for (int i = 0; i < hops; i++) {
        chain_relay *relay = &relays[i];
        relay->bootstrap = bootstrap;
        snprintf(relay->input, sizeof relay->input, "%s%d", topic_prefix, i);
        snprintf(relay->output, sizeof relay->output, "%s%d", topic_prefix, i + 1);
        relay->stop = &stop;
        relay->consumer = chain_consumer(bootstrap, relay->input, partitions, fetch_wait_ms, errstr, errlen);
        relay->producer = relay->consumer ? chain_producer(bootstrap, linger_ms, errstr, errlen) : NULL;
        if (!relay->producer) {
            if (relay->consumer) { rd_kafka_consumer_close(relay->consumer); rd_kafka_destroy(relay->consumer); }
            status = -1;
            goto done;
        }
        pthread_create(&threads[i], NULL, chain_relay_run, relay);
        started++;
    }
    char last[256];
    snprintf(last, sizeof last, "%s%d", topic_prefix, hops);
    reader.consumer = chain_consumer(bootstrap, last, partitions, fetch_wait_ms, errstr, errlen);
    reader.stop = &stop;
    reader.latencies_ms = latencies_ms;
    reader.capacity = capacity;
    source = reader.consumer ? chain_producer(bootstrap, linger_ms, errstr, errlen) : NULL;
    if (!source) { status = -1; goto done; }
    pthread_create(&reader_thread, NULL, chain_reader_run, &reader);
    reader_started = 1;

    char first[256];
    snprintf(first, sizeof first, "%s0", topic_prefix);
    char value[1024];
    memset(value, 'x', sizeof value);
    char key[32];
    /* Warm-up: one record every 50 ms until one has come through every hop (connections,
     * leaders and fetch sessions ready), at most 30 s. */
    double warm_deadline = now_seconds() + 30;
    while (!atomic_load(&reader.warm)) {
        if (now_seconds() > warm_deadline) {
            snprintf(errstr, errlen, "no warm-up record came through %d relays within 30 s", hops);
            status = -1;
            goto done;
        }
        memcpy(value, "w", 1);
        produce_one(source, first, "warm-up", value, sizeof value);
        rd_kafka_poll(source, 50);
    }
    /* Late warm-up records still in the chain are told apart by their 'w'. */
    long long total = (long long)(rate * seconds);
    double start = now_seconds();
    for (long long sent = 0; sent < total;) {
        double now = now_seconds();
        while (sent < total && start + (double)sent / rate <= now) {
            char stamp[32];
            snprintf(stamp, sizeof stamp, "%-24.6f", now_seconds());
            memcpy(value, stamp, 24);
            snprintf(key, sizeof key, "user-%lld", sent % 50);
            rd_kafka_resp_err_t err;
            while ((err = produce_one(source, first, key, value, sizeof value)) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
                rd_kafka_poll(source, 1);
            sent++;
        }
        rd_kafka_poll(source, 0);
        double next = start + (double)sent / rate - now_seconds();
        if (next > 0) {
            struct timespec pause = {0, (long)(next * 1e9)};
            nanosleep(&pause, NULL);
        }
    }
    double offered = now_seconds();
    while (atomic_load(&reader.received) < total && (now_seconds() - offered) * 1000 < drain_ms)
        rd_kafka_poll(source, 10);
    out->messages = atomic_load(&reader.received);
    if (out->messages > capacity) out->messages = capacity;
    out->seconds = offered - start;
    out->errors = total - atomic_load(&reader.received);
done:
    atomic_store(&stop, 1);
    if (reader_started) pthread_join(reader_thread, NULL);
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < started; i++) {
        rd_kafka_consumer_close(relays[i].consumer);
        rd_kafka_destroy(relays[i].consumer);
        rd_kafka_flush(relays[i].producer, 1000);
        rd_kafka_destroy(relays[i].producer);
    }
    if (reader.consumer) { rd_kafka_consumer_close(reader.consumer); rd_kafka_destroy(reader.consumer); }
    if (source) { rd_kafka_flush(source, 1000); rd_kafka_destroy(source); }
    return status;
}
