#!/usr/bin/env python3
"""Plot a hydrosweep stability map: DIR/stability.h5 -> DIR/stability_map.png.

    python3 studies/plot_stability.py DIR [--out PLOTDIR] [--slice NAME=VALUE ...] [--format png|pdf|svg]

`hydrosweep stability` runs this at the end; `hydrosweep plot DIR` runs it on
a directory holding stability.h5. What is drawn depends on the design:

  grid with >= 2 axes  left: heat map of max Re(lambda) (structural zeros
                       excluded) over the first two axes (log axes where the
                       values are log-spaced), with the Re(lambda) = 0 contour
                       (or "stable/unstable everywhere" in the title) and the
                       overdamped/underdamped boundary; right: damping ratio
                       of the dominant pair (blank where overdamped). Further
                       axes are held at their first value, or at the value
                       --slice NAME=VALUE names (the nearest on that axis, in
                       the parameter's own unit; said in the title).
  one varied input     the same two quantities as line plots.
  sampled designs      scatter of the first two inputs coloured by max Re(lambda)
                       and by the damping ratio (one input: line plots).
  no varied input      the eigenvalues in the complex plane.
Failed points (status != ok) are grey.

Exit status: 0 when done; 2 when DIR/stability.h5 is missing or not a
stability file; 3 when h5py, matplotlib or numpy cannot be imported.

Also the module behind hydrosweep.plot.stability (installed as
hydrosweep/_plot_stability.py beside _plot_study.py): imported, a missing
h5py, matplotlib or numpy is an ImportError, not an exit.
"""
import argparse
import sys
from pathlib import Path

PROG = "plot_stability"

# plot_study loads h5py, numpy and matplotlib (or raises ImportError, whose
# script_exit is the line and exit status of the script: 3 when one is
# missing); its readers, axis helpers and output channels are reused here.
if __package__:  # in the hydrosweep package: hydrosweep/_plot_stability.py
    from . import _plot_study as plot_study
else:  # a script (or a top-level module): plot_study.py beside this file
    _here = str(Path(__file__).resolve().parent)
    if _here not in sys.path:
        sys.path.insert(0, _here)
    try:
        import plot_study
    except ImportError as e:
        if __name__ == "__main__" and hasattr(e, "script_exit"):
            print(e.script_exit[1], file=sys.stderr)
            sys.exit(e.script_exit[0])
        raise
_ps = plot_study  # its helpers used below, by their names there
UsageError, fail_without_traceback, open_output = _ps.UsageError, _ps.fail_without_traceback, _ps.open_output
attr_float, attr_list, attr_text, read_array = _ps.attr_float, _ps.attr_list, _ps.attr_text, _ps.read_array
cell_edges, display_scale, is_log_spaced = _ps.cell_edges, _ps.display_scale, _ps.is_log_spaced
nice_log_axis, save_figure, subplots = _ps.nice_log_axis, _ps.save_figure, _ps.subplots
import h5py  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap, Normalize, SymLogNorm, TwoSlopeNorm  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

FAILED_GREY = "0.6"


def note(msg):
    plot_study.note(msg, PROG)


def fmt(v, digits=4):
    return "nan" if not np.isfinite(v) else f"{v:.{digits}g}"


class Map:
    """What the plot needs from stability.h5."""

    def __init__(self, f, directory):
        meta = f["metadata"]
        st = f["stability"]
        self.name = attr_text(meta, "study_name") or Path(directory).resolve().name
        self.model = attr_text(meta, "model")
        self.friction = attr_text(meta, "friction")
        self.method = attr_text(meta, "sample_method")
        self.max_real = read_array(st["max_real"]).reshape(-1)
        self.n = self.max_real.size
        self.status = np.asarray(st["status"][()], dtype=np.int64).reshape(-1) if "status" in st else np.zeros(self.n, int)
        self.status_names = attr_list(st["status"], "status_names") if "status" in st else []
        self.ok = self.status == 0
        self.damping = read_array(st["damping_ratio"]).reshape(-1)
        self.overdamped = read_array(st["overdamped"]).reshape(-1)
        self.re = read_array(st["eigenvalues_real"]) if "eigenvalues_real" in st else None
        self.im = read_array(st["eigenvalues_imag"]) if "eigenvalues_imag" in st else None
        self.varied, self.inputs = [], {}
        self.factors = attr_list(meta, "factors")  # the design's axes; other varied inputs are derived
        inputs = f.get("inputs")
        if isinstance(inputs, h5py.Group):
            for name in attr_list(inputs, "varied"):
                ds = inputs.get(name)
                if isinstance(ds, h5py.Dataset) and ds.shape == (self.n,):
                    factor, unit = display_scale(attr_text(ds, "unit"))
                    self.varied.append(name)
                    self.inputs[name] = (read_array(ds), factor, unit)
        if "factors" in meta.attrs:
            self.factors = [n for n in self.factors if n in self.inputs]
        else:  # no list of factors: take every varied input as one
            self.factors = list(self.varied)

    def subtitle(self, shown=None):
        parts = [p for p in (self.model, self.friction) if p]
        n = self.n if shown is None else shown
        parts.append(f"{n} point{'s' if n != 1 else ''}")
        failed = int((~self.ok).sum()) if shown is None else None
        if failed:
            parts.append(f"{failed} failed")
        return ", ".join(parts)


