#!/bin/bash
# Second scaling probe: how thieves pick victims and how much they take.
D=${D:-$PWD/target/devbins}; K=$D/mb-knobs
HERE=$(dirname "${BASH_SOURCE[0]}")
. "$HERE/sweep.sh"
OUT=${OUT:-/tmp/probe2}; mkdir -p $OUT
SZ=${SZ:-}
ROUNDS=${ROUNDS:-7}
CFGS=("base|" "randv|K_RANDV=1" "vj|K_VJ=1" "vjrv|K_VJ=1 K_RANDV=1" "nobkrv|K_NOBACKOFF=1 K_RANDV=1" "tokio|")
HI=${HI:-16}; LO=${LO:-8}
CASES=("chain$HI|--workload chain --variant int --param threads=$HI $SZ" "chain$LO|--workload chain --variant int --param threads=$LO $SZ" "ping$HI|--workload pingpong --param pairs=100 --param threads=$HI" "sky$HI|--workload skynet --param threads=$HI" "call$HI|--workload call --param callers=10000 --param threads=$HI" "pool$HI|--workload parsum --variant pool --param threads=$HI")
sweep
echo "done $(date +%T)" >> $OUT/sweep_sched.txt
