#!/usr/bin/env bash
# Runs `swift test` with the given arguments, keeping the whole output in
# .build/test-output.log. CI shows only the end of a run's output, so when
# the run fails this repeats what explains it last: the crashed thread's
# backtrace, if the test process crashed, the failed tests, and the fatal
# error message.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .build
log=.build/test-output.log
# Crash reports without registers and image lists: frames are what help.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,interactive=no,color=no,registers=none,images=none}"
${SWIFT:-swift} test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "==== why the tests failed (whole output: $log) ===="
    awk '/ crashed:$/ { show = 1; lines = 0 } show { print; if (++lines > 25) show = 0 }' "$log"
    grep -E "✘ Test .*(recorded an issue|failed)|error: Process|Caught error" "$log" | tail -12
    grep -E "Fatal error|Program crashed" "$log" | tail -3
fi
exit "$status"
