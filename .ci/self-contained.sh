#!/usr/bin/env bash
# The repository explains itself: no file may cite a path outside the repository, a
# write-up by an internal number, an issue tracker entry, or a conformance case whose text
# is not in mote/tests/conformance/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
files=$(git ls-files | grep -vE '^(Cargo\.lock|\.ci/self-contained\.sh)$|\.(svg|json|html|png)$')

check() { # pattern, what
  local hits
  hits=$(grep -nE "$1" $files 2>/dev/null || true)
  if [ -n "$hits" ]; then
    echo "self-contained: $2:"; echo "$hits" | head -20; status=1
  fi
}
check '\.\./shared|shared/(reference|seeds)/' "a path outside the repository"
check '[Ss]eeds? ?0[0-9]{2}\b|\bseed (000|001|002|003|004)\b' "a write-up cited by number"
check '\b[Ii]ssue #?[0-9]+\b|\bthe issue text\b' "an issue cited"

# Every case id cited must have its text in the conformance README.
readme=mote/tests/conformance/README.md
for id in $(grep -ohE '\bP[0-9]{2}\b' $files | sort -u); do
  grep -q "\*\*$id-" "$readme" || { echo "self-contained: case $id is cited but not described in $readme"; status=1; }
done
[ "$status" -eq 0 ] && echo "self-contained: ok"
exit "$status"
