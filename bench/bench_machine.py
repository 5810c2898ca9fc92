"""The machine line of the Python benchmarks' JSON (bench/results/*.json):
CPU model, cores, memory, host, source revision and date, as the C++
benchmarks record them (bench/bench_common.hpp)."""
import datetime
import json
import os
import platform
import re
import subprocess


def machine(**extra):
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return {"cpu_model": cpu, "logical_cores": os.cpu_count(), "hostname": platform.node(),
            "memory_bytes": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), **extra,
            "source_revision": rev or "unknown",
            "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def machine_tag():
    """The result files' machine tag, as bench_common.hpp's machine_tag():
    the CPU model as a file-name-safe slug and the logical cores ("amd-epyc-2c")."""
    slug = re.sub(r"[^a-z0-9]+", "-", machine()["cpu_model"].lower()).strip("-") or "unknown"
    return f"{slug}-{os.cpu_count()}c"


def write_json(path, doc):
    """Writes a benchmark's JSON (creating its directory) and says where."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
    print(f"wrote {path}")
