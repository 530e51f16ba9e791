#!/usr/bin/env bash
# Runs `swift test` with the given arguments, keeping the whole output in
# .build/test-output.log. CI shows only the end of a run's output, so when
# the run fails this repeats what explains it last: the crashed thread's
# backtrace, if the test process crashed, the failed tests, and the fatal
# error message.
#
# A hung test must fail the run with a diagnosis, not use up CI's time: when
# the tests take longer than INTENT_TEST_TIMEOUT seconds (default 1200; a
# whole run takes about a minute), this prints the tests that started and
# never finished and every thread's stack of the test process (gdb), then
# stops the run and exits 124. A test process that crashed and has not exited
# INTENT_TEST_CRASH_GRACE seconds later (default 120) is stopped the same way.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .build
log=.build/test-output.log
timeout_seconds="${INTENT_TEST_TIMEOUT:-1200}"
# Crash reports without registers and image lists: frames are what help.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,interactive=no,color=no,registers=none,images=none}"

# Every process below `$1`, deepest last.
descendants() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        echo "$child"
        descendants "$child"
    done
}

# Tests and suites with a "started" line and no "passed" or "failed" line.
unfinished() {
    awk '
        /^◇ (Test|Suite) .* started\.$/ && !/^◇ Test case / {
            name = $0; sub(/^◇ /, "", name); sub(/ started\.$/, "", name)
            open[name] = 1; order[++n] = name
        }
        /^(✔|✘) (Test|Suite) / {
            name = $0; sub(/^(✔|✘) /, "", name)
            sub(/ (with [0-9]+ test cases? )?(passed|failed).*$/, "", name)
            delete open[name]
        }
        END { for (i = 1; i <= n; i++) if (order[i] in open) { print "  " order[i]; delete open[order[i]] } }
    ' "$log"
}

report_hang_and_stop() {
    local runner=$1 pid
    touch .build/test-timed-out
    echo
    echo "==== the tests did not finish (limit ${timeout_seconds} s, or a crash above): stopping them ===="
    echo "started and never finished:"
    unfinished
    for pid in $(descendants "$runner"); do
        case "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" in
            *.xctest* | *swiftpm-testing-helper*)
                echo "==== threads of $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-120) (pid $pid) ===="
                if command -v gdb >/dev/null; then
                    timeout 120 gdb -p "$pid" -batch -nx -ex "set pagination off" \
                        -ex "thread apply all bt 25" 2>/dev/null |
                        grep -E '^(Thread|#)' | head -400
                fi
                ;;
        esac
    done
    for pid in $(descendants "$runner") "$runner"; do
        kill -KILL "$pid" 2>/dev/null
    done
}

export INTENT_TEST_RUN="$$-$RANDOM-$(date +%s)"
# The files the tests make (worker logs, key files, stores) go under one
# directory per run (INTENT_TEST_FILES, read by the tests' `testFileURL`):
# removed when the run passes, kept and named when it fails. A kept one goes
# at the next run, unless the run that made it (its pid is in the name) is
# still going. TMPDIR itself is left alone: SwiftPM keeps its build locks
# there, and a run must still hold off a concurrent `swift build`.
files_root="${TMPDIR:-/tmp}/intent-tests-$(id -u)"
mkdir -p "$files_root" 2>/dev/null
# A predictable name in a shared directory: used only if it is this user's own directory
# (not a link, not another user's), else the run's files go to a directory of its own.
if [ -d "$files_root" ] && [ ! -L "$files_root" ] && [ -O "$files_root" ] && chmod 700 "$files_root"; then
    :
else
    files_root="$(mktemp -d "${TMPDIR:-/tmp}/intent-tests.XXXXXXXX")"
fi
for earlier in "$files_root"/run-*; do
    [ -d "$earlier" ] || continue
    earlier_pid=${earlier##*/run-}
    earlier_pid=${earlier_pid%%-*}
    kill -0 "$earlier_pid" 2>/dev/null || rm -rf "$earlier"
done
export INTENT_TEST_FILES="$files_root/run-$$-$RANDOM"
mkdir -p "$INTENT_TEST_FILES"
# Line-buffered, so the log ends where the tests are, even when they hang.
stdbuf -oL -eL ${SWIFT:-swift} test "$@" > >(tee "$log") 2>&1 &
runner=$!
rm -f .build/test-timed-out
# A test process that crashed can hang too, in the crash handler (seen: Swift's
# backtracer after librdkafka's abort, "failed to suspend thread" then nothing),
# so a crash is given crash_grace_seconds to end the run before it is stopped too.
crash_grace_seconds="${INTENT_TEST_CRASH_GRACE:-120}"
# What a crash prints: an abort in C (librdkafka's "*** file:line: assert: ..."),
# Swift's crash report, or a Swift runtime trap ("file:line: Fatal error: ...").
crash_pattern='^\*\*\* .*assert|Program crashed|: Fatal error:'
(
    started=$SECONDS
    crashed_at=
    while kill -0 "$runner" 2>/dev/null; do
        sleep 5
        if [ -z "$crashed_at" ] && grep -qE "$crash_pattern" "$log" 2>/dev/null; then
            crashed_at=$SECONDS
        fi
        if ((SECONDS - started >= timeout_seconds)) ||
            { [ -n "$crashed_at" ] && ((SECONDS - crashed_at >= crash_grace_seconds)); }; then
            [ -n "$crashed_at" ] && echo && echo "==== a test process crashed and did not exit within ${crash_grace_seconds} s ===="
            kill -0 "$runner" 2>/dev/null && report_hang_and_stop "$runner"
            break
        fi
    done
) &
watchdog=$!
wait "$runner"
status=$?
# The watchdog's sleep too: an orphan would hold CI's output open.
for pid in $(descendants "$watchdog") "$watchdog"; do
    kill "$pid" 2>/dev/null
done
wait "$watchdog" 2>/dev/null
# Let tee write the last of the output before the summary.
wait 2>/dev/null
# A test process that crashed or was stopped leaves its brokers and worker
# processes behind (init adopts them): stop what this run started, known by
# the marker every child inherits, so nothing holds ports or eats the next
# run's CPU. A broker a user started by hand has no marker and is left alone.
for environ in /proc/[0-9]*/environ; do
    if grep -qz "^INTENT_TEST_RUN=$INTENT_TEST_RUN\$" "$environ" 2>/dev/null; then
        pid=${environ#/proc/}
        pid=${pid%/environ}
        echo "stopping a process the tests left behind: $(tr '\0' ' ' <"/proc/$pid/cmdline" | cut -c1-100)"
        kill -KILL "$pid" 2>/dev/null
    fi
done
if [ -e .build/test-timed-out ]; then
    rm -f .build/test-timed-out
    echo "the tests' files (workers' logs, keys, stores): $INTENT_TEST_FILES"
    exit 124
fi
if [ "$status" -eq 0 ]; then
    rm -rf "$INTENT_TEST_FILES"
    rmdir "$files_root" 2>/dev/null # when no other run's files are in it
else
    echo
    echo "==== why the tests failed (whole output: $log; the tests' files: $INTENT_TEST_FILES) ===="
    awk '/ crashed:$/ { show = 1; lines = 0 } show { print; if (++lines > 25) show = 0 }' "$log"
    grep -E "✘ Test .*(recorded an issue|failed)|error: Process|Caught error" "$log" | tail -12
    grep -E "$crash_pattern" "$log" | tail -3
fi
exit "$status"
