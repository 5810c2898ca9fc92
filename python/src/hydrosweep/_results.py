"""Results directories as numpy arrays: DIR/results.h5 (`hydrosweep run`) and
DIR/stability.h5 (`hydrosweep stability`), read with h5py.

The layout of both files is documented in host/results/output.hpp and
docs/study-files.md; these classes read it into arrays with fixed shapes and
dtypes (python/README.md lists them).
"""
import importlib
import os

import h5py
import numpy as np

__all__ = ["Results", "PartialResults", "StabilityMap", "read_results"]

RESULTS_FILE = "results.h5"
STABILITY_FILE = "stability.h5"


def _text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8")
    return str(v)


def _texts(v):
    return [_text(s) for s in np.atleast_1d(v).tolist()]


def _python(v):
    """An HDF5 attribute as a plain Python value (str, int, float, list)."""
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "OSU":
            return _texts(v)
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def _attrs(obj):
    return {k: _python(v) for k, v in obj.attrs.items()}


def _optional(module, method):
    """An optional dependency (an extra of the package), or ImportError
    saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(f"{method}() needs {module}, which is not installed: "
                          f"pip install {module} (or pip install './python[{module}]')") from e


def _pandas():
    return _optional("pandas", "to_dataframe")


def _xarray():
    return _optional("xarray", "to_xarray")


# /metadata attributes a Dataset carries (scalars that say what the study was).
_DATASET_ATTRS = ("study_name", "study_path", "model", "friction", "formulation", "sample_method", "seed", "dt",
                  "duration", "hydrosweep_version")


class _Directory:
    """What results.h5 and stability.h5 share: the inputs and the metadata."""

    def _xarray_dataset(self, variables):
        """An xarray.Dataset over dimension "instance" (coordinate: the index)
        of the varied inputs and `variables` (name -> (dims, values, unit)),
        each with its unit in attrs["units"]; the study's metadata in attrs."""
        xr = _xarray()
        data = {}
        for k, name in enumerate(self.varied_names):
            data[name] = ("instance", self.varied[:, k], {"units": self.varied_units[k], "role": "varied input"})
        for name, (dims, values, unit) in variables.items():
            data[name] = (dims, values, {"units": unit})
        attrs = {k: self.metadata[k] for k in _DATASET_ATTRS if k in self.metadata}
        return xr.Dataset(data, coords={"instance": np.arange(len(self))}, attrs=attrs)

    def _read_common(self, f, path, report):
        self.path = os.path.abspath(os.fspath(path))
        self.report = report
        self.metadata = _attrs(f["metadata"]) if "metadata" in f else {}
        inputs = f["inputs"]
        all_ = inputs["all"]
        self.inputs = np.asarray(all_[...], dtype=np.float64)
        self.input_names = _texts(all_.attrs["columns"])
        self.input_units = _texts(all_.attrs["units"])
        self.varied_names = _texts(inputs.attrs["varied"]) if "varied" in inputs.attrs else []
        n = self.inputs.shape[0]
        self.varied = np.empty((n, len(self.varied_names)), dtype=np.float64)
        self.varied_units = []
        for k, name in enumerate(self.varied_names):
            d = inputs[name]
            self.varied[:, k] = d[...]
            self.varied_units.append(_text(d.attrs.get("unit", "")))

    def __len__(self):
        return int(self.inputs.shape[0])

    @property
    def instance_count(self):
        """N, the number of instances (points)."""
        return len(self)

    @property
    def ok(self):
        """bool (N,): status == 0."""
        return self.status == 0

    @property
    def status_text(self):
        """list of N str: the status name of every instance."""
        names = self.status_names
        return [names[s] if 0 <= s < len(names) else str(s) for s in self.status.tolist()]

    def input(self, name):
        """float64 (N,): one parameter of every instance (a varied input or any column of inputs)."""
        if name in self.varied_names:
            return self.varied[:, self.varied_names.index(name)].copy()
        if name in self.input_names:
            return self.inputs[:, self.input_names.index(name)].copy()
        raise KeyError(f"{name!r} is neither a varied input nor a parameter of {self.path}")


