"""The Python API (test 3 of python/README.md): shapes and dtypes, dict
studies, read_results, models() and parameters() against the CLI, the TOML
writer, to_dataframe.
"""
import math
import os
import re
import threading

import numpy as np
import pytest

import hydrosweep
from hstest import DATA, h5_differences, run_cli

try:
    import tomllib  # Python >= 3.11
except ImportError:  # pragma: no cover
    tomllib = None

# python/tests/data/four_bar_small.toml as a dict (tables as dicts, [[grid]] as a list).
SMALL_DICT = {
    "study": {
        "name": "four_bar_small",
        "description": "Coulomb force x oil bulk modulus x valve time constant, reduced for the Python tests",
        "model": "four-bar",
        "friction": "brown-mcphee",
    },
    "integrator": {"dt": 1e-3, "duration": 10.0},
    "input": {"times": [0.0, 1.0, 2.5, 5.0, 8.0], "values": [0.0, 10.0, 0.0, -10.0, 0.0]},
    "grid": [
        {"parameter": "friction.coulomb_force", "min": 50.0, "max": 500.0, "count": 4},
        {"parameter": "circuit.oil_bulk_modulus", "min": 5e8, "max": 2e9, "count": 3, "spacing": "log"},
        {"parameter": "circuit.valve_time_constant", "values": np.array([0.002, 0.05])},
    ],
    "analysis": {"quantities": ["p2_max", "cylinder_work"], "bootstrap": 200},
    "output": {"trajectory_stride": 250},
}
N, V, M = 24, 3, 41  # instances, varied inputs, samples (10 s / (250 * 1 ms) + 1)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("small") / "out"
    return hydrosweep.run(str(DATA / "four_bar_small.toml"), out, threads=2)


def test_results_shapes_and_dtypes(small):
    res = small
    four_bar = next(m for m in hydrosweep.models() if m["name"] == "four-bar")
    P, K = four_bar["parameter_count"], len(four_bar["summary_columns"])
    assert len(res) == res.instance_count == N
    assert res.inputs.shape == (N, P) and res.inputs.dtype == np.float64
    assert len(res.input_names) == len(res.input_units) == P
    assert res.input_names == [p["name"] for p in hydrosweep.parameters("four-bar", schedule=True)]
    assert res.varied.shape == (N, V) and res.varied.dtype == np.float64
    assert res.varied_names == ["friction.coulomb_force", "circuit.oil_bulk_modulus", "circuit.valve_time_constant"]
    assert res.varied_units == ["N", "Pa", "s"]
    assert res.outputs.shape == (N, K) and res.outputs.dtype == np.float64
    assert res.output_names == [c["name"] for c in four_bar["summary_columns"]]
    assert res.output_integer == [c["integer"] for c in four_bar["summary_columns"]]
    assert res.status.shape == (N,) and res.status.dtype == np.int32
    assert res.status_names[0] == "ok" and res.ok.all()
    assert set(res.trajectories) == {c["name"] for c in four_bar["trajectory_channels"]}
    for name, traj in res.trajectories.items():
        assert traj.shape == (N, M) and traj.dtype == np.float64, name
    assert np.allclose(res.trajectories["t"][0], np.arange(M) * 0.25)
    # the varied inputs are columns of inputs, and the grid is the full product
    for k, name in enumerate(res.varied_names):
        assert np.array_equal(res.varied[:, k], res.input(name))
        assert np.array_equal(res.varied[:, k], res.inputs[:, res.input_names.index(name)])
    assert np.unique(res.varied[:, 0]).size == 4 and res.varied[0, 0] == 50.0 and res.varied[-1, 0] == 500.0
    assert np.array_equal(res.output("steps"), np.full(N, 10000.0))
    assert res.metadata["model"] == "four-bar" and res.metadata["instance_count"] == N
    assert set(res.analysis["statistics"]) == {"p2_max", "cylinder_work"}
    assert res.report["backend"] == "cpu" and res.report["threads"] == 2


def test_summary_csv_columns(small):
    with open(small.path + "/summary.csv") as f:
        cols = f.readline().strip().split(",")
    assert cols == ["index", "status"] + small.varied_names + small.output_names


def test_read_results_round_trip(small):
    back = hydrosweep.read_results(small.path)
    assert isinstance(back, hydrosweep.Results) and back.report is None
    for name in ("inputs", "varied", "outputs", "status"):
        a, b = getattr(small, name), getattr(back, name)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), name
    for name in ("input_names", "input_units", "varied_names", "varied_units", "output_names", "output_units",
                 "status_names", "metadata"):
        assert getattr(small, name) == getattr(back, name), name
    assert set(back.trajectories) == set(small.trajectories)
    assert all(np.array_equal(back.trajectories[k], small.trajectories[k], equal_nan=True) for k in back.trajectories)
    assert isinstance(hydrosweep.read_results(small.path, kind="run"), hydrosweep.Results)
    with pytest.raises(FileNotFoundError):
        hydrosweep.read_results(small.path, kind="stability")
    with pytest.raises(FileNotFoundError):
        hydrosweep.read_results(small.path + "/nowhere")


