#!/bin/bash
# Scaling probe on a lent machine: scheduler counters, a knob sweep, a flat profile.
D=${D:-$PWD/target/devbins}; K=$D/mb-knobs; M=$D/mb-main
HERE=$(dirname "${BASH_SOURCE[0]}")
. "$HERE/sweep.sh"
OUT=${OUT:-/tmp/probe}; mkdir -p $OUT
SZ=${SZ:-}   # extra params for a quick local test
{ nproc; grep 'model name' /proc/cpuinfo | head -1; uptime; } > $OUT/info.txt
PERF=$(command -v perf || true)
[ -z "$PERF" ] && PERF="env LD_LIBRARY_PATH=$D/lib $D/perf"
$PERF --version >> $OUT/info.txt 2>&1
T=${TS:-"1 2 4 8 16"}
# A: counters per thread count
for t in $T; do for rep in 1 2; do
  timeout 60 $K run --workload chain --variant int --impl mote --param threads=$t $SZ --scheduler-stats >> $OUT/stats.txt 2>&1
  timeout 60 $K run --workload pingpong --impl mote --param threads=$t --param pairs=100 --scheduler-stats >> $OUT/stats.txt 2>&1
done; done
echo "A done $(date +%T)" >> $OUT/info.txt
# C: knob sweep, interleaved, rotating order
CFGS=("base|" "spin0|K_SPIN_US=0" "sp1|K_SPINNERS=1" "sp2|K_SPINNERS=2" "skip|K_SKIP=1" "nobk|K_NOBACKOFF=1" "st1|K_STREAK=1" "skipsp2|K_SKIP=1 K_SPINNERS=2" "main|" "tokio|")
HI=${HI:-16}; LO=${LO:-8}
CASES=("chain$HI|--workload chain --variant int --param threads=$HI $SZ" "chain$LO|--workload chain --variant int --param threads=$LO $SZ" "ping$HI|--workload pingpong --param pairs=100 --param threads=$HI" "sky$HI|--workload skynet --param threads=$HI")
command_for() {
  case $1 in
    main) echo "$M run $3 --impl mote --scheduler-stats";;
    tokio) echo "$K run $3 --impl tokio";;
    *) echo "env $2 $K run $3 --impl mote --scheduler-stats";;
  esac
}
sweep
echo "C done $(date +%T)" >> $OUT/info.txt
# B: flat profiles at the highest count
for w in "chain|--workload chain --variant int --param threads=$HI $SZ" "ping|--workload pingpong --param pairs=100 --param threads=$HI"; do
  wn=${w%%|*}; wa=${w#*|}
  timeout 60 $PERF record -F 2999 -o $OUT/p.data -- $K run $wa --impl mote > /dev/null 2>>$OUT/perf_err.txt
  timeout 90 $PERF report -i $OUT/p.data --stdio --sort sym --percent-limit 0.3 2>>$OUT/perf_err.txt | head -120 > $OUT/perf_$wn.txt
  timeout 90 $PERF report -i $OUT/p.data --stdio --sort comm --percent-limit 0.3 2>>$OUT/perf_err.txt | head -40 > $OUT/perfcomm_$wn.txt
  rm -f $OUT/p.data
  for imp in mote tokio; do
    timeout 60 $PERF stat -e task-clock,context-switches,cpu-migrations,page-faults -- $K run $wa --impl $imp >> $OUT/perfstat.txt 2>&1
  done
done
echo "B done $(date +%T)" >> $OUT/info.txt
