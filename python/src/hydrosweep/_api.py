"""run, stability, models, parameters: the CLI's commands as functions."""
import numbers
import os
import sys
import threading
import warnings

from . import _core
from ._results import Results, StabilityMap
from ._toml import dumps

__all__ = ["run", "stability", "check", "models", "parameters", "study_text", "DICT_STUDY_NAME", "HydrosweepWarning"]

# The file name a dict study has in messages and in the outputs' metadata
# (study_path; also the study's name when its [study] table has none).
DICT_STUDY_NAME = "<dict>"


class HydrosweepWarning(UserWarning):
    """A note of the host library (the CLI prints it as "hydrosweep: note: ..."),
    e.g. why backend="auto" did not take the GPU."""


def study_text(study):
    """The TOML text of a study dict (what run/stability parse for a dict)."""
    return dumps(study)


def _source(study):
    """(path, text) for _core: a file (text None) or a dict's TOML text."""
    if isinstance(study, (str, bytes, os.PathLike)):
        path = os.fsdecode(study) if isinstance(study, bytes) else os.fspath(study)
        return path, None
    if hasattr(study, "keys") and hasattr(study, "items"):
        return DICT_STUDY_NAME, dumps(study)
    raise TypeError(f"study must be a path to a TOML study file or a dict, not {type(study).__name__}")


def _with_rows(study, out):
    """A dict study whose [sample] holds ``rows`` (a pandas DataFrame, or an
    array with ``columns``): the rows saved as OUT/design_rows.npy and the
    study naming that file (method "rows"); any other study unchanged."""
    if not (hasattr(study, "keys") and hasattr(study, "items")):
        return study
    sample = study.get("sample")
    if not (hasattr(sample, "keys") and "rows" in sample):
        return study
    import numpy as np

    sample = dict(sample)
    rows = sample.pop("rows")
    if hasattr(rows, "columns") and hasattr(rows, "to_numpy"):  # a pandas DataFrame names its columns
        if "columns" in sample:
            raise ValueError("sample: columns= is for an array of rows; a DataFrame's columns name the parameters")
        columns = [str(c) for c in rows.columns]
        array = rows.to_numpy(dtype=float)
    else:
        array = np.asarray(rows, dtype=float)
        if array.ndim == 1:
            array = array[:, None]
        columns = [str(c) for c in (sample.get("columns") or [])]
        if not columns:
            raise ValueError("sample.rows: an array of rows needs sample.columns = [...] naming its columns "
                             "(dotted parameter names, in order), or pass a pandas DataFrame")
    if array.ndim != 2:
        raise ValueError(f"sample.rows: a design is a 2-D array (rows, columns), not shape {array.shape}")
    path = os.path.join(os.path.abspath(os.fspath(out)), "design_rows.npy")
    try:
        os.makedirs(out, exist_ok=True)
        np.save(path, np.ascontiguousarray(array, dtype="<f8"))
    except OSError as e:  # as the run's own output check would say it: the CLI's exit 1
        raise _core.OutputError(f"{os.fspath(out)}: cannot hold the design's rows ({path}): {e.strerror or e}") from e
    sample.setdefault("method", "rows")
    sample.update(file=path, columns=columns)
    study = dict(study)
    study["sample"] = sample
    return study


def _note(report):
    if report.get("note"):
        warnings.warn(report["note"], HydrosweepWarning, stacklevel=3)


def _progress_display(progress):
    """What run()'s progress= becomes: None (quiet), or a callable(done, total,
    final) for the host: the user's own (called with done and total), or for
    True a tqdm bar when tqdm is installed, else one line on stderr redrawn."""
    if progress is None or progress is False:
        return None
    if callable(progress):
        return lambda done, total, final: progress(done, total)
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    bar = []

    def show(done, total, final):
        if tqdm is not None:
            if not bar:
                bar.append(tqdm(total=total, unit="instance", desc="hydrosweep"))
            bar[0].update(done - bar[0].n)
            if final:
                bar[0].close()
            return
        sys.stderr.write(f"\rhydrosweep: {done}/{total} instances ({100.0 * done / max(total, 1):.1f}%)"
                         + ("\n" if final else ""))
        sys.stderr.flush()

    return show