class Results(_Directory):
    """The results of `hydrosweep run` (DIR/results.h5), as arrays.

    N instances, P parameters of the model, V varied inputs, K summary outputs,
    M samples per trajectory:

    ============== ==================== ===============================================
    attribute      shape, dtype          content
    ============== ==================== ===============================================
    inputs         (N, P) float64        every parameter of every instance (/inputs/all)
    input_names    list of P str         dotted parameter names (columns of inputs)
    input_units    list of P str
    varied         (N, V) float64        the design's varied inputs (factors, derived),
                                         the columns summary.csv has after status
    varied_names   list of V str
    varied_units   list of V str
    outputs        (N, K) float64        the model's summary columns (/outputs/<name>;
                                         integer columns such as steps converted exactly)
    output_names   list of K str         in the model's order (= summary.csv)
    output_units   list of K str
    output_integer list of K bool        written as int64 in results.h5
    status         (N,) int32            0 = ok; status_names[code] names a code
    status_names   list of str
    trajectories   dict str -> (N, M)    float64 per channel (empty without
                   float64               [output] trajectory_stride); NaN where a
                                         failed instance recorded no sample
    metadata       dict                  /metadata attributes (study_text, model, ...)
    report         dict or None          what the run returned (None when read from disk)
    path           str                   the results directory
    ============== ==================== ===============================================
    """

    def __init__(self, path, report=None):
        file = os.path.join(os.fspath(path), RESULTS_FILE)
        with h5py.File(file, "r") as f:
            self._read_common(f, path, report)
            outs = f["outputs"]
            status = outs["status"]
            self.status = np.asarray(status[...], dtype=np.int32)
            self.status_names = _texts(status.attrs["status_names"])
            names = self._output_order(outs)
            n = self.status.shape[0]
            self.outputs = np.empty((n, len(names)), dtype=np.float64)
            self.output_names, self.output_units, self.output_integer = [], [], []
            for k, name in enumerate(names):
                d = outs[name]
                self.outputs[:, k] = d[...]
                self.output_names.append(name)
                self.output_units.append(_text(d.attrs.get("unit", "")))
                self.output_integer.append(d.dtype.kind in "iu")
            self._trajectory_names = list(f["trajectories"].keys()) if "trajectories" in f else []
            self._trajectories = None
            self.analysis = _read_group(f["analysis"]) if "analysis" in f else {}

    def _output_order(self, outs):
        """The summary columns in the model's order (summary.csv's), then any others the file has."""
        present = [k for k in outs.keys() if k != "status"]
        order = []
        try:
            from . import _core

            model = self.metadata.get("model")
            for m in _core.models():
                if m["name"] == model:
                    order = [c["name"] for c in m["summary_columns"]]
        except ImportError:  # pragma: no cover
            pass
        first = [c for c in order if c in present]
        return first + sorted(c for c in present if c not in first)

    @property
    def trajectories(self):
        """dict channel -> float64 (N, M); read from results.h5 on first use."""
        if self._trajectories is None:
            self._trajectories = {}
            if self._trajectory_names:
                with h5py.File(os.path.join(self.path, RESULTS_FILE), "r") as f:
                    for name in self._trajectory_names:
                        self._trajectories[name] = np.asarray(f["trajectories"][name][...], dtype=np.float64)
        return self._trajectories

    def output(self, name):
        """float64 (N,): one summary column of every instance."""
        return self.outputs[:, self.output_names.index(name)].copy()

    def to_dataframe(self, all_inputs=False):
        """A pandas DataFrame with summary.csv's content: index (the DataFrame's
        index, "index"), status (str), the varied inputs, the outputs (the
        integer ones as int64, the others float64). all_inputs=True: every
        parameter column of `inputs` instead of the varied inputs only.
        attrs["units"]: every column's unit (summary.columns.csv's).
        Raises ImportError when pandas is not installed."""
        pd = _pandas()
        cols = {"status": self.status_text}
        units = {"status": "-"}
        names, values, in_units = ((self.input_names, self.inputs, self.input_units) if all_inputs
                                   else (self.varied_names, self.varied, self.varied_units))
        for k, name in enumerate(names):
            cols[name] = values[:, k]
            units[name] = in_units[k]
        for k, name in enumerate(self.output_names):
            col = self.outputs[:, k]
            cols[name] = col.astype(np.int64) if self.output_integer[k] else col
            units[name] = self.output_units[k]
        df = pd.DataFrame(cols, index=pd.RangeIndex(len(self), name="index"))
        df.attrs["units"] = units
        return df

    def to_xarray(self):
        """An xarray.Dataset: dimension "instance"; the varied inputs, status
        (int32, attrs["status_names"]) and every output as variables, each
        with attrs["units"]; the trajectories, when recorded, over
        ("instance", "sample"); the study's metadata in attrs. Raises
        ImportError when xarray is not installed."""
        variables = {"status": ("instance", self.status, "-")}
        for k, name in enumerate(self.output_names):
            col = self.outputs[:, k]
            variables[name] = ("instance", col.astype(np.int64) if self.output_integer[k] else col, self.output_units[k])
        units = {}
        if self._trajectory_names:
            with h5py.File(os.path.join(self.path, RESULTS_FILE), "r") as f:
                units = {n: _text(f["trajectories"][n].attrs.get("unit", "")) for n in self._trajectory_names}
        for name, values in self.trajectories.items():
            variables["trajectory_" + name] = (("instance", "sample"), values, units.get(name, ""))
        ds = self._xarray_dataset(variables)
        ds["status"].attrs["status_names"] = list(self.status_names)
        return ds

    def statistics(self):
        """The /analysis statistics as a pandas DataFrame, one row per analysed
        quantity (index "quantity"): unit, mean, mean_ci_low, mean_ci_high,
        std, std_ci_low, std_ci_high, count_ok, count_failed,
        count_undefined, and per quantile level p the columns q<p>,
        q<p>_ci_low, q<p>_ci_high (e.g. q0.05). attrs["confidence"]: the
        intervals' level. Empty without an [analysis]. ImportError without pandas."""
        pd = _pandas()
        rows = {}
        for q, g in self.analysis.get("statistics", {}).items():
            row = {"unit": self.output_units[self.output_names.index(q)] if q in self.output_names else ""}
            for key in ("mean", "mean_ci_low", "mean_ci_high", "std", "std_ci_low", "std_ci_high",
                        "count_ok", "count_failed", "count_undefined"):
                if key in g:
                    row[key] = g[key]
            for level, v, lo, hi in zip(*(np.asarray(g.get(k, []), dtype=float).reshape(-1) for k in
                                          ("quantile_levels", "quantiles", "quantile_ci_low", "quantile_ci_high"))):
                name = f"q{level:g}"
                row[name], row[name + "_ci_low"], row[name + "_ci_high"] = v, lo, hi
            rows[q] = row
        df = pd.DataFrame.from_dict(rows, orient="index")
        df.index.name = "quantity"
        df.attrs["confidence"] = self.analysis.get("confidence")
        return df

    def sobol_indices(self, quantity):
        """Sobol' indices of one analysed quantity (saltelli designs) as a pandas
        DataFrame, one row per factor (index "factor"): first_order,
        first_order_ci_low, first_order_ci_high, total, total_ci_low,
        total_ci_high. attrs: base_samples, dropped_rows, confidence,
        variance, and with sample.second_order "second_order" (a factor x
        factor DataFrame, S_jk at j < k, NaN elsewhere) with
        "second_order_ci_low"/"_ci_high". KeyError naming the quantities that
        have indices; ImportError without pandas."""
        pd = _pandas()
        sobol = self.analysis.get("sobol", {})
        if quantity not in sobol:
            raise KeyError(f"no Sobol' indices of {quantity!r} in {self.path} (have: {', '.join(sobol) or 'none'})")
        g = sobol[quantity]
        factors = list(g["factors"])
        cols = ("first_order", "first_order_ci_low", "first_order_ci_high", "total", "total_ci_low", "total_ci_high")
        df = pd.DataFrame({c: np.asarray(g[c], dtype=float).reshape(-1) for c in cols if c in g},
                          index=pd.Index(factors, name="factor"))
        for key in ("base_samples", "dropped_rows", "confidence", "variance"):
            if key in g:
                df.attrs[key] = g[key]
        for key in ("second_order", "second_order_ci_low", "second_order_ci_high"):
            if key in g:
                df.attrs[key] = pd.DataFrame(np.asarray(g[key], dtype=float), index=factors, columns=factors)
        return df

    def __repr__(self):
        failed = int(np.count_nonzero(self.status != 0))
        return (f"<hydrosweep.Results {self.path!r}: {len(self)} instances, {len(self.varied_names)} varied inputs, "
                f"{len(self.output_names)} outputs, {failed} failed>")


