#!/bin/bash
# Second scaling probe: how thieves pick victims and how much they take.
D=${D:-$PWD/target/devbins}; K=$D/mb-knobs
HERE=$(dirname "${BASH_SOURCE[0]}")
. "$HERE/sweep.sh"
OUT=${OUT:-/tmp/probe2}; mkdir -p $OUT
SZ=${SZ:-}
CFGS=("base|" "lim1|K_LIMIT=1" "lim4|K_LIMIT=4" "lim8|K_LIMIT=8" "lim64|K_LIMIT=64" "randv|K_RANDV=1" "randv8|K_RANDV=1 K_LIMIT=8" "nobk|K_NOBACKOFF=1" "nobkrv|K_NOBACKOFF=1 K_RANDV=1" "tokio|")
HI=${HI:-16}; LO=${LO:-8}
CASES=("chain$HI|--workload chain --variant int --param threads=$HI $SZ" "chain$LO|--workload chain --variant int --param threads=$LO $SZ" "ping$HI|--workload pingpong --param pairs=100 --param threads=$HI" "sky$HI|--workload skynet --param threads=$HI")
sweep
echo "done $(date +%T)" >> $OUT/sweep_sched.txt