def axis_label(name, unit):
    return f"{name} [{unit}]"


def stability_verdict(v):
    """'' when max Re(lambda) crosses 0, else the words for the title."""
    v = v[np.isfinite(v)]
    if v.size == 0:
        return "no ok point"
    if (v < 0).all():
        return "stable everywhere"
    if (v >= 0).all():
        return "unstable everywhere"
    return ""


def max_real_norm(v):
    """Colour scale of max Re(lambda): symmetric log when it spans decades, centred at 0 when it changes sign."""
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    lo, hi = float(v.min()), float(v.max())
    if lo == hi:
        w = 0.05 * abs(lo) if lo != 0 else 1.0
        return Normalize(vmin=lo - w, vmax=hi + w)
    mag = np.abs(v[v != 0])
    if mag.size and mag.max() > 100 * mag.min():
        return SymLogNorm(linthresh=max(float(mag.min()), 1e-3 * float(mag.max())), vmin=lo, vmax=hi, base=10)
    if lo < 0 < hi:
        return TwoSlopeNorm(vcenter=0.0, vmin=lo, vmax=hi)
    return Normalize(vmin=lo, vmax=hi)


def failed_legend(m, idx):
    failed = idx[~m.ok[idx]]
    if failed.size == 0:
        return None
    names = sorted({m.status_names[c] if 0 <= c < len(m.status_names) else f"status {c}" for c in m.status[failed]})
    return Patch(facecolor=FAILED_GREY, edgecolor="0.4", label=f"failed ({failed.size}: {', '.join(names)})")


def finish(fig, path):
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                nice_log_axis(axis)
    save_figure(fig, path)
    plot_study.announce(path)


# ---- grid heat maps ---------------------------------------------------------------

def grid_slice(m, chosen=None):
    """Points of the first two axes with each other axis at the value `chosen`
    names (NAME -> value in the parameter's unit; the axis value nearest to
    it), else at its first value -> (idx, held text)."""
    chosen = dict(chosen or {})
    unknown = [k for k in chosen if k not in m.factors[2:]]
    if unknown:
        axes = ", ".join(m.factors[2:]) or "none: the map has two axes or fewer"
        raise UsageError(f"--slice {unknown[0]}: not an axis held in the map (the axes beyond the first two: {axes})")
    idx = np.arange(m.n)
    held = []
    for name in m.factors[2:]:
        v, factor, unit = m.inputs[name]
        value = v[0]
        if name in chosen:
            axis = np.unique(v)
            value = axis[np.argmin(np.abs(axis - chosen[name]))]
        idx = idx[v[idx] == value]
        u = "" if unit in ("-", "") else f" {unit}"
        held.append(f"{name} = {fmt(value * factor)}{u}")
    return idx, held


