#!/bin/bash
# call over worker threads: mote against tokio, 10,000 callers and one.
D=${D:-$PWD/target/devbins}; B=$D/mb-main
OUT=${OUT:-/tmp/probe4}; mkdir -p $OUT
SZ=${SZ:-}
for r in $(seq 1 ${ROUNDS:-4}); do
  for t in ${TS:-1 2 4 8 16}; do
    for c in "10000|--param callers=10000" "1|"; do
      cn=${c%%|*}; ca=${c#*|}
      if [ $((r % 2)) = 0 ]; then o="mote tokio"; else o="tokio mote"; fi
      for imp in $o; do
        st=""; [ $imp = mote ] && st=--scheduler-stats
        res=$(timeout 60 $B run --workload call $ca --param threads=$t $SZ --impl $imp $st 2>$OUT/err.tmp | grep ^RESULT)
        echo "$r $imp c$cn-t$t $res" >> $OUT/sweep.txt
        { echo "== $r $imp c$cn-t$t"; cat $OUT/err.tmp; } >> $OUT/sweep_sched.txt
      done
    done
  done
done
echo "done $(date +%T)" >> $OUT/sweep_sched.txt
