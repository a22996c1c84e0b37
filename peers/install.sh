#!/usr/bin/env bash
# Installs what the benchmark peers need and builds them: the Go binary, the
# Clojure peer's AOT-compiled classes and the Pekko peer's jar.
#
#   bash peers/install.sh
#
# Meant for a fresh Debian 12 machine, run as root, non-interactive (CI=true,
# no stdin). Idempotent: installs only what is missing, rebuilds the peers
# every time. A toolchain that cannot be had is reported with a NOTE on
# stderr and skipped; this script always exits 0 so it never fails its caller.

set -u

PEERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export DEBIAN_FRONTEND=noninteractive

note() { echo "install.sh: NOTE: $*" >&2; }
info() { echo "install.sh: $*" >&2; }

SUDO=
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; fi
fi

APT_UPDATED=0
apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        note "apt-get not available; cannot install $*"
        return 1
    fi
    if [ "$APT_UPDATED" = 0 ]; then
        $SUDO apt-get -o DPkg::Lock::Timeout=300 update </dev/null >&2 || note "apt-get update failed"
        APT_UPDATED=1
    fi
    $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y "$@" </dev/null >&2
}

# --- Elixir / Erlang -------------------------------------------------------
if command -v elixir >/dev/null 2>&1 && command -v erl >/dev/null 2>&1; then
    info "elixir present: $(elixir --version 2>/dev/null | tail -n 1)"
else
    info "installing elixir and erlang-base"
    if ! apt_install elixir erlang-base; then
        note "could not install elixir/erlang-base; the elixir peer will be unavailable"
    fi
    command -v elixir >/dev/null 2>&1 || note "elixir still not on PATH; the elixir peer is skipped"
fi

# --- Go --------------------------------------------------------------------
find_go() {
    local g
    if g=$(command -v go 2>/dev/null); then echo "$g"; return 0; fi
    for g in /usr/local/go/bin/go /usr/lib/go/bin/go /usr/lib/go-*/bin/go; do
        if [ -x "$g" ]; then echo "$g"; return 0; fi
    done
    return 1
}

GO=$(find_go) || GO=
if [ -z "$GO" ]; then
    info "go not found; installing golang-go"
    apt_install golang-go || note "could not install golang-go"
    GO=$(find_go) || GO=
fi

build_go() {
    if [ -z "$GO" ]; then
        note "no Go toolchain; the go peer (peers/go/mote-peer-go) is not built"
        return
    fi
    # A root shell in CI may have no HOME; go build needs a cache directory.
    if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then
        export GOCACHE=/tmp/mote-peer-gocache
    fi
    # Standard library only: never fetch modules or toolchains.
    export GOTOOLCHAIN=local GOPROXY=off

    info "building peers/go/mote-peer-go with $("$GO" version 2>/dev/null)"
    if (cd "$PEERS_DIR/go" && "$GO" build -o mote-peer-go .) >&2; then
        info "built $PEERS_DIR/go/mote-peer-go"
    else
        note "go build failed; the go peer is unavailable"
    fi
}
build_go

# --- JVM: Java 17 and Maven (the Pekko peer), Clojure and core.async ------
# javac is needed for Maven, so a JDK, not just a JRE.
if command -v javac >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then
    info "java present: $(java -version 2>&1 | head -n 1); $(mvn -v 2>/dev/null | head -n 1)"
else
    info "installing default-jdk-headless and maven"
    apt_install default-jdk-headless maven || note "could not install default-jdk-headless/maven"
fi
if [ -f /usr/share/java/clojure.jar ] && [ -f /usr/share/java/core.async.jar ]; then
    info "clojure and core.async present in /usr/share/java"
else
    info "installing clojure and libcore-async-clojure"
    apt_install clojure libcore-async-clojure || note "could not install clojure/libcore-async-clojure"
fi

# --- Clojure peer: AOT compile (start-up of ~20 s from source, ~2 s compiled)
if ! command -v java >/dev/null 2>&1; then
    note "no java; the clojure peer is not built"
elif bash "$PEERS_DIR/clojure/build.sh" >/dev/null; then
    info "built $PEERS_DIR/clojure/classes"
else
    note "the clojure peer's build failed; it is unavailable"
fi

# --- Pekko peer: one shaded jar ---------------------------------------------
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    note "no maven/javac; the pekko peer (peers/pekko) is not built"
elif (cd "$PEERS_DIR/pekko" && mvn -q -B -Dstyle.color=never package) >&2; then
    info "built $PEERS_DIR/pekko/target/mote-peer-pekko.jar"
else
    note "mvn package failed (Maven Central unreachable?); the pekko peer is unavailable"
fi
exit 0
