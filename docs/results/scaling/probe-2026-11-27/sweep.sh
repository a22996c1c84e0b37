# The interleaved runs every probe makes (sourced): each round runs every case on every
# configuration, the configurations' order rotated by one each round. A probe sets
# CFGS ("name|ENV=value ..."), CASES ("name|mote-bench run arguments"), OUT and K (the
# knobs' build), and may redefine `command_for NAME ENVS ARGS`, which prints the command
# line of one run: by default tokio from K, or mote from K with the configuration's
# environment. Each run adds
# `round configuration case RESULT ...` to $OUT/sweep.txt and its stderr (the scheduler's
# counters) to $OUT/sweep_sched.txt.
sweep() {
  local n=${#CFGS[@]} r i cs cname cargs c name envs res
  for r in $(seq 1 "${ROUNDS:-6}"); do
    for cs in "${CASES[@]}"; do
      cname=${cs%%|*}; cargs=${cs#*|}
      for i in $(seq 0 $((n - 1))); do
        c=${CFGS[$(((i + r) % n))]}; name=${c%%|*}; envs=${c#*|}
        # Split on purpose: the command is words.
        # shellcheck disable=SC2046
        res=$(timeout 60 $(command_for "$name" "$envs" "$cargs") 2>"$OUT/err.tmp" | grep ^RESULT)
        echo "$r $name $cname $res" >> "$OUT/sweep.txt"
        { echo "== $r $name $cname"; cat "$OUT/err.tmp"; } >> "$OUT/sweep_sched.txt"
      done
    done
  done
}

command_for() {
  case $1 in
    tokio) echo "$K run $3 --impl tokio";;
    *) echo "env $2 $K run $3 --impl mote --scheduler-stats";;
  esac
}