def run(study, out, *, threads=0, backend="auto", chunk_size=0, resume=False, extend=0, progress=None):
    """Run every instance of a study and write OUT/results.h5 and OUT/summary.csv.

    The same as ``hydrosweep run STUDY --out OUT [--threads N] [--backend B]
    [--chunk-size N] [--resume] [--extend N] --quiet`` (same host calls, same files).

    study: path (str or os.PathLike) of a TOML study file, or a dict with the
        file's tables (converted to TOML; named "<dict>" in messages). A dict's
        "sample" may hold the design itself: {"rows": DataFrame} (columns =
        dotted parameter names) or {"rows": array, "columns": [...]}; the rows
        are saved as OUT/design_rows.npy and run as method "rows".
    out: output directory (created if missing).
    threads: CPU threads, 0 = all cores. backend: "auto", "cpu", "cuda",
        "kokkos" (this package is built for the CPU only; "auto" runs there).
    chunk_size: instances per chunk (0: the study's [execution] chunk_size, else
        automatic). resume: continue an interrupted run in OUT.
    extend: N > 0 adds N samples to the finished Monte Carlo run in OUT (the
        study's text with count = the run's + N; equal to one run of that count;
        docs/study-files.md "Extending a Monte Carlo study"). The study's own
        count may stay as it was; a refusal (not Monte Carlo, another study,
        no finished run) is a StudyError.
    progress: None (quiet, the default); True: a tqdm bar when tqdm is
        installed, else a line on stderr; or a callable(done, total) called
        about every 250 ms and once at the end (from the run's progress thread).

    Returns a Results (arrays read back from OUT/results.h5; Results.report
    holds the run's counts and times). Raises StudyError (a bad study or
    option, a refused resume, a backend this build lacks) or HydrosweepError
    (OutputError when OUT cannot be written) with the CLI's message. Ctrl-C (from the main
    thread) stops after the instances in flight, keeps the finished chunks for
    resume=True and raises KeyboardInterrupt; a second Ctrl-C ends the
    process, like the CLI's. The GIL is released while the study runs.
    """
    path, text = _source(_with_rows(study, out))
    main = threading.current_thread() is threading.main_thread()
    if isinstance(extend, bool) or not isinstance(extend, numbers.Integral) or extend < 0:
        raise ValueError(f"extend = {extend!r}: a whole number of samples to add, >= 0 (0: an ordinary run)")
    report = _core.run(path, text, os.fspath(out), threads, backend, chunk_size, resume, int(extend), main,
                       _progress_display(progress))
    _note(report)
    return Results(out, report=report)


def read_partial(study, out):
    """The finished part of an interrupted run in OUT (its chunks in
    OUT/.hydrosweep-partial), without finishing it: a PartialResults whose
    instances not finished yet have status "not_run" and NaN outputs.

    study: the study the run was started with (path or dict, as for run()):
    the chunks must belong to it, as for resume=True; a mismatch, or an OUT
    without an interrupted run, raises StudyError naming what differs.
    """
    from ._results import PartialResults

    path, text = _source(_with_rows(study, out))
    return PartialResults(out, _core.partial(path, text, os.fspath(out)))


def stability(study, out, *, threads=0, backend="auto"):
    """Stability map of a study: OUT/stability.h5 and OUT/stability.csv.

    The same as ``hydrosweep stability STUDY --out OUT [--threads N]
    [--backend B] --quiet`` except that no stability_map.png is drawn (plot
    with ``hydrosweep plot OUT``). Returns a StabilityMap; errors as run().
    """
    path, text = _source(_with_rows(study, out))
    report = _core.stability(path, text, os.fspath(out), threads, backend)
    _note(report)
    return StabilityMap(out, report=report)


def check(study, *, rows=1000):
    """Read and validate a study without running it, as ``hydrosweep check``
    does: a bad study raises StudyError with the CLI's message (file, line,
    key, what is allowed).

    Returns a dict: name, model, formulation, friction, method,
    instance_count, varied_names, varied_units and design, a float64 array of
    the varied inputs of the first ``rows`` instances (rows x varied inputs).
    A dict study's ``sample.rows`` (a DataFrame or array) is checked as run()
    would run it (saved to a temporary .npy file for the check).
    """
    import tempfile

    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        path, text = _source(_with_rows(study, tmp))
        d = _core.check(path, text, int(rows))
    d["design"] = np.asarray(d["design"], dtype=np.float64).reshape(-1, len(d["varied_names"]))
    return d


def models():
    """The registered models (host/registry/models.hpp), in the order of
    ``hydrosweep parameters``: a list of dicts with keys name, title, source,
    doc, physics, supports (the CLI's "Supports:" text), commands,
    friction_laws, formulations, stability_friction_laws, stability_methods,
    parameter_count, summary_columns and trajectory_channels (lists of dicts
    name, unit, description, integer), driving_coordinate."""
    return _core.models()


def parameters(model="four-bar", *, schedule=False):
    """The parameter table of ``hydrosweep parameters --model MODEL``: a list of
    dicts, one per parameter in row order, with keys name (dotted), unit, min,
    max, min_exclusive, range (the CLI's text, e.g. "(0, 1e+12]"), default
    (float), description, integer (bool), role ("parameter" or
    "input_schedule"), index (the column in Results.inputs). schedule=True
    also lists the valve schedule's input.* columns, which the CLI's table
    leaves out. MODEL may also be a model file (a path ending in .toml,
    docs/model-files.md). An unknown model or a bad model file raises
    StudyError with the CLI's message."""
    return _core.parameters(model, schedule)
