#!/bin/bash
# Second scaling probe: how thieves pick victims and how much they take.
D=${D:-$PWD/target/devbins}; K=$D/mb-knobs
OUT=${OUT:-/tmp/probe2}; mkdir -p $OUT
SZ=${SZ:-}
CFGS=("base|" "randv|K_RANDV=1" "vj|K_VJ=1" "vjrv|K_VJ=1 K_RANDV=1" "nobkrv|K_NOBACKOFF=1 K_RANDV=1" "tokio|")
HI=${HI:-16}; LO=${LO:-8}
CASES=("chain$HI|--workload chain --variant int --param threads=$HI $SZ" "chain$LO|--workload chain --variant int --param threads=$LO $SZ" "ping$HI|--workload pingpong --param pairs=100 --param threads=$HI" "sky$HI|--workload skynet --param threads=$HI" "call$HI|--workload call --param callers=10000 --param threads=$HI" "pool$HI|--workload parsum --variant pool --param threads=$HI")
n=${#CFGS[@]}
for r in $(seq 1 ${ROUNDS:-7}); do
  for cs in "${CASES[@]}"; do
    cname=${cs%%|*}; cargs=${cs#*|}
    for i in $(seq 0 $((n-1))); do
      c=${CFGS[$(( (i + r) % n ))]}; name=${c%%|*}; envs=${c#*|}
      case $name in
        tokio) cmd="$K run $cargs --impl tokio";;
        *) cmd="env $envs $K run $cargs --impl mote --scheduler-stats";;
      esac
      res=$(timeout 60 $cmd 2>$OUT/err.tmp | grep ^RESULT)
      echo "$r $name $cname $res" >> $OUT/sweep.txt
      { echo "== $r $name $cname"; cat $OUT/err.tmp; } >> $OUT/sweep_sched.txt
    done
  done
done
echo "done $(date +%T)" >> $OUT/sweep_sched.txt