def test_dict_study_equals_toml_file(small, tmp_path):
    res = hydrosweep.run(SMALL_DICT, tmp_path / "dict", threads=2)
    assert (tmp_path / "dict" / "summary.csv").read_bytes() == open(small.path + "/summary.csv", "rb").read()
    # the same results; the metadata differ only in the study's text and path
    assert h5_differences(small.path + "/results.h5", tmp_path / "dict" / "results.h5",
                          ignore_metadata={"study_text", "study_path"}) == []
    assert res.metadata["study_path"] == hydrosweep.DICT_STUDY_NAME
    assert res.metadata["study_text"] == hydrosweep.study_text(SMALL_DICT)
    assert np.array_equal(res.outputs, small.outputs, equal_nan=True)


def test_stability_map_shapes_and_dtypes(tmp_path):
    smap = hydrosweep.stability(str(DATA / "stability_small.toml"), tmp_path / "s", threads=2)
    n = 60
    assert len(smap) == n
    assert smap.varied.shape == (n, 2) and smap.varied_names == ["mechanism.initial_angle1", "friction_scale"]
    assert smap.status.shape == (n,) and smap.status.dtype == np.int32
    assert smap.eigenvalues.shape == (n, 6) and smap.eigenvalues.dtype == np.complex128
    assert smap.eigenvalues_real.dtype == smap.eigenvalues_imag.dtype == np.float64
    for name in ("max_real", "damping_ratio", "frequency", "crank_angle"):
        assert getattr(smap, name).shape == (n,) and getattr(smap, name).dtype == np.float64, name
    for name in ("overdamped", "structural_zeros"):
        assert getattr(smap, name).shape == (n,) and getattr(smap, name).dtype == np.int32, name
    assert smap.pressure.shape == (n, 3) and smap.pressure.dtype == np.float64
    assert smap.units["frequency"] == "rad/s"
    ok = smap.status == 0
    assert ok.any()
    assert np.all(smap.structural_zeros[ok] == 2)
    assert np.array_equal(smap.stable, ok & (smap.max_real < 0))
    back = hydrosweep.read_results(tmp_path / "s")
    assert isinstance(back, hydrosweep.StabilityMap)
    assert np.array_equal(back.eigenvalues, smap.eigenvalues, equal_nan=True)
    assert np.array_equal(back.status, smap.status)


def _cli_parameter_table(cli, model):
    """The rows of `hydrosweep parameters --model MODEL`: name -> (unit, range, default, description)."""
    rows = {}
    out = run_cli(cli, "parameters", "--model", model).stdout
    for line in out.splitlines():
        m = re.match(r"^\| `([^`]+)` \| (.*) \|$", line)
        if m:
            unit, rng, default, description = m.group(2).split(" | ", 3)
            rows[m.group(1)] = (unit, rng, default, description)
    return out, rows


def test_models_and_parameters_match_the_cli(cli):
    models = hydrosweep.models()
    names = [m["name"] for m in models]
    assert {"four-bar", "four-bar-3d", "lift-tilt"} <= set(names)
    # the CLI lists the registry's models in its message for an unknown one
    r = run_cli(cli, "parameters", "--model", "?", expect=2)
    assert r.stderr.strip().endswith("is not one of " + ", ".join(names) + ", nor a model file (FILE.toml)")
    for m in models:
        out, rows = _cli_parameter_table(cli, m["name"])
        assert out.startswith(f"Model {m['name']}: {m['title']} ({m['source']}; {m['doc']})\n"), m["name"]
        assert f"Supports: {m['supports']}\n" in out
        params = hydrosweep.parameters(m["name"])
        assert [p["name"] for p in params] == list(rows), m["name"]
        for p in params:
            unit, rng, default, description = rows[p["name"]]
            assert (p["unit"], p["range"], p["description"]) == (unit, rng, description), p["name"]
            assert p["default"] == float(default) or (math.isnan(p["default"]) and default == "nan"), p["name"]
            assert p["role"] == "parameter"
        full = hydrosweep.parameters(m["name"], schedule=True)
        assert len(full) == m["parameter_count"]
        assert [p["index"] for p in full] == list(range(len(full)))


