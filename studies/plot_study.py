#!/usr/bin/env python3
"""Plot a hydrosweep study: DIR/results.h5 -> PNG files (--format pdf or svg: those).

    python3 studies/plot_study.py DIR [--out PLOTDIR] [--quantity NAME ...]
                                      [--instances I ...]

Writes whichever of these the file supports into PLOTDIR (default DIR/plots)
and prints the path of each one on stdout (notes about skipped plots go to
stderr):

  histogram_<q>.png  histogram of the ok instances of output q, with the mean
                     and its confidence interval from /analysis/statistics
  cdf_<q>.png        empirical CDF of q; the quantiles of /analysis/statistics
                     with their confidence intervals; the failure limit and
                     P_f when /analysis/failure is about q
  sobol_<q>.png      first-order and total Sobol indices per factor with
                     confidence intervals (/analysis/sobol/<q>)
  sobol2_<q>.png     with sample.second_order: the second-order indices S_jk
                     of the factor pairs, each with its interval
  map_<q>.png        grid designs with exactly two varied inputs: heat map of
                     q over the grid (log axes for log-spaced axes); failed
                     points marked
  scatter_<q>.png    other designs: q against each varied input; failed
                     instances marked in red at the bottom of each panel
  time_histories.png with /trajectories: crank angle, p2, p3 and spool opening
                     against time for the selected instances

q runs over --quantity (default: the quantities of /analysis, else p2_max).
--instances picks the time-history instances (default: up to 5 spread over
the index range plus the first failed instance).

Exit status: 0 when done (also when some plots were skipped); 2 when
DIR/results.h5 is missing or is not a hydrosweep results file (no /metadata
group), or a --quantity / --instances value does not exist in the file; 3 when
h5py, matplotlib or numpy cannot be imported.

The same file is the module behind hydrosweep.plot (python/CMakeLists.txt
installs it as hydrosweep/_plot_study.py): imported, it draws with matplotlib's
Figure (no pyplot, no backend chosen) and a missing h5py, matplotlib or numpy
is an ImportError, not an exit.
"""
import argparse
import contextlib
import contextvars
import math
import os
import re
import sys
from pathlib import Path

PROG = "plot_study"
# A module's ImportError (hydrosweep.plot) when h5py, matplotlib or numpy is missing.
INSTALL_HINT = "hydrosweep.plot needs matplotlib and h5py: pip install './python[plot]' (or pip install matplotlib h5py)"

try:
    import h5py
    import matplotlib  # noqa: F401  (first: its ImportError names it, as before)
    import numpy as np
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.figure import Figure  # no pyplot: nothing global (backend, figure list) is touched
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
except (ImportError, OSError) as e:  # pragma: no cover - depends on the machine
    # A script says so on one line and exits 3 (the status host/cli/main.cpp
    # recognises), or 1 when a module is there but cannot be loaded (e.g. no
    # file descriptor left to open it).
    if isinstance(e, ImportError):
        _status, _line = 3, f"{PROG}: error: {e} (python3 with h5py, matplotlib and numpy is needed; scripts/setup.sh installs them)"
    else:
        _status, _line = 1, f"{PROG}: error: cannot load h5py/matplotlib/numpy: {e}"
    if __name__ == "__main__":
        print(_line, file=sys.stderr)
        sys.exit(_status)
    # Imported: an ImportError; plot_stability.py run as a script prints
    # script_exit's line and exits with its status, as this script would.
    _error = ImportError(f"{INSTALL_HINT} ({e})" if isinstance(e, ImportError)
                         else f"hydrosweep.plot cannot load h5py/matplotlib/numpy: {e}", name=getattr(e, "name", None))
    _error.script_exit = (_status, _line)
    raise _error from e

DPI = 150
# The figures' file formats (--format, default the first): the file names keep
# their stems and take the format as suffix. The format travels with the list
# of written figures (Figures), not in a global: hydrosweep.plot sets it per call.
FORMATS = ("png", "pdf", "svg")


class UsageError(Exception):
    """Bad input file or arguments: exit status 2."""


# Where the notes (skipped plots) and the written figures' paths go: a script
# prints them (notes on stderr, paths on stdout); hydrosweep.plot gives, for
# one call, a function that takes each note (quiet()). A context variable:
# nothing stays set after the call, and threads do not see each other's.
_NOTES = contextvars.ContextVar("hydrosweep_plot_notes", default=None)


@contextlib.contextmanager
def quiet(notes):
    """Within the block, notes(prog, msg) takes each note and no figure path is printed."""
    token = _NOTES.set(notes)
    try:
        yield
    finally:
        _NOTES.reset(token)


def note(msg, prog=PROG):
    notes = _NOTES.get()
    if notes is None:
        print(f"{prog}: note: {msg}", file=sys.stderr)
    else:
        notes(prog, msg)


def announce(path):
    """A written figure: its path on stdout (what the script prints), unless quiet()."""
    if _NOTES.get() is None:
        print(path)


class Figures(list):
    """The paths of the figures one run writes, in order, and their format (one of FORMATS)."""

    def __init__(self, fmt):
        super().__init__()
        self.format = check_format(fmt)


def check_format(fmt):
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: one of {', '.join(FORMATS)}")
    return fmt


def subplots(nrows=1, ncols=1, *, figsize=None, layout=None, **kw):
    """pyplot.subplots without pyplot: a Figure no figure manager holds (it
    goes when the last reference does), whatever backend the caller uses."""
    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(nrows, ncols, **kw)


# ---- reading ------------------------------------------------------------------

def text(value, default=""):
    """HDF5 string attributes come back as str, bytes or 0-d arrays depending on h5py."""
    if value is None:
        return default
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode("utf-8", "replace")
    return str(value)


