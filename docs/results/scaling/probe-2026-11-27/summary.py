"""Medians per configuration and case of a probe's sweep.txt, as ratios to `base`.

    python3 summary.py 6-before-after/sweep.txt
"""
import collections
import re
import statistics as st
import sys

times = collections.defaultdict(list)
cfgs, cases = [], []
for line in open(sys.argv[1]):
    fields = line.split()
    m = re.search(r"wall_ms=([\d.]+)", line)
    if not m:
        print("no result:", line.strip())
        continue
    cfg, case = fields[1], fields[2]
    times[(case, cfg)].append(float(m.group(1)))
    cfgs += [cfg] if cfg not in cfgs else []
    cases += [case] if case not in cases else []
base = "base" if "base" in cfgs else cfgs[0]
print("| config | " + " | ".join(cases) + " |")
print("|---" * (len(cases) + 1) + "|")
for cfg in [base] + [c for c in cfgs if c != base]:
    cells = []
    for case in cases:
        v = times[(case, cfg)]
        if not v or not times[(case, base)]:
            cells.append("-")
            continue
        med = st.median(v)
        cells.append(f"{med:.0f} ms ({med / st.median(times[(case, base)]):.2f})")
    print(f"| {cfg} | " + " | ".join(cells) + " |")