def test_known_parameters():
    params = {p["name"]: p for p in hydrosweep.parameters()}  # four-bar
    bulk = params["circuit.oil_bulk_modulus"]
    assert (bulk["unit"], bulk["default"], bulk["range"]) == ("Pa", 1.5e9, "(0, 1e+12]")
    assert bulk["min"] == 0.0 and bulk["min_exclusive"] and bulk["max"] == 1e12
    assert params["circuit.supply_pressure"]["default"] == 7.6e6
    assert params["circuit.tank_pressure"]["range"] == "[0, 1e+09]"
    assert "friction.coulomb_force" in params
    assert not any(name.startswith("input.time") for name in params)
    assert any(p["name"].startswith("input.time") for p in hydrosweep.parameters(schedule=True))


def test_toml_writer():
    text = hydrosweep.study_text({
        "study": {"name": 'quote " and \\ back\nslash', "model": "four-bar"},
        "integrator": {"dt": np.float64(1e-3), "duration": 2, "tangent": "exact"},
        "parameters": {"circuit.oil_bulk_modulus": 1.5e9, "friction": {"coulomb_force": np.int64(250)}},
        "grid": [{"parameter": "a", "values": [1, 2.5]}, {"parameter": "b", "values": np.array([1e-12, 1e20])}],
        "flag": True,
    })
    assert '"circuit.oil_bulk_modulus" = 1500000000.0' in text
    assert "[parameters.friction]" in text and "coulomb_force = 250" in text
    assert text.count("[[grid]]") == 2
    if tomllib is not None:
        back = tomllib.loads(text)
        assert back["study"]["name"] == 'quote " and \\ back\nslash'
        assert back["integrator"] == {"dt": 1e-3, "duration": 2, "tangent": "exact"}
        assert back["parameters"]["circuit.oil_bulk_modulus"] == 1.5e9
        assert back["parameters"]["friction"] == {"coulomb_force": 250}
        assert back["grid"][1]["values"] == [1e-12, 1e20]
        assert back["flag"] is True
    # a float stays a float (the parser needs integers for integer keys)
    assert "duration = 2\n" in text and "dt = 0.001\n" in text


def test_to_dataframe(small):
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            small.to_dataframe()
        return
    df = small.to_dataframe()
    assert list(df.columns) == ["status"] + small.varied_names + small.output_names
    assert df.index.name == "index" and len(df) == N
    assert df["steps"].dtype == np.int64 and df["q1"].dtype == np.float64
    assert (df["status"] == "ok").all()
    # summary.csv's values (%.17g round-trips)
    csv = pandas.read_csv(small.path + "/summary.csv", index_col="index")
    assert list(csv.columns) == list(df.columns)
    for c in df.columns[1:]:
        assert np.array_equal(csv[c].to_numpy(dtype=float), df[c].to_numpy(dtype=float), equal_nan=True), c
    assert small.to_dataframe(all_inputs=True).shape == (N, 1 + small.inputs.shape[1] + len(small.output_names))
    # Every column's unit, as the sidecar summary.columns.csv gives it.
    sidecar = pandas.read_csv(small.path + "/summary.columns.csv")
    units = dict(zip(sidecar["column"], sidecar["unit"]))
    assert df.attrs["units"] == {c: units[c] for c in df.columns}
    assert df.attrs["units"]["p2_max"] == "Pa" and df.attrs["units"]["tracking_rms"] == "rad"


