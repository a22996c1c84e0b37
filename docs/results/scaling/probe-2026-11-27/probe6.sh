#!/bin/bash
# The thief's longest wait scaled by its peers: before (base), after (new), half (half), tokio.
D=${D:-$PWD/target/devbins}
HERE=$(dirname "${BASH_SOURCE[0]}")
. "$HERE/sweep.sh"
OUT=${OUT:-/tmp/probe6}; mkdir -p $OUT
SZ=${SZ:-}
CFGS=("base|" "new|" "half|" "tokio|")
ROUNDS=${ROUNDS:-5}
HI=${HI:-16}; LO=${LO:-8}; MID=${MID:-4}
CASES=("call$HI|--workload call --param callers=10000 --param threads=$HI" "call$LO|--workload call --param callers=10000 --param threads=$LO" "call$MID|--workload call --param callers=10000 --param threads=$MID" "chain$HI|--workload chain --variant int --param threads=$HI $SZ" "chain$LO|--workload chain --variant int --param threads=$LO $SZ" "sky$HI|--workload skynet --param threads=$HI" "pool$HI|--workload parsum --variant pool --param threads=$HI" "ping$HI|--workload pingpong --param pairs=100 --param threads=$HI")
command_for() {
  case $1 in
    tokio) echo "$D/mb-base run $3 --impl tokio";;
    *) echo "$D/mb-$1 run $3 --impl mote --scheduler-stats";;
  esac
}
sweep
echo "done $(date +%T)" >> $OUT/sweep_sched.txt