class PartialResults(Results):
    """The finished chunks of an interrupted `hydrosweep run` (read_partial):
    the arrays of Results for every instance of the study, those not finished
    yet with status "not_run" and NaN outputs. `finished` (bool (N,)) marks the
    instances read back; `damaged` lists (chunk file, what is wrong) of the
    chunks that could not be read (a resume refuses them too). inputs are the
    varied inputs (the full parameter rows are written with the results);
    there are no trajectories and no analysis until the run finishes. The
    integer outputs (steps, Newton counts) are float64 here, NaN where not run.
    """

    def __init__(self, path, partial):
        self.path = os.path.abspath(os.fspath(path))
        self.report = None
        n = int(partial["instance_count"])
        self.metadata = {"model": partial["model"], "sample_method": partial["sample_method"],
                         "chunk_size": int(partial["chunk_size"])}
        self.status = np.frombuffer(partial["status"], dtype=np.int32).copy()
        self.status_names = list(partial["status_names"])
        columns = partial["output_names"]
        self.outputs = np.frombuffer(partial["summaries"], dtype=np.float64).reshape(n, len(columns)).copy()
        self.output_names = [c["name"] for c in columns]
        self.output_units = [c["unit"] for c in columns]
        # Unfinished instances are NaN in every column, so the integer ones
        # (steps, Newton counts) stay float64 here: to_dataframe/to_xarray
        # then keep NaN instead of casting it to an integer.
        self.output_integer = [False] * len(columns)
        self.varied_names = list(partial["varied_names"])
        self.varied_units = list(partial["varied_units"])
        self.varied = np.frombuffer(partial["varied"], dtype=np.float64).reshape(n, len(self.varied_names)).copy()
        self.inputs, self.input_names, self.input_units = self.varied, self.varied_names, self.varied_units
        self.finished = self.status != self.status_names.index("not_run")
        self.damaged = [tuple(d) for d in partial["damaged"]]
        self._trajectory_names, self._trajectories = [], {}
        self.analysis = {}

    def __repr__(self):
        return (f"<hydrosweep.PartialResults {self.path!r}: {int(self.finished.sum())} of {len(self)} instances "
                f"finished, {len(self.damaged)} damaged chunks>")


