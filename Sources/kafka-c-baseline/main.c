/* A minimal C program on librdkafka: the baseline `intent-bench kafka` compares
 * the Swift layer with. Usage:
 *   kafka-c-baseline produce BOOTSTRAP TOPIC COUNT [SIZE] [LINGER_MS]
 *   kafka-c-baseline consume BOOTSTRAP TOPIC COUNT GROUP
 * Prints one JSON object with the measured rate. */
#include "kafka_baseline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char errstr[512] = "";
    kb_result result = {0, 0, 0, 0};
    int status;
    if (argc >= 5 && strcmp(argv[1], "produce") == 0) {
        int size = argc > 5 ? atoi(argv[5]) : 200;
        int linger = argc > 6 ? atoi(argv[6]) : 5;
        status = kb_produce(argv[2], argv[3], atoll(argv[4]), size, linger, &result, errstr, sizeof errstr);
    } else if (argc >= 6 && strcmp(argv[1], "consume") == 0) {
        status = kb_consume(argv[2], argv[3], argv[5], atoll(argv[4]), 30000, &result, errstr, sizeof errstr);
    } else {
        fprintf(stderr, "usage: %s produce BOOTSTRAP TOPIC COUNT [SIZE] [LINGER_MS]\n"
                        "       %s consume BOOTSTRAP TOPIC COUNT GROUP\n", argv[0], argv[0]);
        return 2;
    }
    if (status != 0) {
        fprintf(stderr, "kafka-c-baseline: %s\n", errstr);
        return 1;
    }
    printf("{\"mode\": \"%s\", \"messages\": %lld, \"errors\": %lld, \"seconds\": %.6f, \"per_s\": %.0f}\n", argv[1],
           result.messages, result.errors, result.seconds, result.seconds > 0 ? result.messages / result.seconds : 0.0);
    return 0;
}
