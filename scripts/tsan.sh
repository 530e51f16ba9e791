#!/usr/bin/env bash
# The Kafka tests under ThreadSanitizer (`make tsan`): every client call racing
# a close, consumer groups rebalancing, producers replaced after fatal errors.
#
# librdkafka is built a second time for this, with POSIX threads
# (--disable-c11threads): ThreadSanitizer intercepts pthread_create but not
# glibc's C11 thrd_create, and a librdkafka thread it does not know about
# crashes inside its allocator before any test runs. The build goes to
# .deps/librdkafka-tsan and the Swift build to .build-tsan; both are reused.
# Reports that only Synchronization.Mutex's invisible lock causes are
# suppressed, one named type each (Tests/tsan-suppressions.txt).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
PREFIX="$ROOT/.deps/librdkafka-tsan"
TARBALL="$(ls "$ROOT"/.deps/src/librdkafka_*.orig.tar.gz 2>/dev/null | head -n1 || true)"
if [ ! -f "$PREFIX/lib/librdkafka.a" ]; then
    [ -n "$TARBALL" ] || { echo "tsan: no librdkafka source in .deps/src (make setup keeps it when it builds librdkafka; the system one was used here)" >&2; exit 2; }
    echo "tsan: building librdkafka with POSIX threads into $PREFIX (log: .deps/librdkafka-tsan-build.log)"
    work="$(mktemp -d)"
    tar xzf "$TARBALL" -C "$work"
    (
        cd "$work"/librdkafka-*
        ./configure --prefix="$PREFIX" --disable-curl --disable-gssapi --disable-c11threads
        make -j"$(nproc)" libs
        make -C src install
    ) >"$ROOT/.deps/librdkafka-tsan-build.log" 2>&1
    rm -rf "$work"
    pcdir="$PREFIX/lib/pkgconfig"
    # Static, with the private libraries folded in, as scripts/setup.sh does for the main build.
    libs="$(PKG_CONFIG_PATH="$pcdir" pkg-config --static --libs rdkafka | tr ' ' '\n' |
        grep -E '^-(L|l)' | tac | awk '!seen[$0]++' | tac | tr '\n' ' ')"
    rm -f "$PREFIX"/lib/librdkafka*.so* "$PREFIX"/lib/librdkafka-static.a "$pcdir"/rdkafka-static.pc
    sed -i -E -e "s|^Libs:.*|Libs: $libs|" -e '/^(Libs\.private|Requires\.private):/d' "$pcdir/rdkafka.pc"
fi
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
export INTENT_TANSU_BIN="${INTENT_TANSU_BIN:-$ROOT/.venv/bin/tansu}"
export INTENT_PYTHON="${INTENT_PYTHON:-$ROOT/.venv/bin/python}"
export TSAN_OPTIONS="suppressions=$ROOT/Tests/tsan-suppressions.txt ${TSAN_OPTIONS:-}"
${SWIFT:-swift} build --build-tests --sanitize=thread --scratch-path .build-tsan
log=.build-tsan/tsan-test-output.log
${SWIFT:-swift} test --skip-build --sanitize=thread --scratch-path .build-tsan --filter KafkaTests 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
warnings=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "tsan: $warnings ThreadSanitizer report(s); tests exited $status"
[ "$status" -eq 0 ] && [ "$warnings" -eq 0 ]
