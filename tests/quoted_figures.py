#!/usr/bin/env python3
"""Figures the docs quote from a study, checked against the binary (docs/physics-checks.md §6).

    quoted_figures.py HYDROSWEEP ROOT              run the studies, check every quoted figure in ROOT's docs
    quoted_figures.py HYDROSWEEP ROOT --self-test  the same, then plant a stale number in a copy of each
                                                   quoting file and require the check to fail on it

A quoted figure matches when it equals the computed value to the digits it is written with (|x - q| <= half a unit
of its last digit). The README's main-command summary is compared line by line with what
studies/quickstart_summary.py prints for fresh runs of the two studies, wall times and thread counts aside. Every
mismatch prints the file, what it quotes and what the binary gives now; exit status 1 on any.
"""
import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def run(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit(f"quoted_figures: {' '.join(map(str, cmd))} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r.stdout


def summary_rows(out_dir):
    with open(Path(out_dir) / "summary.csv") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def matches(quoted, value):
    """Whether the number written as `quoted` (a string, 61.8 or 4.5e-3) is `value` to the digits written."""
    mantissa, _, exponent = quoted.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    unit = 10.0 ** (int(exponent) if exponent else 0)
    return abs(float(quoted) - value) <= 0.5 * 10.0 ** (-decimals) * unit + 1e-12 * unit


def flat(text):
    return re.sub(r"\s+", " ", text)


# ---- what the binary gives now --------------------------------------------------

def compute(exe, root, work):
    """Runs the studies the quoted figures come from; returns what the checks compare."""
    root, work = Path(root), Path(work)
    got = {}
    # The main command's two studies and their summary (scripts/run_default.sh steps 2 and 3).
    mc, smap = work / "monte_carlo", work / "stability_map"
    run([exe, "run", root / "studies/quickstart_monte_carlo.toml", "--out", mc, "--progress", "none"])
    run([exe, "stability", root / "studies/stability_manipulator.toml", "--out", smap])
    sys.path.insert(0, str(root / "studies"))
    import quickstart_summary  # noqa: E402  (the main command's own summary printer)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        quickstart_summary.monte_carlo(mc)
        quickstart_summary.stability_map(smap)
    got["summary"] = buf.getvalue().splitlines()
    # The manipulator under a payload it does not know (docs/models/manipulator.md §11.6).
    pm = work / "payload_mismatch"
    run([exe, "run", root / "studies/manipulator_payload_mismatch.toml", "--out", pm, "--progress", "none"])
    rms = {}
    for r in summary_rows(pm):
        key = (float(r["payload.mass"]), float(r["controller.joint_gain"]), float(r["controller.velocity_gain"]))
        rms[key] = float(r["tcp_error_rms"]) * 1e3  # mm
    got["payload_mismatch_mm"] = rms
    # Seed 001's Newton statistics (studies/seed001_compare.py, docs/seeds.md §2).
    s1 = work / "seed001"
    run([sys.executable, root / "studies/seed001_compare.py", "--hydrosweep", exe, "--out", s1])
    got["seed001"] = json.loads((s1 / "seed001_compare.json").read_text())["mechanisms"]
    # Seed 002's work cycle in the penalty formulation, the seed's (docs/models/hydraulics.md §15).
    cycle = (root / "studies/seed002_work_cycle.toml").read_text()
    penalty = cycle.replace('formulation = "double-step"', 'formulation = "penalty"')
    if penalty == cycle:
        raise SystemExit("quoted_figures: studies/seed002_work_cycle.toml no longer names its formulation")
    (work / "seed002_penalty.toml").write_text(penalty)
    s2 = work / "seed002_penalty"
    run([exe, "run", work / "seed002_penalty.toml", "--out", s2, "--progress", "none"])
    got["seed002_penalty"] = {k: float(v) for k, v in summary_rows(s2)[0].items()
                              if k in ("max_cylinder_work", "peak_energy_drift")}
    return got


# ---- the checks -------------------------------------------------------------------

def normalized(line):
    line = re.sub(r" in [0-9.]+ s:", " in T s:", line)            # wall time of the stability map
    line = re.sub(r"\((\d+) threads?\)", "(N threads)", line)     # the machine's cores
    return line.rstrip()


def check_readme_summary(root, got):
    text = (Path(root) / "README.md").read_text()
    block = text.split("The summary it printed", 1)[1].split("```", 2)[1]
    printed = {normalized(l) for l in got["summary"]}
    problems = []
    quoted = [l for l in block.splitlines() if l.startswith("   ") and not l.startswith("   plot")]
    for line in quoted:
        if normalized(line) not in printed:
            problems.append(f"README.md: the main command's summary quotes\n    {line.strip()}\n  which the binary "
                            f"no longer prints; it prints:\n    " + "\n    ".join(l.strip() for l in got["summary"]))
    if not quoted:
        problems.append("README.md: no summary lines found after 'The summary it printed'")
    return len(quoted), problems


def check_manipulator(root, got):
    path = "docs/models/manipulator.md"
    text = flat((Path(root) / path).read_text())
    m = re.search(r"a 200 kg plant against the 100 kg model tracks with ([0-9.]+) mm RMS error, with λ = 10 and "
                  r"K_A = diag\(5e4, 5e4, 5e4\) with ([0-9.]+) mm; the exact-model instances \(100 kg\) with "
                  r"([0-9.]+) mm and ([0-9.]+) mm RMS", text)
    if not m:
        return 0, [f"{path}: the payload-mismatch sentence (§11.6) is not there to check"]
    rms = got["payload_mismatch_mm"]
    expected = [(m.group(1), rms[(200.0, 3.0, 5.0)], "200 kg, lambda 3, K_A 5"),
                (m.group(2), rms[(200.0, 10.0, 5e4)], "200 kg, lambda 10, K_A 5e4"),
                (m.group(3), rms[(100.0, 3.0, 5.0)], "100 kg, lambda 3, K_A 5"),
                (m.group(4), rms[(100.0, 10.0, 5e4)], "100 kg, lambda 10, K_A 5e4")]
    problems = [f"{path}: quotes {q} mm TCP error RMS ({what}); the binary gives {v:.4g} mm"
                for q, v, what in expected if not matches(q, v)]
    return len(expected), problems


def check_seed001(root, got):
    problems, count = [], 0
    s1 = got["seed001"]
    for path, row in (("docs/seeds.md", r"\| `{m}` \| ([0-9.]+) / (\d+) \| ([0-9.]+) / (\d+) \|"),
                      ("docs/models/integrators.md", r"\| {m} \| ([0-9.]+) / (\d+) \| ([0-9.]+) / (\d+) \|")):
        text = (Path(root) / path).read_text()
        for model in ("four-bar-seed001", "quick-return"):
            m = re.search(row.format(m=re.escape(model)), text)
            if not m:
                problems.append(f"{path}: no Newton-statistics row for {model}")
                continue
            ds, pe = s1[model]["double-step"], s1[model]["penalty"]
            for q, v, what in ((m.group(1), ds["mean_newton_iterations"], "double-step mean"),
                               (m.group(2), ds["max_newton_iterations"], "double-step max"),
                               (m.group(3), pe["mean_newton_iterations"], "penalty mean"),
                               (m.group(4), pe["max_newton_iterations"], "penalty max")):
                count += 1
                if not matches(q, v):
                    problems.append(f"{path}: quotes {q} Newton iterations per step ({model}, {what}); "
                                    f"the binary gives {v:g}")
    return count, problems


def check_seed002_energy(root, got):
    path = "docs/models/hydraulics.md"
    text = flat((Path(root) / path).read_text())
    m = re.search(r"the same cycle gives ([0-9.]+) J and ([0-9.]+e-[0-9]+) J, at the valve's closing", text)
    if not m:
        return 0, [f"{path}: the seed 002 work-and-drift sentence (§15) is not there to check"]
    run = got["seed002_penalty"]
    expected = [(m.group(1), run["max_cylinder_work"], "J maximum cylinder work"),
                (m.group(2), run["peak_energy_drift"], "J peak energy drift")]
    problems = [f"{path}: quotes {q} {what} (seed 002 work cycle, penalty); the binary gives {v:.4g}"
                for q, v, what in expected if not matches(q, v)]
    return len(expected), problems


CHECKS = (check_readme_summary, check_manipulator, check_seed001, check_seed002_energy)
QUOTING_FILES = ("README.md", "docs/models/manipulator.md", "docs/seeds.md", "docs/models/integrators.md",
                 "docs/models/hydraulics.md")


def check(root, got):
    total, problems = 0, []
    for c in CHECKS:
        n, p = c(root, got)
        total += n
        problems += p
    return total, problems


def self_test(root, got):
    """A stale number planted in a copy of each quoting file fails the check, naming the file."""
    plants = [("docs/models/manipulator.md", "with 0.129 mm and", "with 0.26 mm and"),
              ("docs/seeds.md", "| `four-bar-seed001` | 1.59 / 3", "| `four-bar-seed001` | 1.60 / 3"),
              ("README.md", "8879 stable, 3119 unstable", "8875 stable, 3123 unstable"),
              ("docs/models/hydraulics.md", "gives 61.8 J and 4.5e-3 J", "gives 59.1 J and 4.5e-3 J")]
    failures = []
    for path, old, new in plants:
        with tempfile.TemporaryDirectory() as copy:
            for f in QUOTING_FILES:
                (Path(copy) / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(Path(root) / f, Path(copy) / f)
            target = Path(copy) / path
            text = target.read_text()
            if old not in text:
                failures.append(f"self-test: {path} no longer holds '{old}' to plant a stale number in")
                continue
            target.write_text(text.replace(old, new, 1))
            _, problems = check(copy, got)
            if not any(p.startswith(path) for p in problems):
                failures.append(f"self-test: the stale number planted in {path} ('{new}') was not reported")
            else:
                print(f"self-test: planted '{new}' in {path}: reported")
    return failures


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--self-test"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    exe, root = Path(argv[1]).resolve(), Path(argv[2]).resolve()
    with tempfile.TemporaryDirectory() as work:
        got = compute(exe, root, work)
    total, problems = check(root, got)
    for p in problems:
        print(p)
    print(f"quoted figures: {total} checked; " + ("ok" if not problems else f"{len(problems)} stale"))
    if len(argv) == 4:
        failures = self_test(root, got)
        for f in failures:
            print(f)
        print("self-test: " + ("ok" if not failures else f"{len(failures)} failure(s)"))
        problems += failures
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