def plot_grid(m, out, chosen=None):
    idx, held = grid_slice(m, chosen)
    (xname, yname) = m.factors[:2]
    x, xf, xunit = m.inputs[xname]
    y, yf, yunit = m.inputs[yname]
    ux, ix = np.unique(x[idx], return_inverse=True)
    uy, iy = np.unique(y[idx], return_inverse=True)
    ix, iy = ix.reshape(-1), iy.reshape(-1)
    if ux.size * uy.size != idx.size:
        note("the first two inputs do not form a full grid; scatter plots instead")
        return plot_scatter(m, out)
    xlog, ylog = is_log_spaced(ux), is_log_spaced(uy)
    xe, ye = cell_edges(ux, xlog) * xf, cell_edges(uy, ylog) * yf
    xc, yc = ux * xf, uy * yf

    def field(values):
        z = np.full((uy.size, ux.size), np.nan)
        z[iy, ix] = np.where(m.ok[idx], values[idx], np.nan)
        return z

    zr, zd = field(m.max_real), field(m.damping)
    zo = np.full((uy.size, ux.size), np.nan)
    zo[iy, ix] = np.where(m.ok[idx], m.overdamped[idx], np.nan)
    failed = np.zeros((uy.size, ux.size))
    failed[iy, ix] = ~m.ok[idx]

    fig, axes = subplots(1, 2, figsize=(15, 6.2), layout="constrained")
    verdict = stability_verdict(zr)
    handles = []
    for k, (ax, z, what) in enumerate(((axes[0], zr, "max Re(λ) [1/s] (structural zeros excluded)"),
                                      (axes[1], zd, "damping ratio ζ of the dominant pair [-]"))):
        ax.set_facecolor("white")
        if failed.any():  # failed cells grey underneath (the value mesh masks them)
            ax.pcolormesh(xe, ye, np.ma.masked_where(failed == 0, failed), cmap=ListedColormap([FAILED_GREY]),
                          shading="flat")
        norm = max_real_norm(z) if k == 0 else None
        cmap = "RdYlBu_r" if k == 0 else "magma"  # max Re(λ): red = least stable
        if np.isfinite(z).any():
            mesh = ax.pcolormesh(xe, ye, np.ma.masked_invalid(z), cmap=cmap, norm=norm, shading="flat")
            fig.colorbar(mesh, ax=ax, label=what)
        else:
            ax.text(0.5, 0.5, "overdamped everywhere" if k == 1 else "no ok point", transform=ax.transAxes,
                    ha="center", va="center")
        if xlog:
            ax.set_xscale("log")
        if ylog:
            ax.set_yscale("log")
        ax.set_xlim(xe.min(), xe.max())
        ax.set_ylim(ye.min(), ye.max())
        ax.set_xlabel(axis_label(xname, xunit))
        ax.set_ylabel(axis_label(yname, yunit))
        if ux.size >= 2 and uy.size >= 2:
            if k == 0 and not verdict:
                ax.contour(xc, yc, np.ma.masked_invalid(zr), levels=[0.0], colors="k", linewidths=2.0)
            fin = zo[np.isfinite(zo)]
            if fin.size and fin.min() < 0.5 < fin.max():
                ax.contour(xc, yc, np.ma.masked_invalid(zo), levels=[0.5], colors="w" if k == 0 else "C2",
                           linewidths=1.8, linestyles="--")
    if not verdict:
        handles.append(Line2D([], [], color="k", lw=2.0, label="Re(λ) = 0 (stability boundary)"))
    fin = zo[np.isfinite(zo)]
    if fin.size and fin.min() < 0.5 < fin.max():
        handles.append(Line2D([], [], color="0.3", lw=1.8, ls="--", label="overdamped / underdamped boundary"))
    if np.isfinite(zo).any() and (zo == 1).any():
        handles.append(Patch(facecolor="white", edgecolor="0.5", label="blank (right): overdamped, no oscillatory pair"))
    fl = failed_legend(m, idx)
    if fl is not None:
        handles.append(fl)
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 4), fontsize="small", frameon=False)
    title = f"{m.name}: stability map"
    if verdict:
        title += f" — {verdict}"
    fig.suptitle(title, fontsize="large")
    sub = m.subtitle(shown=idx.size) + f", {ux.size} x {uy.size} grid"
    if held:
        sub += "; other axes at " + ", ".join(held)
    axes[0].set_title(sub, fontsize="small", loc="left")
    finish(fig, out)


# ---- one input, sampled designs, single point ---------------------------------------

def plot_lines(m, out):
    name = (m.factors or m.varied)[0]
    x, xf, xunit = m.inputs[name]
    order = np.argsort(x, kind="stable")
    x = x[order] * xf
    ok = m.ok[order]
    fig, axes = subplots(2, 1, figsize=(9, 7.5), sharex=True, layout="constrained")
    log = np.unique(x).size >= 2 and is_log_spaced(np.unique(x))
    for ax, values, what in ((axes[0], m.max_real, "max Re(λ) [1/s]"), (axes[1], m.damping, "damping ratio ζ [-]")):
        v = np.where(ok, values[order], np.nan)
        ax.plot(x, v, "o-", ms=3, lw=1.3, color="C0")
        if (~ok).any():
            ax.scatter(x[~ok], np.full(int((~ok).sum()), 0.03), marker="s", color=FAILED_GREY, s=20,
                       transform=ax.get_xaxis_transform(), clip_on=False, label=f"failed ({int((~ok).sum())})")
            ax.legend(fontsize="small")
        over = (m.overdamped[order] == 1) & ok
        for xi in x[over]:
            ax.axvline(xi, color="C2", alpha=0.12, lw=3)
        ax.set_ylabel(what)
        ax.grid(True, alpha=0.3)
        if log:
            ax.set_xscale("log")
    axes[0].axhline(0.0, color="k", lw=1.0)
    axes[1].set_xlabel(axis_label(name, xunit))
    verdict = stability_verdict(np.where(ok, m.max_real[order], np.nan))
    fig.suptitle(f"{m.name}: stability along {name}" + (f" — {verdict}" if verdict else ""), fontsize="large")
    axes[0].set_title(m.subtitle() + "; green bands: overdamped points (no damping ratio)", fontsize="small")
    finish(fig, out)