def test_progress_callback_and_display(tmp_path, capsys):
    """progress=callable gets (done, total) as the run goes, ending at total;
    progress=True shows a bar (tqdm) or a line on stderr; the results are the
    same files as a quiet run's."""
    calls = []
    study = str(DATA / "four_bar_small.toml")
    r = hydrosweep.run(study, tmp_path / "a", threads=2, progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (N, N)
    assert all(t == N for _, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    capsys.readouterr()
    hydrosweep.run(study, tmp_path / "b", threads=2, progress=True)
    err = capsys.readouterr().err
    assert f"{N}/{N}" in err, err
    quiet = hydrosweep.run(study, tmp_path / "c", threads=2)
    assert np.array_equal(r.outputs, quiet.outputs, equal_nan=True)


def test_to_xarray(small, tmp_path):
    """Results and StabilityMap as xarray Datasets: the same values as the
    arrays, every variable with its unit, trajectories over (instance, sample)."""
    try:
        import xarray  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install xarray"):
            small.to_xarray()
        return
    ds = small.to_xarray()
    assert ds.sizes["instance"] == N
    for k, name in enumerate(small.output_names):
        assert np.array_equal(ds[name].values, small.outputs[:, k], equal_nan=True), name
        assert ds[name].attrs["units"] == small.output_units[k]
    for k, name in enumerate(small.varied_names):
        assert np.array_equal(ds[name].values, small.varied[:, k])
        assert ds[name].attrs["units"] == small.varied_units[k]
    assert ds["p2_max"].attrs["units"] == "Pa" and ds["tracking_rms"].attrs["units"] == "rad"
    assert list(ds["status"].attrs["status_names"]) == small.status_names
    assert ds["trajectory_t"].dims == ("instance", "sample") and ds.sizes["sample"] == M
    assert np.array_equal(ds["trajectory_t"].values, small.trajectories["t"])
    assert ds["trajectory_t"].attrs["units"] == "s"
    assert ds.attrs["model"] == "four-bar"
    smap = hydrosweep.stability(str(DATA / "stability_small.toml"), tmp_path / "s", threads=2)
    dm = smap.to_xarray()
    assert np.array_equal(dm["eigenvalues"].values, smap.eigenvalues, equal_nan=True)
    assert np.array_equal(dm["max_real"].values, smap.max_real, equal_nan=True)
    assert dm["max_real"].attrs["units"] == smap.units["max_real"]


def test_every_csv_loads_plainly(small, tmp_path):
    """Every CSV the tool writes reads with pandas.read_csv's defaults: one
    header row, no comment lines, and a sidecar <name>.columns.csv that names
    each column, in order, with a unit."""
    pandas = pytest.importorskip("pandas")
    smap = hydrosweep.stability(str(DATA / "stability_small.toml"), tmp_path / "s", threads=2)
    for directory, name in ((small.path, "summary"), (smap.path, "stability")):
        data = pandas.read_csv(f"{directory}/{name}.csv")
        assert not any(str(c).startswith(("#", "Unnamed")) for c in data.columns), list(data.columns)
        assert data["index"].tolist() == list(range(len(data)))
        sidecar = pandas.read_csv(f"{directory}/{name}.columns.csv")
        assert list(sidecar.columns) == ["column", "unit", "description"]
        assert sidecar["column"].tolist() == list(data.columns)
        assert sidecar["unit"].notna().all() and (sidecar["unit"].str.len() > 0).all()
        assert sidecar["description"].notna().all()
    units = dict(zip(sidecar["column"], sidecar["unit"]))
    assert units["max_real"] == "1/s" and units["frequency_hz"] == "Hz"


def test_run_from_another_thread(tmp_path):
    # not the main thread: no Ctrl-C handler is installed; the GIL is released
    # meanwhile, so this thread keeps running
    box = {}
    ticks = 0

    def work():
        try:
            box["res"] = hydrosweep.run(str(DATA / "four_bar_small.toml"), tmp_path / "t", threads=1)
        except BaseException as e:  # pragma: no cover
            box["error"] = e

    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        ticks += 1
        t.join(0.001)
    assert "error" not in box and len(box["res"]) == N
    assert ticks > 0


def test_threads_beyond_the_machine_are_lowered_with_a_warning(tmp_path):
    # The CLI's -j 100000 (issue 36 class 4): tens of thousands of OpenMP
    # threads crashed; the package lowers the count as the CLI does, and says so.
    usable = len(os.sched_getaffinity(0))
    with pytest.warns(hydrosweep.HydrosweepWarning, match="100000"):
        res = hydrosweep.run(SMALL_DICT, tmp_path / "r", threads=100000)
    assert res.report["threads"] == usable
    with pytest.warns(hydrosweep.HydrosweepWarning, match="100000"):
        smap = hydrosweep.stability(str(DATA / "stability_small.toml"), tmp_path / "s", threads=100000)
    assert len(smap) == 60


def test_read_results_finishes_a_final_write_that_a_kill_interrupted(small, tmp_path):
    # A run killed between the renames of its final write leaves the commit
    # journal (host/results/commit.hpp): read_results carries it out first, as
    # every CLI command does, so it reads one run's files.
    import shutil
    import subprocess
    dead = subprocess.Popen(["true"])
    dead.wait()
    out = tmp_path / "killed"
    out.mkdir()
    temp = f".results.h5.hydrosweep-tmp.{dead.pid}"
    shutil.copy(small.path + "/results.h5", out / temp)
    shutil.copy(small.path + "/summary.csv", out / "summary.csv")  # already renamed
    (out / "results.h5").write_bytes(b"an earlier run's file")
    (out / ".hydrosweep-commit").write_text(
        f"hydrosweep-commit 1\npid {dead.pid}\nresults.h5\t{temp}\t-\n"
        f"summary.csv\t.summary.csv.hydrosweep-tmp.{dead.pid}\t-\n")
    res = hydrosweep.read_results(out)
    assert np.array_equal(res.outputs, small.outputs, equal_nan=True)
    assert sorted(p.name for p in out.iterdir()) == ["results.h5", "summary.csv"]
