#!/usr/bin/env bash
# Smoke test of the JVM peers (Clojure, Pekko): runs every workload each implementation has
# at the contract's --quick sizes and checks its RESULT line (bench, impl, variant, the
# params in table order, wall_ms), and checks that a workload an implementation lacks is
# answered with exit status 3 and a SKIP line.
#
#   bash peers/jvm-smoke.sh            # both peers
#   bash peers/jvm-smoke.sh pekko      # one peer: clojure or pekko
#
# A peer that is not built is reported with a NOTE and left out. Exits 1 when any check
# fails, else 0. Takes about 3 minutes on 2 cores (JVM start-up dominates).

set -u
PEERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLOJURE="$PEERS_DIR/clojure/mote-peer-clojure"
PEKKO="$PEERS_DIR/pekko/mote-peer-pekko"

# workload, variants ("-" when none), the --quick params in table order
SCENARIOS=(
    "chain|int list20|m=1000 n=1000"
    "million|-|k=20000"
    "spawn|-|k=20000"
    "pingpong|-|r=20000"
    "ring|-|t=100000 p=503"
    "skynet|-|l=10000"
    "fanin|-|s=10 n=100000"
    "call|-|r=20000"
    "parsum|serial spawn pool|r=100000 reps=10"
    "copy|seq par|n=100000 r=2"
    "workers|serial master_slave push steal|w=2 n=5000"
)

# What each implementation has (README.md's table): prints "run" or "skip".
expected() {
    local impl=$1 w=$2 v=$3
    case "$impl" in
        pekko | clojure_async) echo run ;;
        clojure_agents | clojure_agents_tuned)
            case "$w" in chain | ring) echo run ;; *) echo skip ;; esac ;;
        clojure_async_buffered)
            case "$w/$v" in chain/* | fanin/- | workers/push) echo run ;; *) echo skip ;; esac ;;
    esac
}

ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT

PASS=0
FAIL=0
SKIPPED=0
fail() { echo "FAIL $*" >&2; FAIL=$((FAIL + 1)); }

# check IMPL W V PARAMS CMD...: runs one scenario and judges it.
check() {
    local impl=$1 w=$2 v=$3 params=$4
    shift 4
    local want out rc
    want=$(expected "$impl" "$w" "$v")
    # shellcheck disable=SC2086 # params are k=v words
    out=$("$@" "$w" "$v" $params 2>"$ERR")
    rc=$?
    if [ "$want" = skip ]; then
        if [ $rc = 3 ] && [[ "$out" == SKIP\ * ]]; then
            SKIPPED=$((SKIPPED + 1))
        else
            fail "$impl $w $v: want exit 3 and a SKIP line, got exit $rc: $out"
        fi
        return
    fi
    local prefix="RESULT bench=$w impl=$impl variant=$v $params "
    if [ $rc != 0 ]; then
        fail "$impl $w $v: exit $rc: $(tail -n 3 "$ERR" | tr '\n' ' ')"
    elif [ "$(printf '%s\n' "$out" | grep -c '^RESULT ')" != 1 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ]; then
        fail "$impl $w $v: stdout is not exactly one RESULT line: $out"
    elif [[ "$out" != "$prefix"* ]] || ! [[ "$out" =~ \ wall_ms=[0-9]+\.[0-9]+ ]]; then
        fail "$impl $w $v: RESULT line does not start with '$prefix' or lacks wall_ms: $out"
    elif [ "$w" = million ] && ! [[ "$out" =~ \ spawn_ms=[0-9]+\.[0-9]+ ]]; then
        fail "$impl $w $v: million's RESULT line lacks spawn_ms: $out"
    else
        echo "ok   $out"
        PASS=$((PASS + 1))
    fi
}

# run_impl IMPL CMD...: every scenario; where the implementation lacks a workload only the
# first such scenario is run (to check the skip), since each run costs a JVM start.
run_impl() {
    local impl=$1
    shift
    local entry w vs params v checked_skip=0
    for entry in "${SCENARIOS[@]}"; do
        IFS='|' read -r w vs params <<<"$entry"
        for v in $vs; do
            if [ "$(expected "$impl" "$w" "$v")" = skip ]; then
                [ $checked_skip = 1 ] && continue
                checked_skip=1
            fi
            check "$impl" "$w" "$v" "$params" "$@"
        done
    done
}


if [ -z "${1:-}" ] || [ "$1" = clojure ]; then
    if [ -d "$PEERS_DIR/clojure/classes/mote_peer" ] && command -v java >/dev/null; then
        for impl in clojure_agents clojure_agents_tuned clojure_async clojure_async_buffered; do
            run_impl "$impl" "$CLOJURE" "$impl"
        done
    else
        echo "jvm-smoke.sh: NOTE: the Clojure peer is not built (bash peers/install.sh); left out" >&2
    fi
fi
if [ -z "${1:-}" ] || [ "$1" = pekko ]; then
    if [ -f "$PEERS_DIR/pekko/target/mote-peer-pekko.jar" ] && command -v java >/dev/null; then
        run_impl pekko "$PEKKO"
    else
        echo "jvm-smoke.sh: NOTE: the Pekko peer is not built (bash peers/install.sh); left out" >&2
    fi
fi

echo "jvm-smoke.sh: $PASS passed, $SKIPPED skips checked, $FAIL failed" >&2
[ $FAIL = 0 ]