def attr(obj, name, default=None):
    try:
        return obj.attrs[name] if name in obj.attrs else default
    except (OSError, TypeError, KeyError):  # unreadable attribute type
        return default


def attr_text(obj, name, default=""):
    return text(attr(obj, name), default)


def attr_float(obj, name, default=math.nan):
    value = attr(obj, name)
    try:
        return float(np.asarray(value).reshape(-1)[0]) if value is not None else default
    except (TypeError, ValueError, IndexError):
        return default


def attr_list(obj, name):
    """A string-list attribute (also a single string or an empty array) -> list of str."""
    value = attr(obj, name)
    if value is None:
        return []
    if isinstance(value, (str, bytes, np.bytes_, np.str_)):
        return [text(value)]
    return [text(v) for v in np.asarray(value).reshape(-1)]


def read_array(ds):
    """A dataset as float64 (integer columns included)."""
    return np.asarray(ds[()], dtype=np.float64)


def display_scale(unit):
    """SI unit as stored -> (factor, unit shown): pressures in MPa, angles in degrees."""
    if unit == "Pa":
        return 1e-6, "MPa"
    if unit == "rad":
        return 180.0 / math.pi, "deg"
    return 1.0, unit or "-"


def label(name, unit):
    return f"{name} [{unit}]"


def fmt(v, digits=4):
    return "nan" if not np.isfinite(v) else f"{v:.{digits}g}"


def spread_is_large(v, ratio=100.0):
    """All positive and max/min above ratio (default two decades): worth a log axis."""
    v = v[np.isfinite(v)]
    return v.size > 1 and (v > 0).all() and v.max() > ratio * v.min()


def nice_log_axis(axis):
    """Log axis spanning few decades: ticks at 1, 2, 5 x 10^k written as plain numbers."""
    lo, hi = axis.get_view_interval()
    if lo > 0 and hi > 0 and math.log10(hi / lo) <= 2.5:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


class Study:
    """What the plots need from results.h5, read once."""

    def __init__(self, f, directory):
        self.f = f
        meta = f["metadata"]
        self.name = attr_text(meta, "study_name") or Path(directory).resolve().name
        self.model = attr_text(meta, "model")
        self.friction = attr_text(meta, "friction")
        # The model's driving coordinate (the crank angle of the four-bars):
        # its trajectory channel; older files without the attribute: q1.
        self.driving = attr_text(meta, "driving_coordinate") or "q1"
        self.method = attr_text(meta, "sample_method")
        self.outputs = f["outputs"] if isinstance(f.get("outputs"), h5py.Group) else None
        self.inputs = f["inputs"] if isinstance(f.get("inputs"), h5py.Group) else None

        self.status = None
        if self.outputs is not None and "status" in self.outputs:
            self.status = np.asarray(self.outputs["status"][()], dtype=np.int64).reshape(-1)
        self.status_names = attr_list(self.outputs["status"], "status_names") if self.status is not None else []
        self.n = self._count()
        if self.status is None or self.status.size != self.n:
            self.status = np.zeros(self.n, dtype=np.int64)  # no status: take every instance as ok
        self.ok = self.status == 0
        self.n_failed = int((~self.ok).sum())

        self.varied = []
        self._input_cache = {}
        if self.inputs is not None:
            names = attr_list(self.inputs, "varied")
            if not names and "varied" not in self.inputs.attrs:
                names = [k for k in self.inputs if k != "all"]
            for name in names:
                ds = self.inputs.get(name)
                if isinstance(ds, h5py.Dataset) and ds.shape == (self.n,):
                    self.varied.append(name)
                else:
                    note(f"varied input '{name}' has no /inputs dataset of {self.n} values; ignored")

        self.analysis = f["analysis"] if isinstance(f.get("analysis"), h5py.Group) else None
        self.statistics = self._subgroup(self.analysis, "statistics")
        self.sobol = self._subgroup(self.analysis, "sobol")
        self.failure = self._subgroup(self.analysis, "failure")
        self.trajectories = f["trajectories"] if isinstance(f.get("trajectories"), h5py.Group) else None

    @staticmethod
    def _subgroup(group, name):
        if group is None:
            return None
        g = group.get(name)
        return g if isinstance(g, h5py.Group) else None

    def _count(self):
        if self.status is not None:
            return self.status.size
        n = attr_float(self.f["metadata"], "instance_count")
        if np.isfinite(n):
            return int(n)
        if self.outputs is not None:
            for ds in self.outputs.values():
                if isinstance(ds, h5py.Dataset) and ds.ndim == 1:
                    return ds.shape[0]
        return 0

    def subtitle(self):
        parts = [p for p in (self.model, self.friction) if p]
        if self.method:
            parts.append(f"{self.method} design")
        failed = f", {self.n_failed} failed" if self.n_failed else ""
        parts.append(f"{self.n} instance{'s' if self.n != 1 else ''}{failed}")
        return ", ".join(parts)

    def output_names(self):
        if self.outputs is None:
            return []
        return [k for k, v in self.outputs.items() if isinstance(v, h5py.Dataset) and v.shape == (self.n,) and k != "status"]

    def quantity(self, q):
        """-> (raw values (N,), display factor, display unit, description)."""
        ds = self.outputs[q]
        factor, unit = display_scale(attr_text(ds, "unit"))
        return read_array(ds), factor, unit, attr_text(ds, "description")

    def input(self, name):
        """-> (raw values (N,), display factor, display unit); read once."""
        if name not in self._input_cache:
            ds = self.inputs[name]
            factor, unit = display_scale(attr_text(ds, "unit"))
            self._input_cache[name] = (read_array(ds), factor, unit)
        return self._input_cache[name]

    def status_name(self, i):
        code = int(self.status[i])
        return self.status_names[code] if 0 <= code < len(self.status_names) else f"status {code}"

    def default_quantities(self):
        names = attr_list(self.analysis, "quantities") if self.analysis is not None else []
        for group in (self.statistics, self.sobol):
            if not names and group is not None:
                names = list(group)
        have = set(self.output_names())
        names = [q for q in dict.fromkeys(names) if q in have]
        if not names and "p2_max" in have:
            names = ["p2_max"]
        return names


