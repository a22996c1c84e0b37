#!/bin/bash
# Second scaling probe: how thieves pick victims and how much they take.
D=${D:-$PWD/target/devbins}; K=$D/mb-knobs
HERE=$(dirname "${BASH_SOURCE[0]}")
. "$HERE/sweep.sh"
OUT=${OUT:-/tmp/probe2}; mkdir -p $OUT
SZ=${SZ:-}
CFGS=("base|" "bk4|K_BKMAX_US=4000" "bk15|K_BKMAX_US=15000" "tokio|")
HI=${HI:-16}; LO=${LO:-8}
CASES=("call$HI|--workload call --param callers=10000 --param threads=$HI" "call$LO|--workload call --param callers=10000 --param threads=$LO" "chain$HI|--workload chain --variant int --param threads=$HI $SZ" "sky$HI|--workload skynet --param threads=$HI" "pool$HI|--workload parsum --variant pool --param threads=$HI" "ping$HI|--workload pingpong --param pairs=100 --param threads=$HI")
sweep
echo "done $(date +%T)" >> $OUT/sweep_sched.txt
