#!/usr/bin/env python3
"""How long the build takes, per translation unit and per target.

  python3 bench/build_time.py measure --label LABEL [--build DIR] [--cache cold|warm|off]
                                      [--targets T ...] [-- CMAKE_ARGS...]
      configures DIR (default build-time/) with the recording launcher
      (scripts/compile_timer.sh, -DHYDROSWEEP_BUILD_TIME_LOG), builds it with
      -j$(nproc), prints every compile and link command's seconds, the
      slowest units and the per-target sums, and writes
      bench/results/build-time-<label>.json.
        --cache cold   an empty, private ccache directory (a first build on a new machine)
        --cache warm   the developer's ccache (scripts/setup.sh's), as a second clone would find it
        --cache off    no ccache at all
  python3 bench/build_time.py report LOG [--build DIR] [--wall S] [--label L] [--commit C] [--out JSON]
      the same tables from a launcher log another build wrote.

What it measures: each command's wall time as the launcher saw it (the
machine's other jobs included: the build runs -j$(nproc), so a unit's time is
what it took while the others ran), their sum (the CPU-seconds the build
asks for), and the build's wall time. Nothing here asserts anything; it is a
measurement (README "Set-up", docs/build.md).
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_log(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            start, end, rc, out = float(parts[0]), float(parts[1]), int(parts[2]), parts[3]
            cwd = parts[4] if len(parts) > 4 else ""
            rows.append(dict(start=start, end=end, seconds=end - start, rc=rc, output=out, cwd=cwd))
    return rows


def classify(row, build_dir):
    """(target, unit, kind) of one command from its output path."""
    out = row["output"]
    full = out if os.path.isabs(out) else os.path.join(row["cwd"], out)
    rel = os.path.relpath(full, build_dir) if build_dir else out
    m = re.search(r"(?:^|/)CMakeFiles/([^/]+)\.dir/(.+?)\.o$", rel)
    if m:
        unit = m.group(2)
        unit = re.sub(r"^(\.\./)+", "", unit)
        return m.group(1), unit, "compile"
    name = os.path.basename(rel)
    target = re.sub(r"^lib(.+)\.(a|so.*)$", r"\1", name)
    target = re.sub(r"\.cpython.*\.so$|\.so$", "", target)
    return target, rel, "link"


def summarize(rows, build_dir, wall, label):
    units = []
    for r in rows:
        target, unit, kind = classify(r, build_dir)
        units.append(dict(target=target, unit=unit, kind=kind, seconds=round(r["seconds"], 2), status=r["rc"]))
    targets = {}
    for u in units:
        t = targets.setdefault(u["target"], dict(compile_seconds=0.0, link_seconds=0.0, units=0))
        t["compile_seconds" if u["kind"] == "compile" else "link_seconds"] += u["seconds"]
        t["units"] += u["kind"] == "compile"
    for t in targets.values():
        t["compile_seconds"] = round(t["compile_seconds"], 1)
        t["link_seconds"] = round(t["link_seconds"], 1)
    span = (max(r["end"] for r in rows) - min(r["start"] for r in rows)) if rows else 0.0
    return dict(
        label=label,
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        commit=git_commit(),
        machine=machine(),
        jobs=os.cpu_count(),
        wall_seconds=round(wall if wall is not None else span, 1),
        command_seconds_sum=round(sum(u["seconds"] for u in units), 1),
        commands=len(units),
        failed_commands=sum(u["status"] != 0 for u in units),
        targets=dict(sorted(targets.items(), key=lambda kv: -(kv[1]["compile_seconds"] + kv[1]["link_seconds"]))),
        units=sorted(units, key=lambda u: -u["seconds"]),
    )


def git_commit():
    try:
        sha = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True).stdout.strip()
        return sha + ("+changes" if dirty else "")
    except OSError:
        return "unknown"


def machine():
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def print_tables(s, top=25):
    print(f"build-time {s['label']}: {s['wall_seconds']:.0f} s wall, {s['command_seconds_sum']:.0f} s in "
          f"{s['commands']} commands on {s['jobs']} cores ({s['machine']}, {s['commit']})")
    print(f"\n  slowest commands (of {s['commands']}):")
    for u in s["units"][:top]:
        print(f"  {u['seconds']:8.1f} s  {u['kind']:7s} {u['target']:32s} {u['unit']}")
    print("\n  per target (compile + link seconds, units):")
    for name, t in s["targets"].items():
        print(f"  {t['compile_seconds'] + t['link_seconds']:8.1f} s  {name:32s} {t['units']:3d} units")


def measure(args, cmake_args):
    build = os.path.abspath(args.build)
    log = os.path.join(build, "build-time.log")
    if args.fresh and os.path.isdir(build):
        shutil.rmtree(build)
    os.makedirs(build, exist_ok=True)
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ)
    tmp_cache = None
    if args.cache == "cold":
        tmp_cache = tempfile.mkdtemp(prefix="hs-ccache-cold-")
        env["CCACHE_DIR"] = tmp_cache
    elif args.cache == "off":
        env["CCACHE_DISABLE"] = "1"
    cfg = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", f"-DHYDROSWEEP_BUILD_TIME_LOG={log}"]
    cfg += cmake_args
    t0 = time.monotonic()
    subprocess.run(cfg, check=True, env=env, stdout=subprocess.DEVNULL)
    configure = time.monotonic() - t0
    cmd = ["cmake", "--build", build, f"-j{os.cpu_count()}"]
    for t in args.targets or []:
        cmd += ["--target", t]
    t0 = time.monotonic()
    rc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL if args.quiet else None).returncode
    wall = time.monotonic() - t0
    if tmp_cache:
        shutil.rmtree(tmp_cache, ignore_errors=True)
    s = summarize(parse_log(log) if os.path.exists(log) else [], build, wall, args.label)
    s.update(configure_seconds=round(configure, 1), cache=args.cache, cmake_args=cmake_args, targets_built=args.targets or ["all"],
             build_status=rc)
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--label", required=True)
    m.add_argument("--build", default=os.path.join(ROOT, "build-time"))
    m.add_argument("--cache", choices=["cold", "warm", "off"], default="warm")
    m.add_argument("--targets", nargs="*")
    m.add_argument("--keep", dest="fresh", action="store_false", help="keep an existing build directory")
    m.add_argument("--quiet", action="store_true")
    m.add_argument("--out")
    r = sub.add_parser("report")
    r.add_argument("log")
    r.add_argument("--build", default="")
    r.add_argument("--wall", type=float)
    r.add_argument("--label", default="report")
    r.add_argument("--commit", help="the commit the logged build was of (default: this checkout's)")
    r.add_argument("--out")
    argv = sys.argv[1:]
    cmake_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, cmake_args = argv[:i], argv[i + 1:]
    args = p.parse_args(argv)
    if args.mode == "measure":
        s = measure(args, cmake_args)
    else:
        s = summarize(parse_log(args.log), os.path.abspath(args.build) if args.build else "", args.wall, args.label)
        if args.commit:
            s["commit"] = args.commit
    print_tables(s)
    out = args.out or os.path.join(ROOT, "bench", "results", f"build-time-{s['label']}.json")
    with open(out, "w") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
    print(f"\nwrote {os.path.relpath(out)}")
    return 0 if s.get("build_status", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