def plot_scatter(m, out):
    if len(m.factors) < 2:
        return plot_lines(m, out)
    (xname, yname) = m.factors[:2]
    x, xf, xunit = m.inputs[xname]
    y, yf, yunit = m.inputs[yname]
    fig, axes = subplots(1, 2, figsize=(14, 6), layout="constrained")
    for ax, values, what in ((axes[0], m.max_real, "max Re(λ) [1/s]"), (axes[1], m.damping, "damping ratio ζ [-]")):
        good = m.ok & np.isfinite(values)
        if (~m.ok).any():
            ax.scatter(x[~m.ok] * xf, y[~m.ok] * yf, color=FAILED_GREY, s=14, marker="s", label="failed")
        if good.any():
            sc = ax.scatter(x[good] * xf, y[good] * yf, c=values[good], s=16,
                            norm=max_real_norm(values[good]) if values is m.max_real else None,
                            cmap="RdYlBu_r" if values is m.max_real else "magma")
            fig.colorbar(sc, ax=ax, label=what)
        ax.set_xlabel(axis_label(xname, xunit))
        ax.set_ylabel(axis_label(yname, yunit))
        ax.grid(True, alpha=0.3)
    verdict = stability_verdict(np.where(m.ok, m.max_real, np.nan))
    fig.suptitle(f"{m.name}: stability over {xname} and {yname}" + (f" — {verdict}" if verdict else ""), fontsize="large")
    axes[0].set_title(m.subtitle() + ("; further inputs not shown" if len(m.factors) > 2 else ""), fontsize="small")
    finish(fig, out)


def plot_point(m, out):
    fig, ax = subplots(figsize=(8, 6), layout="constrained")
    if m.re is not None and m.ok.any():
        re, im = m.re[0], m.im[0]
        ax.scatter(re, im, marker="x", s=60, color="C0")
        ax.axvline(0.0, color="k", lw=1.0)
        ax.set_xscale("symlog", linthresh=max(1e-3, float(np.nanmin(np.abs(re[np.abs(re) > 0]))) if (np.abs(re) > 0).any() else 1.0))
    ax.set_xlabel("Re(λ) [1/s]")
    ax.set_ylabel("Im(λ) [1/s]")
    ax.grid(True, alpha=0.3)
    verdict = stability_verdict(np.where(m.ok, m.max_real, np.nan))
    fig.suptitle(f"{m.name}: eigenvalues — {verdict}, max Re(λ) = {fmt(m.max_real[0])} 1/s", fontsize="large")
    ax.set_title(m.subtitle(), fontsize="small")
    finish(fig, out)


def parse_slices(texts):
    """["payload.mass=200", ...] -> {"payload.mass": 200.0}."""
    chosen = {}
    for t in texts:
        name, sep, value = t.partition("=")
        try:
            chosen[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise UsageError(f"--slice {t}: expected NAME=VALUE, e.g. payload.mass=200 (the value in the parameter's unit)")
    return chosen


def run(args):
    directory = Path(args.dir)
    path, f = open_output(directory, "stability.h5", "stability", "stability", ["metadata", "stability"])
    with f:
        m = Map(f, directory)
        out_dir = Path(args.out) if args.out else directory
        if out_dir.exists() and not out_dir.is_dir():
            raise UsageError(f"--out {out_dir} exists and is not a directory")
        fmt = plot_study.check_format(getattr(args, "format", plot_study.FORMATS[0]))
        chosen = parse_slices(args.slice or [])
        if chosen and (m.method != "grid" or len(m.factors) <= 2):
            raise UsageError("--slice selects a slice of a grid map with more than two axes; this map has "
                             f"{len(m.factors)} varied input(s) ({m.method or 'no'} design)")
        if chosen:
            grid_slice(m, chosen)  # an unknown axis is refused before anything is written
        if m.n == 0:
            raise UsageError(f"{path} holds no points")
        out_dir.mkdir(parents=True, exist_ok=True)
        out = out_dir / f"stability_map.{fmt}"
        if not m.varied:
            plot_point(m, out)
        elif len(m.factors) <= 1:
            plot_lines(m, out)
        elif m.method == "grid":
            plot_grid(m, out, chosen)
        else:
            plot_scatter(m, out)
    return out


def main():
    p = argparse.ArgumentParser(prog="plot_stability.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="output directory of `hydrosweep stability` (holds stability.h5)")
    p.add_argument("--out", metavar="PLOTDIR", help="where stability_map.png goes (default DIR)")
    p.add_argument("--slice", metavar="NAME=VALUE", action="append",
                   help="hold a grid axis beyond the first two at this value (nearest on the axis); repeatable")
    p.add_argument("--format", choices=plot_study.FORMATS, default="png", help="the figure's file format (default png)")
    args = p.parse_args()
    fail_without_traceback(run, args, PROG)


if __name__ == "__main__":
    main()
