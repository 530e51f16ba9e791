#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets in Fuzz/ (release, --sanitize fuzzer) and
# runs each over its seed corpus (Fuzz/Corpus/<target>) for FUZZ_RUNS executions
# (default 1,000,000) or FUZZ_SECONDS seconds (default 900), whichever comes first.
# New inputs go to .build-fuzz/corpus, never into the repository; a crash leaves
# its input in .build-fuzz/artifacts and fails the run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
RUNS="${FUZZ_RUNS:-1000000}"
SECONDS_EACH="${FUZZ_SECONDS:-900}"
TARGETS=(fuzz-envelope fuzz-intent fuzz-amount fuzz-contacts)

(cd Fuzz && "${SWIFT:-swift}" build -c release --sanitize fuzzer)
BIN="$(cd Fuzz && "${SWIFT:-swift}" build -c release --sanitize fuzzer --show-bin-path)"
mkdir -p .build-fuzz/artifacts
status=0
for target in "${TARGETS[@]}"; do
    work="$ROOT/.build-fuzz/corpus/$target"
    mkdir -p "$work"
    echo "fuzz: $target ($RUNS runs at most, ${SECONDS_EACH}s at most)"
    # The Swift runtime's backtracer would take the crash before libFuzzer can save its input.
    if SWIFT_BACKTRACE=enable=no "$BIN/$target" -runs="$RUNS" -max_total_time="$SECONDS_EACH" \
        -print_final_stats=1 -artifact_prefix="$ROOT/.build-fuzz/artifacts/$target-" \
        "$work" "$ROOT/Fuzz/Corpus/$target" >".build-fuzz/$target.log" 2>&1; then
        echo "fuzz: $target: $(grep -E '^stat::number_of_executed_units' ".build-fuzz/$target.log" | awk '{print $2}') executions, no crash"
    else
        echo "fuzz: $target FAILED; input in .build-fuzz/artifacts, log in .build-fuzz/$target.log"
        grep -E 'ERROR|Fatal|precondition|Test unit written' ".build-fuzz/$target.log" | head -5 || true
        status=1
    fi
done
exit "$status"