def figure_path(path, fmt):
    """`path` with the chosen format's suffix (--format)."""
    return Path(path).with_suffix("." + fmt)


def save_figure(fig, path):
    """fig at `path` in the format its suffix names (png, pdf, svg), written
    under a temporary name and renamed into place: a full disk or a kill
    leaves the user's previous picture, never a truncated one (issue 36)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}")
    try:
        fig.savefig(tmp, dpi=DPI, format=path.suffix[1:])
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def fail_without_traceback(run, args, prog=PROG):
    """run(args) with every failure as one line on stderr and an exit status:
    2 bad input (UsageError), 1 a file that cannot be read or written (or any
    other failure), 130 Ctrl-C."""
    try:
        run(args)
    except UsageError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"{prog}: error: {where}{e.strerror or e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 - a message, never a traceback
        print(f"{prog}: error: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)


# The list of the figures written into a plot directory, one name a line, each
# added before its file is written (host/results/commit.hpp, kPlotSetName):
# a new plot run removes the set the list names first, and a new `hydrosweep
# run` into DIR removes DIR/plots' set in its final write, so pictures of two
# runs never sit side by side (issue 36). A user's own files there stay.
PLOT_SET = ".hydrosweep-plots"


def retire_plot_set(out):
    """Removes the figures an earlier plot run listed in out/PLOT_SET, then the list."""
    listing = Path(out) / PLOT_SET
    if not listing.is_file():
        return
    for name in listing.read_text().splitlines():
        if name and "/" not in name and name not in (".", "..", PLOT_SET) and (Path(out) / name).is_file():
            (Path(out) / name).unlink()
    listing.unlink()


def save(fig, path, written):
    path = figure_path(path, written.format)
    with open(path.parent / PLOT_SET, "a") as listing:
        listing.write(path.name + "\n")
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                nice_log_axis(axis)
    save_figure(fig, path)
    announce(path)
    written.append(path)


def titles(fig, study, what):
    fig.suptitle(f"{study.name}: {what}", fontsize="large")


# ---- histogram and CDF ------------------------------------------------------------

def statistics_of(study, q):
    g = study.statistics.get(q) if study.statistics is not None else None
    return g if isinstance(g, h5py.Group) else None


def failure_of(study, q):
    g = study.failure
    if g is None or attr_text(g, "quantity") != q:
        return None
    return g


def failure_text(g, q, factor, unit):
    limit = attr_float(g, "limit") * factor
    direction = attr_text(g, "direction", "above")
    rel = "<" if direction == "below" else ">"
    lines = [f"$P_f$ = P({q} {rel} {fmt(limit)} {unit}) = {fmt(attr_float(g, 'probability'), 3)}"]
    lo, hi = attr_float(g, "ci_low"), attr_float(g, "ci_high")
    conf = attr_float(g, "confidence")
    if np.isfinite(lo) or np.isfinite(hi):
        level = f"{conf:.0%} " if np.isfinite(conf) else ""
        lines.append(f"{level}CI [{fmt(lo, 3)}, {fmt(hi, 3)}]")
    extra = []
    failures, count = attr_float(g, "failures"), attr_float(g, "count")
    if np.isfinite(failures) and np.isfinite(count):
        extra.append(f"{int(failures)}/{int(count)}")
    if attr_text(g, "method"):
        extra.append(attr_text(g, "method"))
    if extra:
        lines[-1] += f" ({', '.join(extra)})"
    return "\n".join(lines), limit, direction


def draw_limit(ax, limit, direction, log, label_text):
    if not np.isfinite(limit) or (log and limit <= 0):
        return
    ax.axvline(limit, color="C3", lw=1.8, label=label_text)
    lo, hi = ax.get_xlim()
    # keep the limit and a strip of the failure region in view
    if log:
        margin = 10 ** (0.04 * math.log10(max(hi, limit) / min(lo, limit)))
        lo, hi = min(lo, limit / margin), max(hi, limit * margin)
    else:
        margin = 0.04 * (max(hi, limit) - min(lo, limit))
        lo, hi = min(lo, limit - margin), max(hi, limit + margin)
    if direction == "below":
        ax.axvspan(lo, limit, color="C3", alpha=0.08, lw=0)
    else:
        ax.axvspan(limit, hi, color="C3", alpha=0.08, lw=0)
    ax.set_xlim(lo, hi)


def padded_range(v, log):
    lo, hi = float(v.min()), float(v.max())
    if hi > lo:
        return lo, hi
    if log:
        return lo / 1.1, hi * 1.1
    width = 0.05 * abs(lo) if lo != 0 else 1.0
    return lo - width, hi + width


def plot_histogram(study, q, out, written):
    raw, factor, unit, desc = study.quantity(q)
    v = raw[study.ok] * factor
    v = v[np.isfinite(v)]
    if v.size == 0:
        note(f"histogram_{q}: no finite values of ok instances; skipped")
        return
    log = spread_is_large(v)
    lo, hi = padded_range(v, log)
    auto = np.histogram_bin_edges(v, bins="auto").size - 1 if v.size > 1 else 1
    nbins = int(np.clip(max(auto, math.sqrt(v.size) / 1.5), 5, 60))
    edges = np.geomspace(lo, hi, nbins + 1) if log else np.linspace(lo, hi, nbins + 1)
    fig, ax = subplots(figsize=(8, 5.2), layout="constrained")
    counts, _, _ = ax.hist(v, bins=edges, color="C0", alpha=0.75, edgecolor="white", linewidth=0.5,
                           label=f"ok instances (n = {v.size})")
    ax.set_ylim(0, max(1.0, counts.max()) * 1.45)  # headroom for the legend and the text box
    if log:
        ax.set_xscale("log")
    info = [f"n ok = {v.size}, failed = {study.n_failed}"]
    stats = statistics_of(study, q)
    if stats is not None:
        mean, std = attr_float(stats, "mean") * factor, attr_float(stats, "std") * factor
        mlo, mhi = attr_float(stats, "mean_ci_low") * factor, attr_float(stats, "mean_ci_high") * factor
        conf = attr_float(stats, "confidence")
        level = f"{conf:.0%} " if np.isfinite(conf) else ""
        if np.isfinite(mean):
            ax.axvline(mean, color="k", ls="--", lw=1.2, label=f"mean = {fmt(mean)} {unit}")
            if np.isfinite(mlo) and np.isfinite(mhi) and mhi > mlo:
                ax.axvspan(mlo, mhi, color="k", alpha=0.15, lw=0, zorder=3, label=f"{level}CI of the mean")
        slo, shi = attr_float(stats, "std_ci_low") * factor, attr_float(stats, "std_ci_high") * factor
        line = f"std = {fmt(std)} {unit}"
        if np.isfinite(slo) and np.isfinite(shi):
            line += f"  ({level}CI [{fmt(slo, 3)}, {fmt(shi, 3)}])"
        info.append(line)
    else:
        info.append(f"mean = {fmt(v.mean())} {unit}, std = {fmt(v.std(ddof=1) if v.size > 1 else 0.0)} {unit}")
    fail = failure_of(study, q)
    if fail is not None:
        ftext, limit, direction = failure_text(fail, q, factor, unit)
        draw_limit(ax, limit, direction, log, f"limit {fmt(limit)} {unit}")
        info.append(ftext)
    ax.text(0.98, 0.97, "\n".join(info), transform=ax.transAxes, ha="right", va="top", fontsize="small",
            bbox=dict(boxstyle="round", facecolor="white", alpha=0.85, edgecolor="0.7"))
    ax.set_xlabel(label(q, unit) + (f" — {desc}" if desc and len(desc) < 60 else ""))
    ax.set_ylabel("instances")
    ax.legend(loc="upper left", fontsize="small", framealpha=0.85)
    ax.grid(True, alpha=0.3)
    titles(fig, study, f"histogram of {q}")
    ax.set_title(study.subtitle(), fontsize="small")
    save(fig, out / f"histogram_{safe_name(q)}.png", written)


def plot_cdf(study, q, out, written):
    raw, factor, unit, desc = study.quantity(q)
    v = raw[study.ok] * factor
    v = np.sort(v[np.isfinite(v)])
    if v.size == 0:
        note(f"cdf_{q}: no finite values of ok instances; skipped")
        return
    log = spread_is_large(v)
    fig, ax = subplots(figsize=(8, 5.2), layout="constrained")
    y = np.arange(1, v.size + 1) / v.size
    ax.step(np.concatenate([[v[0]], v]), np.concatenate([[0.0], y]), where="post", color="C0", lw=1.5,
            label=f"empirical CDF (n ok = {v.size})")
    if log:
        ax.set_xscale("log")
    lo, hi = padded_range(v, log)
    if lo == v[0] and hi == v[-1]:
        pad = (math.log10(hi / lo) * 0.03) if log else (hi - lo) * 0.03
        lo, hi = (lo / 10 ** pad, hi * 10 ** pad) if log else (lo - pad, hi + pad)
    ax.set_xlim(lo, hi)

    stats = statistics_of(study, q)
    if stats is not None and all(k in stats for k in ("quantile_levels", "quantiles")):
        levels = read_array(stats["quantile_levels"]).reshape(-1)
        qs = read_array(stats["quantiles"]).reshape(-1) * factor
        n = min(levels.size, qs.size)
        levels, qs = levels[:n], qs[:n]

        def bound(key):  # a missing or mis-sized CI bound: no error bar
            b = read_array(stats[key]).reshape(-1)[:n] * factor if key in stats else qs
            return b if b.size == n else qs

        qlo, qhi = bound("quantile_ci_low"), bound("quantile_ci_high")
        good = np.isfinite(levels) & np.isfinite(qs) & ((qs > 0) if log else True)
        if good.any():
            el = np.where(np.isfinite(qlo), qs - qlo, 0.0)
            eh = np.where(np.isfinite(qhi), qhi - qs, 0.0)
            xerr = np.clip(np.vstack([el, eh]), 0.0, None)[:, good]
            conf = attr_float(stats, "confidence")
            level = f" with {conf:.0%} CI" if np.isfinite(conf) else " with CI"
            ax.errorbar(qs[good], levels[good], xerr=xerr, fmt="o", color="C1", ms=4, capsize=3, lw=1.2,
                        label=f"quantiles{level}", zorder=3)
            lo2 = np.nanmin(np.concatenate([qlo[good], qs[good]]))
            hi2 = np.nanmax(np.concatenate([qhi[good], qs[good]]))
            ax.set_xlim(min(lo, lo2) if not log or lo2 > 0 else lo, max(hi, hi2))
    fail = failure_of(study, q)
    legend_loc = "lower right"  # a CDF leaves the upper left and the lower right corners free
    if fail is not None:
        ftext, limit, direction = failure_text(fail, q, factor, unit)
        draw_limit(ax, limit, direction, log, f"limit {fmt(limit)} {unit}")
        if direction == "below":  # failure region on the left: text bottom right, legend top left
            legend_loc = "upper left"
            where = dict(x=0.98, y=0.03, ha="right", va="bottom")
        else:
            where = dict(x=0.02, y=0.97, ha="left", va="top")
        ax.text(s=ftext, transform=ax.transAxes, fontsize="small",
                bbox=dict(boxstyle="round", facecolor="white", alpha=0.85, edgecolor="C3"), **where)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(label(q, unit) + (f" — {desc}" if desc and len(desc) < 60 else ""))
    ax.set_ylabel("cumulative probability")
    ax.legend(loc=legend_loc, fontsize="small", framealpha=0.85)
    ax.grid(True, alpha=0.3)
    titles(fig, study, f"distribution of {q}")
    ax.set_title(study.subtitle(), fontsize="small")
    save(fig, out / f"cdf_{safe_name(q)}.png", written)


# ---- Sobol indices ----------------------------------------------------------------

def plot_sobol(study, q, out, written):
    g = study.sobol.get(q) if study.sobol is not None else None
    if not isinstance(g, h5py.Group):
        return
    if "first_order" not in g or "total" not in g:
        note(f"sobol_{q}: /analysis/sobol/{q} lacks first_order or total; skipped")
        return
    s1, st = read_array(g["first_order"]).reshape(-1), read_array(g["total"]).reshape(-1)
    k = min(s1.size, st.size)
    factors = attr_list(g, "factors")[:k]
    factors += [f"factor {i + 1}" for i in range(len(factors), k)]
    if k == 0:
        note(f"sobol_{q}: no factors; skipped")
        return

    def err(est, low, high):
        lo = read_array(g[low]).reshape(-1)[:k] if low in g else np.full(k, np.nan)
        hi = read_array(g[high]).reshape(-1)[:k] if high in g else np.full(k, np.nan)
        e = np.vstack([np.where(np.isfinite(lo), est - lo, 0.0), np.where(np.isfinite(hi), hi - est, 0.0)])
        return np.nan_to_num(np.clip(e, 0.0, None)), lo, hi

    s1, st = s1[:k], st[:k]
    e1, lo1, hi1 = err(s1, "first_order_ci_low", "first_order_ci_high")
    et, lot, hit = err(st, "total_ci_low", "total_ci_high")
    x = np.arange(k)
    w = 0.38
    fig, ax = subplots(figsize=(max(6.5, 1.3 * k + 3), 5.2), layout="constrained")
    conf = attr_float(g, "confidence")
    level = f" ({conf:.0%} CI)" if np.isfinite(conf) else ""
    ax.bar(x - w / 2, np.nan_to_num(s1), w, yerr=e1, capsize=4, color="C0", label=f"first order $S_i${level}")
    ax.bar(x + w / 2, np.nan_to_num(st), w, yerr=et, capsize=4, color="C1", label=f"total $S_{{Ti}}${level}")
    for xi, a, b in zip(x, s1, st):
        for dx, v in ((-w / 2, a), (w / 2, b)):
            if not np.isfinite(v):
                ax.text(xi + dx, 0.02, "n/a", ha="center", fontsize="x-small", rotation=90)
    ax.axhline(0.0, color="k", lw=0.8)
    vals = np.concatenate([s1, st, lo1, hi1, lot, hit, [0.0, 1.0]])
    vals = vals[np.isfinite(vals)]
    ymin, ymax = min(0.0, vals.min()), max(1.0, vals.max())
    pad = 0.05 * (ymax - ymin)
    ax.set_ylim(ymin - pad, ymax + 4 * pad)  # headroom for the legend
    ax.set_xticks(x)
    long = max(len(f) for f in factors) > 12 or k > 5
    ax.set_xticklabels(factors, rotation=25 if long else 0, ha="right" if long else "center")
    ax.set_ylabel("Sobol index [-]")
    ax.set_xlabel("factor")
    ax.legend(fontsize="small", loc="best", framealpha=0.9)
    ax.grid(True, axis="y", alpha=0.3)
    base, dropped = attr_float(g, "base_samples"), attr_float(g, "dropped_rows")
    details = [study.subtitle()]
    if np.isfinite(base):
        details.append(f"{int(base)} base samples")
    if np.isfinite(dropped) and dropped > 0:
        details.append(f"{int(dropped)} rows dropped")
    titles(fig, study, f"Sobol indices of {q}")
    ax.set_title(", ".join(details), fontsize="small")
    save(fig, out / f"sobol_{safe_name(q)}.png", written)
    if "second_order" in g:
        plot_sobol_pairs(study, q, g, factors, details, out, written)


def plot_sobol_pairs(study, q, g, factors, details, out, written):
    """sobol2_<q>: the second-order indices S_jk (sample.second_order) as a
    matrix over the pairs j < k, each cell with its value and interval."""
    s2 = read_array(g["second_order"])
    k = len(factors)
    if s2.ndim != 2 or s2.shape != (k, k) or k < 2:
        note(f"sobol2_{q}: /analysis/sobol/{q}/second_order is not {k} x {k}; skipped")
        return
    lo = read_array(g["second_order_ci_low"]) if "second_order_ci_low" in g else np.full((k, k), np.nan)
    hi = read_array(g["second_order_ci_high"]) if "second_order_ci_high" in g else np.full((k, k), np.nan)
    upper = np.triu(np.ones((k, k), dtype=bool), 1)
    shown = np.where(upper, s2, np.nan)
    finite = shown[np.isfinite(shown)]
    top = max(float(np.abs(finite).max()) if finite.size else 0.0, 1e-3)
    fig, ax = subplots(figsize=(max(8.0, 1.4 * k + 3.5), max(5.0, 1.2 * k + 2.5)), layout="constrained")
    image = ax.imshow(np.ma.masked_invalid(shown), cmap="RdBu_r", vmin=-top, vmax=top)
    fig.colorbar(image, ax=ax, label="second-order index $S_{jk}$ [-]")
    for j in range(k):
        for m in range(j + 1, k):
            v = s2[j, m]
            interval = f"\n[{fmt(lo[j, m], 2)}, {fmt(hi[j, m], 2)}]" if np.isfinite(lo[j, m]) else ""
            dark = np.isfinite(v) and abs(v) > 0.6 * top  # the colour map's ends are dark
            ax.text(m, j, fmt(v, 3) + interval, ha="center", va="center", fontsize="small",
                    color="white" if dark else "black")
    ax.set_xticks(range(k))
    ax.set_yticks(range(k))
    ax.set_xticklabels(factors, rotation=25, ha="right")
    ax.set_yticklabels(factors)
    titles(fig, study, f"Second-order Sobol indices of {q}")
    ax.set_title(", ".join(details), fontsize="small")
    save(fig, out / f"sobol2_{safe_name(q)}.png", written)


# ---- grid heat map and scatter ----------------------------------------------------------

def is_log_spaced(u):
    """Sorted unique grid values with a constant ratio (and not a constant step)."""
    if u.size < 3 or not (u > 0).all():
        return u.size == 2 and (u > 0).all() and u[1] / u[0] >= 10
    r = u[1:] / u[:-1]
    d = np.diff(u)
    return np.allclose(r, r[0], rtol=1e-6) and not np.allclose(d, d[0], rtol=1e-6)


def cell_edges(u, log):
    if u.size == 1:
        return np.array([u[0] / 1.2, u[0] * 1.2]) if log else np.array([u[0] - 0.5 * (abs(u[0]) or 1), u[0] + 0.5 * (abs(u[0]) or 1)])
    w = np.log(u) if log else u
    mid = 0.5 * (w[1:] + w[:-1])
    e = np.concatenate([[w[0] - (mid[0] - w[0])], mid, [w[-1] + (w[-1] - mid[-1])]])
    return np.exp(e) if log else e


def grid_layout(study):
    """For a full 2-D grid -> (ux, uy, ix, iy); None when the points are not a full grid."""
    x, _, _ = study.input(study.varied[0])
    y, _, _ = study.input(study.varied[1])
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        return None
    ux, ix = np.unique(x, return_inverse=True)
    uy, iy = np.unique(y, return_inverse=True)
    if ux.size * uy.size != study.n:
        return None
    cells = np.zeros((uy.size, ux.size), dtype=np.int64)
    np.add.at(cells, (iy, ix), 1)
    if not (cells == 1).all():
        return None
    return ux, uy, ix.reshape(-1), iy.reshape(-1)


def plot_map(study, q, layout, out, written):
    ux, uy, ix, iy = layout
    raw, factor, unit, desc = study.quantity(q)
    z = np.full((uy.size, ux.size), np.nan)
    vals = np.where(study.ok, raw * factor, np.nan)
    if not np.isfinite(vals).any():
        note(f"map_{q}: no finite values of ok instances; skipped")
        return
    z[iy, ix] = vals
    (xname, yname) = study.varied[:2]
    _, xf, xunit = study.input(xname)
    _, yf, yunit = study.input(yname)
    xlog, ylog = is_log_spaced(ux), is_log_spaced(uy)
    xe, ye = cell_edges(ux, xlog) * xf, cell_edges(uy, ylog) * yf
    if xf < 0:
        xe = xe[::-1]
    if yf < 0:
        ye = ye[::-1]

    fig, ax = subplots(figsize=(8.5, 6.2), layout="constrained")
    ax.set_facecolor("0.88")
    ax.patch.set_hatch("///")  # cells without a value show the hatched background
    ax.patch.set_edgecolor("0.55")
    finite = z[np.isfinite(z)]
    norm = None
    if spread_is_large(finite):
        norm = LogNorm(vmin=finite.min(), vmax=finite.max())
    elif finite.size and finite.min() == finite.max():
        c = finite[0]
        w = 0.05 * abs(c) if c != 0 else 1.0
        norm = Normalize(vmin=c - w, vmax=c + w)
    mesh = ax.pcolormesh(xe, ye, np.ma.masked_invalid(z), cmap="viridis", norm=norm, shading="flat")
    fig.colorbar(mesh, ax=ax, label=label(q, unit))
    if xlog:
        ax.set_xscale("log")
    if ylog:
        ax.set_yscale("log")
    ax.set_xlim(xe.min(), xe.max())
    ax.set_ylim(ye.min(), ye.max())
    handles = []
    failed = ~study.ok
    if failed.any():
        ax.scatter(ux[ix[failed]] * xf, uy[iy[failed]] * yf, marker="x", color="red", s=40, linewidths=1.8, zorder=3)
        names = sorted({study.status_name(i) for i in np.flatnonzero(failed)})
        handles.append(Line2D([], [], marker="x", color="red", ls="none", markersize=7, mew=1.8,
                              label=f"failed ({int(failed.sum())}: {', '.join(names)})"))
    if (~np.isfinite(z)).any():
        handles.append(Patch(facecolor="0.88", edgecolor="0.55", hatch="///", label="no value"))
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=len(handles),
                  fontsize="small", frameon=False)
    ax.set_xlabel(label(xname, xunit))
    ax.set_ylabel(label(yname, yunit))
    titles(fig, study, f"{q} over the grid" + (f" ({desc})" if desc and len(desc) < 45 else ""))
    ax.set_title(study.subtitle() + f", {ux.size} x {uy.size} grid", fontsize="small")
    save(fig, out / f"map_{safe_name(q)}.png", written)


def plot_scatter(study, q, out, written):
    raw, factor, unit, desc = study.quantity(q)
    y = raw * factor
    ok = study.ok & np.isfinite(y)
    if not ok.any():
        note(f"scatter_{q}: no finite values of ok instances; skipped")
        return
    failed = ~study.ok
    k = len(study.varied)
    ncols = 2 if k == 4 else min(3, k)
    nrows = math.ceil(k / ncols)
    fig, axes = subplots(nrows, ncols, figsize=(4.3 * ncols + 0.6, 3.6 * nrows + 1.0), sharey=True,
                         layout="constrained", squeeze=False)
    ylog = spread_is_large(y[ok])
    size = float(np.clip(3000.0 / max(study.n, 1), 3, 30))
    alpha = float(np.clip(400.0 / max(study.n, 1), 0.25, 0.9))
    for j, name in enumerate(study.varied):
        ax = axes[j // ncols][j % ncols]
        x, xf, xunit = study.input(name)
        x = x * xf
        ax.scatter(x[ok], y[ok], s=size, alpha=alpha, color="C0", edgecolors="none",
                   label=f"ok ({int(ok.sum())})")
        if failed.any():  # at the bottom of the panel (x in data, y in axes coordinates)
            ax.scatter(x[failed], np.full(int(failed.sum()), 0.03), marker="x", color="red", s=max(size, 14),
                       linewidths=1.2, transform=ax.get_xaxis_transform(), clip_on=False, zorder=3,
                       label=f"failed ({int(failed.sum())})")
        if spread_is_large(x, 20.0):  # inputs: log-spaced ranges are often only a decade or so wide
            ax.set_xscale("log")
        if ylog:
            ax.set_yscale("log")
        ax.set_xlabel(label(name, xunit))
        if j % ncols == 0:
            ax.set_ylabel(label(q, unit))
        ax.grid(True, alpha=0.3)
        if j == 0:
            ax.legend(fontsize="small", loc="best", framealpha=0.85)
    for j in range(k, nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    lo, hi = float(y[ok].min()), float(y[ok].max())
    if ylog:  # room at the bottom for the failed markers (axes are shared)
        axes[0][0].set_ylim(lo / 10 ** (0.12 * math.log10(hi / lo)), hi * 10 ** (0.05 * math.log10(hi / lo)))
    else:
        span = (hi - lo) or (0.05 * abs(lo) if lo != 0 else 1.0)
        axes[0][0].set_ylim(lo - 0.12 * span, hi + 0.05 * span)
    titles(fig, study, f"{q} against the varied inputs" + (f" ({desc})" if desc and len(desc) < 40 else ""))
    fig.supxlabel(study.subtitle(), fontsize="small", color="0.3")
    save(fig, out / f"scatter_{safe_name(q)}.png", written)


# ---- time histories ------------------------------------------------------------------

def default_instances(study, count):
    if count == 0:
        return []
    picks = list(dict.fromkeys(int(round(v)) for v in np.linspace(0, count - 1, min(5, count))))
    failed = np.flatnonzero(~study.ok[:count])
    if failed.size and int(failed[0]) not in picks:
        picks.append(int(failed[0]))
    return sorted(picks)


def instance_label(study, i):
    parts = []
    shown = study.varied[:4]
    for name in shown:
        v, f, unit = study.input(name)
        u = "" if unit in ("-", "") else f" {unit}"
        parts.append(f"{name.split('.')[-1]}={fmt(v[i] * f)}{u}")
    if len(study.varied) > len(shown):
        parts.append(f"+{len(study.varied) - len(shown)} more inputs")
    head = f"#{i}" + (": " + ", ".join(parts) if parts else "")
    if not study.ok[i]:
        t_end = math.nan
        if study.outputs is not None and "t_end" in study.outputs:
            t_end = float(study.outputs["t_end"][i])
        at = f" at t = {fmt(t_end, 3)} s" if np.isfinite(t_end) else ""
        head += f" [{study.status_name(i)}{at}]"
    return head


def plot_time_histories(study, instances, out, written):
    tr = study.trajectories
    if "t" not in tr or tr["t"].ndim != 2:
        note("time_histories: /trajectories/t missing or not N x M; skipped")
        return
    rows = tr["t"].shape[0]
    picks = [i for i in instances if i < rows]
    if not picks:
        note("time_histories: no instance to draw; skipped")
        return
    d = study.driving
    panels = [(c, f"{lab}") for c, lab in ((d, f"driving coordinate {d}"), ("p2", "pressure p2"), ("p3", "pressure p3"),
                                           ("U", "spool opening U")) if c in tr and tr[c].shape == tr["t"].shape]
    if not panels:
        note(f"time_histories: none of the channels {d}, p2, p3, U; skipped")
        return
    t_factor, t_unit = display_scale(attr_text(tr["t"], "unit", "s"))
    fig, axes = subplots(len(panels), 1, figsize=(10, 2.4 * len(panels) + 2.0), sharex=True,
                         layout="constrained", squeeze=False)
    axes = axes[:, 0]
    styles = ["-", "--", "-.", ":"]
    handles = []
    for n, i in enumerate(picks):
        t = np.asarray(tr["t"][i], dtype=np.float64) * t_factor
        keep = np.isfinite(t)  # samples after a failure are NaN
        color = f"C{n % 10}"
        ls = styles[(n // 10) % len(styles)]
        for ax, (channel, _) in zip(axes, panels):
            factor, _ = display_scale(attr_text(tr[channel], "unit"))
            y = np.asarray(tr[channel][i], dtype=np.float64) * factor
            ax.plot(t[keep], y[keep], ls, color=color, lw=1.2)
            if not study.ok[i] and keep.any():
                ax.axvline(t[keep][-1], color=color, ls=":", lw=1.0, alpha=0.8)
        handles.append(Line2D([], [], color=color, ls=ls, lw=1.5, label=instance_label(study, i)))
    for ax, (channel, name) in zip(axes, panels):
        _, unit = display_scale(attr_text(tr[channel], "unit"))
        ax.set_ylabel(label(name, unit))
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel(label("time", t_unit))
    ncol = 2 if len(picks) > 3 and max(len(h.get_label()) for h in handles) < 60 else 1
    fig.legend(handles=handles, loc="outside lower center", ncol=ncol, fontsize="small", frameon=False,
               title="instance (dotted vertical line: where a failed instance stopped)", title_fontsize="small")
    titles(fig, study, "time histories")
    axes[0].set_title(study.subtitle() + f"; {len(picks)} of {rows} instances", fontsize="small")
    save(fig, out / "time_histories.png", written)


# ---- main -----------------------------------------------------------------------------

def open_output(directory, filename, command, kind, groups):
    """`directory/filename`, written by `hydrosweep <command>`, opened and checked
    to hold `groups`; UsageError naming the file otherwise."""
    path = directory / filename
    if not path.is_file():
        raise UsageError(f"{path} not found (is {directory} the output directory of `hydrosweep {command}`?)")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise UsageError(f"{path} is not a hydrosweep {kind} file (not readable as HDF5: {e})") from None
    if not all(isinstance(f.get(g), h5py.Group) for g in groups):
        f.close()
        names = " or ".join("/" + g for g in groups)
        raise UsageError(f"{path} is not a hydrosweep {kind} file (no {names} group)")
    return path, f


def run(args):
    directory = Path(args.dir)
    path, f = open_output(directory, "results.h5", "run", "results", ["metadata"])
    with f:
        study = Study(f, directory)
        outputs = study.output_names()
        if args.quantity:
            unknown = [q for q in args.quantity if q not in outputs]
            if unknown:
                raise UsageError(f"no output {', '.join(unknown)} in {path}; have: {', '.join(sorted(outputs)) or 'none'}")
            quantities = list(dict.fromkeys(args.quantity))
        else:
            quantities = study.default_quantities()
        rows = study.trajectories["t"].shape[0] if study.trajectories is not None and "t" in study.trajectories else study.n
        if args.instances:
            bad = [i for i in args.instances if not 0 <= i < rows]
            if bad:
                raise UsageError(f"--instances {' '.join(map(str, bad))}: out of range (0 .. {rows - 1})")

        out = Path(args.out) if args.out else directory / "plots"
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out} exists and is not a directory")
        written = Figures(getattr(args, "format", FORMATS[0]))
        out.mkdir(parents=True, exist_ok=True)
        retire_plot_set(out)
        if not quantities:
            note("no quantity to plot (no /analysis quantities and no p2_max output)")
        for q in quantities:
            plot_histogram(study, q, out, written)
            plot_cdf(study, q, out, written)
            if study.sobol is not None:
                if q in study.sobol:
                    plot_sobol(study, q, out, written)
                else:
                    note(f"sobol_{q}: no /analysis/sobol/{q}; skipped")

        grid = study.method == "grid"
        layout = None
        if not study.method and len(study.varied) == 2:  # older files: no sample_method; a full grid is a grid
            layout = grid_layout(study)
            grid = layout is not None
        if quantities and study.varied:
            if grid and len(study.varied) == 2:
                layout = layout or grid_layout(study)
                if layout is None:
                    note("map: the two varied inputs do not form a full grid; drawing scatter plots instead")
                for q in quantities:
                    (plot_map(study, q, layout, out, written) if layout is not None
                     else plot_scatter(study, q, out, written))
            elif grid and len(study.varied) > 2:
                note(f"map: grid with {len(study.varied)} varied inputs; heat maps need exactly two; skipped")
            else:  # non-grid design, or a grid with one varied input
                for q in quantities:
                    plot_scatter(study, q, out, written)
        elif quantities:
            note("map/scatter: no varied inputs; skipped")

        if study.trajectories is not None:
            instances = list(dict.fromkeys(args.instances)) if args.instances else default_instances(study, rows)
            plot_time_histories(study, instances, out, written)
        elif args.instances:
            note("--instances: the file has no /trajectories (trajectory_stride = 0); no time histories")
    return written


def main():
    p = argparse.ArgumentParser(prog="plot_study.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="output directory of `hydrosweep run` (holds results.h5)")
    p.add_argument("--out", metavar="PLOTDIR", help="where the figures go (default DIR/plots)")
    p.add_argument("--format", choices=FORMATS, default="png", help="the figures' file format (default png)")
    p.add_argument("--quantity", metavar="NAME", nargs="+", action="extend",
                   help="/outputs columns to plot (default: /analysis quantities, else p2_max)")
    p.add_argument("--instances", metavar="I", type=int, nargs="+", action="extend",
                   help="instance indices for the time histories (default: 5 spread out + the first failed)")
    args = p.parse_args()
    fail_without_traceback(run, args)


if __name__ == "__main__":
    main()
