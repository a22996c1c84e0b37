#!/bin/bash
# The thief's longest wait scaled by its peers: before (base), after (new), half (half), tokio.
D=${D:-$PWD/target/devbins}
OUT=${OUT:-/tmp/probe6}; mkdir -p $OUT
SZ=${SZ:-}
CFGS=(base new half tokio)
HI=${HI:-16}; LO=${LO:-8}; MID=${MID:-4}
CASES=("call$HI|--workload call --param callers=10000 --param threads=$HI" "call$LO|--workload call --param callers=10000 --param threads=$LO" "call$MID|--workload call --param callers=10000 --param threads=$MID" "chain$HI|--workload chain --variant int --param threads=$HI $SZ" "chain$LO|--workload chain --variant int --param threads=$LO $SZ" "sky$HI|--workload skynet --param threads=$HI" "pool$HI|--workload parsum --variant pool --param threads=$HI" "ping$HI|--workload pingpong --param pairs=100 --param threads=$HI")
n=${#CFGS[@]}
for r in $(seq 1 ${ROUNDS:-5}); do
  for cs in "${CASES[@]}"; do
    cname=${cs%%|*}; cargs=${cs#*|}
    for i in $(seq 0 $((n-1))); do
      name=${CFGS[$(( (i + r) % n ))]}
      case $name in
        tokio) cmd="$D/mb-base run $cargs --impl tokio";;
        *) cmd="$D/mb-$name run $cargs --impl mote --scheduler-stats";;
      esac
      res=$(timeout 60 $cmd 2>$OUT/err.tmp | grep ^RESULT)
      echo "$r $name $cname $res" >> $OUT/sweep.txt
      { echo "== $r $name $cname"; cat $OUT/err.tmp; } >> $OUT/sweep_sched.txt
    done
  done
done
echo "done $(date +%T)" >> $OUT/sweep_sched.txt