class StabilityMap(_Directory):
    """The map of `hydrosweep stability` (DIR/stability.h5), as arrays.

    N points, E eigenvalues per point (6 for the four-bar family, 10 for the
    lift-tilt), C pressures (3, lift-tilt 4); inputs, input_names, varied,
    varied_names, metadata, report and path as in Results:

    ================= ================= =============================================
    attribute         shape, dtype      content
    ================= ================= =============================================
    status            (N,) int32        0 = ok; status_names[code]
    eigenvalues       (N, E) complex128 eigenvalues_real + 1j * eigenvalues_imag
    eigenvalues_real  (N, E) float64    1/s, by decreasing real part
    eigenvalues_imag  (N, E) float64    1/s
    max_real          (N,) float64      1/s, largest Re without the structural zeros
    damping_ratio     (N,) float64      of the dominant pair (NaN: overdamped)
    frequency         (N,) float64      rad/s, its damped frequency (NaN: overdamped)
    overdamped        (N,) int32        1: no oscillatory mode
    structural_zeros  (N,) int32
    crank_angle       (N,) float64      rad, the driving coordinate at the equilibrium
    pressure          (N, C) float64    Pa, at the equilibrium
    ================= ================= =============================================
    """

    _FLOAT = ("max_real", "damping_ratio", "frequency", "crank_angle")
    _INT = ("overdamped", "structural_zeros")

    def __init__(self, path, report=None):
        file = os.path.join(os.fspath(path), STABILITY_FILE)
        with h5py.File(file, "r") as f:
            self._read_common(f, path, report)
            g = f["stability"]
            self.description = _text(g.attrs.get("description", ""))
            self.status = np.asarray(g["status"][...], dtype=np.int32)
            self.status_names = _texts(g["status"].attrs["status_names"])
            self.eigenvalues_real = np.asarray(g["eigenvalues_real"][...], dtype=np.float64)
            self.eigenvalues_imag = np.asarray(g["eigenvalues_imag"][...], dtype=np.float64)
            for name in self._FLOAT:
                setattr(self, name, np.asarray(g[name][...], dtype=np.float64))
            for name in self._INT:
                setattr(self, name, np.asarray(g[name][...], dtype=np.int32))
            self.pressure = np.asarray(g["pressure"][...], dtype=np.float64)
            self.units = {name: _text(g[name].attrs.get("unit", "")) for name in g.keys()}
        self.eigenvalues = self.eigenvalues_real + 1j * self.eigenvalues_imag

    @property
    def stable(self):
        """bool (N,): computed (status 0) and max_real < 0."""
        return (self.status == 0) & (self.max_real < 0)

    def to_dataframe(self, all_inputs=False):
        """A pandas DataFrame, one row per point: the varied inputs (every
        parameter with all_inputs=True), status (str), max_real, damping_ratio,
        frequency, overdamped, structural_zeros, crank_angle. Raises ImportError
        when pandas is not installed."""
        pd = _pandas()
        cols = {}
        names, values = (self.input_names, self.inputs) if all_inputs else (self.varied_names, self.varied)
        for k, name in enumerate(names):
            cols[name] = values[:, k]
        cols["status"] = self.status_text
        for name in ("max_real", "damping_ratio", "frequency", "overdamped", "structural_zeros", "crank_angle"):
            cols[name] = getattr(self, name)
        return pd.DataFrame(cols, index=pd.RangeIndex(len(self), name="index"))

    def to_xarray(self):
        """An xarray.Dataset: dimension "instance" (a point); the varied
        inputs, status, max_real, damping_ratio, frequency, overdamped,
        structural_zeros, crank_angle, the eigenvalues (complex, over
        ("instance", "eigenvalue")) and the pressures (("instance",
        "pressure")), each with attrs["units"]. Raises ImportError when xarray
        is not installed."""
        variables = {"status": ("instance", self.status, "-")}
        for name in self._FLOAT + self._INT:
            variables[name] = ("instance", getattr(self, name), self.units.get(name, ""))
        variables["eigenvalues"] = (("instance", "eigenvalue"), self.eigenvalues, self.units.get("eigenvalues_real", "1/s"))
        variables["pressure"] = (("instance", "pressure"), self.pressure, self.units.get("pressure", "Pa"))
        ds = self._xarray_dataset(variables)
        ds["status"].attrs["status_names"] = list(self.status_names)
        return ds

    def __repr__(self):
        return (f"<hydrosweep.StabilityMap {self.path!r}: {len(self)} points, "
                f"{int(np.count_nonzero(self.stable))} stable, {int(np.count_nonzero(self.status != 0))} failed>")


