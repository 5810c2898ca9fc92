#!/usr/bin/env python3
"""Plot bench/results/throughput-*.json: instance-steps/s against batch size,
one line per backend, log-log. Writes the PNG next to the JSON file.

    python3 bench/plot_throughput.py bench/results/throughput-<device>.json
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path):
    with open(path) as f:
        data = json.load(f)
    series = {}
    for r in data["results"]:
        if r.get("skipped"):
            continue
        series.setdefault(r["backend"], []).append((r["instances"], r["instance_steps_per_s"]))
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=150)
    for name, pts in series.items():
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size [instances]")
    ax.set_ylabel("instance-steps per second")
    w = data["workload"]
    ax.set_title(f"hydrosweep throughput, {w['model']}, {w['precision']}, dt = {w['dt_s'] * 1e3:g} ms\n{data.get('device', '')}",
                 fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    out = os.path.splitext(path)[0] + ".png"
    fig.savefig(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
