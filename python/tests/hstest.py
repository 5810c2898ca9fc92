"""Helpers of the hydrosweep package's tests: paths, running the CLI, and a
comparison of two HDF5 files (the fixtures are in conftest.py)."""
import subprocess
from pathlib import Path

import h5py
import numpy as np

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
DEFAULT_CLI = REPO / "build" / "host" / "cli" / "hydrosweep"

# The run record of /metadata: how and when the results were obtained, not
# what they are (host/results/output.hpp, RunRecord).
RUN_RECORD = {"wall_seconds", "created", "threads", "resumed_instances", "points_per_second"}

ERROR_PREFIX = "hydrosweep: error: "


def run_cli(cli, *args, expect=0):
    """Runs the CLI; returns the CompletedProcess (text) after checking its exit status."""
    r = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == expect, f"{cli} {' '.join(map(str, args))}: exit {r.returncode}\n{r.stderr}"
    return r


def cli_error(cli, *args, expect=2):
    """The message the CLI prints after "hydrosweep: error: " (one line)."""
    r = run_cli(cli, *args, expect=expect)
    lines = [l for l in r.stderr.splitlines() if l.startswith(ERROR_PREFIX)]
    assert len(lines) == 1, r.stderr
    return lines[0][len(ERROR_PREFIX):]


def _attr_equal(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype.kind in "fc" and b.dtype.kind in "fc":
            return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
        return a.shape == b.shape and a.tolist() == b.tolist()
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return a == b


def _same_doubles(a, b):
    """Bit for bit (so 0.0 and -0.0 differ), NaN where NaN whatever its payload."""
    na, nb = np.isnan(a), np.isnan(b)
    if not np.array_equal(na, nb):
        return False
    return a[~na].tobytes() == b[~nb].tobytes()


def h5_differences(path_a, path_b, ignore_attrs=RUN_RECORD, ignore_metadata=()):
    """Every difference between two HDF5 files (objects, dtypes, shapes, values,
    attributes), except the attributes of /metadata named in ignore_attrs and
    ignore_metadata. Values are compared bit for bit (NaN equals NaN, whatever its payload)."""
    diffs = []
    ignored = set(ignore_attrs) | set(ignore_metadata)
    with h5py.File(path_a, "r") as fa, h5py.File(path_b, "r") as fb:
        names_a, names_b = [], []
        fa.visit(names_a.append)
        fb.visit(names_b.append)
        if sorted(names_a) != sorted(names_b):
            diffs.append(f"objects differ: only in a {sorted(set(names_a) - set(names_b))}, "
                         f"only in b {sorted(set(names_b) - set(names_a))}")
        for name in ["/"] + sorted(set(names_a) & set(names_b)):
            oa, ob = fa[name], fb[name]
            if type(oa) is not type(ob):
                diffs.append(f"{name}: {type(oa).__name__} vs {type(ob).__name__}")
                continue
            skip = ignored if name == "metadata" else set()
            ka, kb = set(oa.attrs) - skip, set(ob.attrs) - skip
            if ka != kb:
                diffs.append(f"{name}: attributes {sorted(ka ^ kb)} in one file only")
            for k in sorted(ka & kb):
                if not _attr_equal(oa.attrs[k], ob.attrs[k]):
                    diffs.append(f"{name} attribute {k}: {oa.attrs[k]!r} vs {ob.attrs[k]!r}")
            if isinstance(oa, h5py.Dataset):
                if oa.dtype != ob.dtype or oa.shape != ob.shape:
                    diffs.append(f"{name}: {oa.dtype}{oa.shape} vs {ob.dtype}{ob.shape}")
                    continue
                va, vb = oa[...], ob[...]
                if va.dtype.kind == "f":
                    same = _same_doubles(va, vb)
                else:
                    same = np.array_equal(va, vb)
                if not same:
                    diffs.append(f"{name}: values differ")
    return diffs