def _read_group(g):
    """An HDF5 group as nested dicts: attributes, and datasets as numpy arrays."""
    out = _attrs(g)
    for k, v in g.items():
        out[k] = _read_group(v) if isinstance(v, h5py.Group) else v[...]
    return out


def read_results(path, kind=None):
    """Read a results directory: Results from DIR/results.h5, StabilityMap from
    DIR/stability.h5. kind: None (results.h5 if present, else stability.h5),
    "run" or "stability". Raises FileNotFoundError when the file is missing."""
    path = os.fspath(path)
    if kind not in (None, "run", "stability"):
        raise ValueError(f'kind = {kind!r}: one of None, "run", "stability"')
    if os.path.isdir(path):
        # A final write that a killed run committed is completed first, so
        # that results.h5 and summary.csv are one run's (the CLI does the same).
        from . import _core
        _core.finish_interrupted_commit(path)
    has_run = os.path.isfile(os.path.join(path, RESULTS_FILE))
    has_map = os.path.isfile(os.path.join(path, STABILITY_FILE))
    if kind == "run" or (kind is None and has_run):
        if not has_run:
            raise FileNotFoundError(f"{path}: no {RESULTS_FILE} (not the output directory of hydrosweep run)")
        return Results(path)
    if not has_map:
        wanted = STABILITY_FILE if kind == "stability" else f"{RESULTS_FILE} or {STABILITY_FILE}"
        raise FileNotFoundError(f"{path}: no {wanted} (not a hydrosweep output directory)")
    return StabilityMap(path)
