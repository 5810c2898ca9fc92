"""The figures of hydrosweep output directories, as `hydrosweep plot DIR` draws
them (the ``[plot]`` extra: matplotlib).

    import hydrosweep.plot
    hydrosweep.plot.plot("out/grid")                  # = hydrosweep plot out/grid
    hydrosweep.plot.study("out/grid", quantity=["p2_max"], format="svg")
    hydrosweep.plot.stability("out/map", slices={"circuit.oil_bulk_modulus": 2e9})

The code is that of the CLI's plot scripts, studies/plot_study.py and
studies/plot_stability.py (installed here as _plot_study and _plot_stability;
python/CMakeLists.txt), imported on the first call: without matplotlib or
h5py a call raises ImportError naming the extra (``import hydrosweep`` and
``import hydrosweep.plot`` work without them). Errors follow the CLI's exit
statuses: what the scripts refuse with status 2 (a directory without the
file, a file that is not hydrosweep's, an unknown quantity, instance or slice
axis, a bad format) raises StudyError with their message; a file that cannot
be read or written (status 1) OutputError. The scripts' notes (a plot
skipped, and why) are HydrosweepWarning warnings; nothing is printed.
"""
from __future__ import annotations

import argparse
import numbers
import os
import warnings
from pathlib import Path

from . import _core
from ._api import HydrosweepWarning
from ._core import OutputError, StudyError

__all__ = ["plot", "study", "stability"]

RESULTS_FILE, STABILITY_FILE = "results.h5", "stability.h5"


def _scripts():
    """(_plot_study, _plot_stability), imported on first use; ImportError with
    the install hint when h5py, matplotlib or numpy is missing."""
    from . import _plot_stability, _plot_study

    return _plot_study, _plot_stability


def _names(value, what):
    """None, a str or an iterable of str -> list of str (None: [])."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)):
        value = [value]
    names = list(value)
    for v in names:
        if not isinstance(v, str):
            raise TypeError(f"{what}: names are str, not {type(v).__name__}")
    return names


def _indices(value):
    """None, an int or an iterable of ints -> list of int (None: [])."""
    if value is None:
        return []
    if isinstance(value, numbers.Integral):
        value = [value]
    out = []
    for v in value:
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise TypeError(f"instances: indices are int, not {type(v).__name__}")
        out.append(int(v))
    return out


def _slices(slices):
    """{name: value} -> the scripts' NAME=VALUE texts (values as float)."""
    if slices is None:
        return []
    if not hasattr(slices, "items"):
        raise TypeError(f"slices: a dict of axis name -> value, not {type(slices).__name__}")
    texts = []
    for name, value in slices.items():
        if not isinstance(name, str):
            raise TypeError(f"slices: axis names are str, not {type(name).__name__}")
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"slices[{name!r}]: a number in the parameter's unit, not {type(value).__name__}")
        texts.append(f"{name}={float(value)!r}")
    return texts


def _finish_commit(directory):
    # A final write that a killed run committed is completed first, so that the
    # plots read one run's files (the CLI and read_results do the same).
    if os.path.isdir(directory):
        _core.finish_interrupted_commit(os.fspath(directory))


def _call(script, args, stacklevel):
    """script.run(args) with the scripts' errors as the package's exceptions and
    their notes as HydrosweepWarning (issued when the call ends)."""
    plot_study = _scripts()[0]
    notes = []
    try:
        with plot_study.quiet(lambda prog, msg: notes.append(msg)):
            return script.run(args)
    except plot_study.UsageError as e:  # the scripts' exit 2
        raise StudyError(str(e)) from None
    except OSError as e:  # a file that cannot be read or written: the scripts' exit 1
        where = f"{e.filename}: " if e.filename else ""
        raise OutputError(f"{where}{e.strerror or e}") from e
    finally:
        for msg in notes:
            warnings.warn(msg, HydrosweepWarning, stacklevel=stacklevel + 1)


def _study(directory, out, quantity, instances, format, stacklevel):
    plot_study = _scripts()[0]
    args = argparse.Namespace(dir=os.fspath(directory), out=None if out is None else os.fspath(out),
                              quantity=_names(quantity, "quantity"), instances=_indices(instances), format=format)
    return list(_call(plot_study, args, stacklevel + 1))


def _stability(directory, out, slices, format, stacklevel):
    plot_stability = _scripts()[1]
    args = argparse.Namespace(dir=os.fspath(directory), out=None if out is None else os.fspath(out),
                              slice=_slices(slices), format=format)
    return _call(plot_stability, args, stacklevel + 1)


def study(directory, out=None, *, quantity=None, instances=None, format="png") -> list[Path]:
    """The figures of a `hydrosweep run` directory (DIR/results.h5), as
    ``hydrosweep plot DIR`` and studies/plot_study.py draw them: histogram_Q,
    cdf_Q, sobol_Q, map_Q or scatter_Q per quantity Q, and time_histories,
    whichever the file supports, in OUT (default DIR/plots; an earlier plot
    run's set there is replaced).

    quantity: output names (a str or a list; default the [analysis]
    quantities, else p2_max); instances: instance indices of the time
    histories (default up to 5 spread out and the first failed one);
    format: "png", "pdf" or "svg". Returns the paths written, in order."""
    _finish_commit(directory)
    return _study(directory, out, quantity, instances, format, 2)


def stability(directory, out=None, *, slices=None, format="png") -> Path:
    """The map of a `hydrosweep stability` directory (DIR/stability.h5) as
    ``hydrosweep plot DIR`` and studies/plot_stability.py draw it:
    OUT/stability_map.FORMAT (OUT default DIR). slices: {axis name: value}
    holds a grid's axes beyond the first two at the axis value nearest to
    value (in the parameter's unit; default each at its first value).
    Returns the path written."""
    _finish_commit(directory)
    return _stability(directory, out, slices, format, 2)


def plot(directory, out=None, *, quantity=None, instances=None, slices=None, format="png") -> list[Path]:
    """What ``hydrosweep plot DIR`` draws, chosen by the directory's files:
    the stability map when it holds stability.h5 (into OUT, default DIR),
    the study's figures when it holds results.h5 (into OUT, default
    DIR/plots), both when it holds both. quantity and instances are
    study()'s, slices stability()'s. Returns the paths written."""
    _finish_commit(directory)
    d = Path(directory)
    has_map, has_run = (d / STABILITY_FILE).is_file(), (d / RESULTS_FILE).is_file()
    if slices and not has_map:
        raise StudyError(f"--slice holds an axis of a stability map; {os.fspath(directory)} has no {STABILITY_FILE}")
    if (quantity or instances) and has_map and not has_run:
        what = "--quantity picks outputs" if quantity else "--instances picks instances"
        raise StudyError(f"{what} of a run; {os.fspath(directory)} holds a stability map ({STABILITY_FILE}) only")
    written = []
    if has_map:
        written.append(_stability(directory, out, slices, format, 2))
        if not has_run:
            return written
    return written + _study(directory, out, quantity, instances, format, 2)
