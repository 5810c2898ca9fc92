"""A results file reproduces itself: the design and the analysis of a finished
study are regenerated here from results.h5 alone (its /metadata and /outputs),
with scipy and numpy, and compared with what hydrosweep wrote. Nothing here
imports or re-implements hydrosweep's samplers: only the published algorithms
(scipy's Joe-Kuo Sobol' sequence, scipy.stats inverse CDFs, the Saltelli 2010 /
Jansen 1999 estimators, numpy's quantile definition 7, the Wilson interval).

Run by ctest (Python.ResultsReproduce) with HYDROSWEEP_EXE set to the built
executable; `python3 -m pytest tests/python` finds it on PATH otherwise.
"""
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import h5py
import numpy as np
import pytest
from scipy import stats
from scipy.stats import qmc

EXE = os.environ.get("HYDROSWEEP_EXE") or shutil.which("hydrosweep")

# Relative agreement of hydrosweep's inverse CDFs (std::erfc, exp, log) with
# scipy's (ndtri, ...): both are accurate to a few ulp in the body; the normal
# quantile's relative error grows near u -> 0/1 as the quantile crosses 0, so
# the comparison is made against the law's scale. Measured: <= 3e-15.
LAW_RTOL = 1e-13


def run_study(tmp_path, text, name="study"):
    if EXE is None:
        pytest.skip("hydrosweep executable not found (set HYDROSWEEP_EXE)")
    study = tmp_path / f"{name}.toml"
    study.write_text(textwrap.dedent(text))
    out = tmp_path / name
    r = subprocess.run([EXE, "run", str(study), "--out", str(out), "-q", "-j", "2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return h5py.File(out / "results.h5", "r")


def strings(attr):
    return [s.decode() if isinstance(s, bytes) else str(s) for s in np.atleast_1d(attr)]


def scipy_law(factor):
    kind = factor.attrs["distribution"]
    kind = kind.decode() if isinstance(kind, bytes) else kind
    p = dict(zip(strings(factor.attrs["distribution_parameter_names"]), factor.attrs["distribution_parameters"]))
    if kind == "uniform":
        return stats.uniform(loc=p["min"], scale=p["max"] - p["min"]), p["max"] - p["min"]
    if kind == "normal":
        return stats.norm(loc=p["mean"], scale=p["std"]), p["std"]
    if kind == "truncated-normal":
        a, b = (p["min"] - p["mean"]) / p["std"], (p["max"] - p["mean"]) / p["std"]
        return stats.truncnorm(a, b, loc=p["mean"], scale=p["std"]), p["std"]
    if kind == "lognormal":
        return stats.lognorm(s=p["sigma_log"], scale=p["median"]), p["median"]
    raise AssertionError(f"unknown law {kind}")


def check_inputs_from_unit_points(f):
    """/inputs/<factor> = law^-1(unit_points[:, k]) for every factor."""
    design = f["metadata/design"]
    names = strings(design.attrs["factors"])
    u = design["unit_points"][...]
    assert u.shape == (f["metadata"].attrs["instance_count"], len(names))
    assert np.all((u > 0) & (u < 1))
    for k, name in enumerate(names):
        law, scale = scipy_law(design["factors"][name])
        expected = law.ppf(u[:, k])
        got = f["inputs"][name][...]
        np.testing.assert_allclose(got, expected, rtol=LAW_RTOL, atol=LAW_RTOL * scale, err_msg=name)
    return names, u


def test_lhs_design_regenerates_from_metadata(tmp_path):
    f = run_study(tmp_path, """
        [integrator]
        duration = 0.02
        [sample]
        method = "lhs"
        count = 16
        seed = 11
        [[factor]]
        parameter = "circuit.oil_bulk_modulus"
        distribution = "normal"
        mean = 1.5e9
        std = 1e8
        [[factor]]
        parameter = "circuit.valve_time_constant"
        distribution = "truncated-normal"
        mean = 0.01
        std = 0.004
        min = 0.005
        max = 0.02
        [[factor]]
        name = "friction_scale"
        scales = ["friction.coulomb_force", "friction.static_force"]
        distribution = "lognormal"
        median = 1.0
        sigma_log = 0.3
        [[factor]]
        parameter = "circuit.supply_pressure"
        distribution = "uniform"
        min = 6e6
        max = 8e6
        """)
    names, u = check_inputs_from_unit_points(f)
    n = u.shape[0]
    # Latin hypercube: every column has exactly one point in each stratum [j/n, (j+1)/n).
    for k in range(len(names)):
        assert sorted(np.floor(u[:, k] * n).astype(int)) == list(range(n)), names[k]
    # A scale factor multiplies the base values of the parameters it names (/inputs/all).
    all_ = f["inputs/all"]
    cols = strings(all_.attrs["columns"])
    base = {}
    for p in strings(f["metadata/design/factors/friction_scale"].attrs["parameters"]):
        column = all_[:, cols.index(p)]
        base[p] = column / f["inputs/friction_scale"][...]
        np.testing.assert_allclose(base[p], base[p][0], rtol=1e-15, err_msg=p)
    assert f["metadata"].attrs["scramble"] in (0, 1)


def test_unscrambled_sobol_is_scipys_joe_kuo_sequence(tmp_path):
    f = run_study(tmp_path, """
        [integrator]
        duration = 0.02
        [sample]
        method = "sobol"
        count = 8
        scramble = false
        [[factor]]
        parameter = "circuit.oil_bulk_modulus"
        distribution = "uniform"
        min = 1e9
        max = 2e9
        [[factor]]
        parameter = "circuit.supply_pressure"
        distribution = "uniform"
        min = 6e6
        max = 8e6
        [[factor]]
        parameter = "circuit.valve_time_constant"
        distribution = "uniform"
        min = 0.005
        max = 0.02
        """)
    assert f["metadata/design"].attrs["scramble"] == 0
    _, u = check_inputs_from_unit_points(f)
    # Points 1..8 of the unscrambled sequence (the origin is skipped): dyadic
    # rationals, so equal to the bit.
    reference = qmc.Sobol(d=3, scramble=False).random_base2(4)[1:9]
    np.testing.assert_array_equal(u, reference)


def test_grid_is_the_product_of_its_axes(tmp_path):
    f = run_study(tmp_path, """
        [integrator]
        duration = 0.02
        [[grid]]
        parameter = "circuit.oil_bulk_modulus"
        values = [1.2e9, 1.6e9]
        [[grid]]
        name = "friction_scale"
        scales = ["friction.coulomb_force"]
        min = 0.5
        max = 2.0
        count = 3
        spacing = "log"
        """)
    design = f["metadata/design"]
    names = strings(design.attrs["factors"])
    axes = [design["factors"][n]["values"][...] for n in names]
    np.testing.assert_array_equal(axes[1], [0.5, 1.0, 2.0])
    mesh = np.meshgrid(*axes, indexing="ij")  # first axis slowest
    for k, n in enumerate(names):
        np.testing.assert_array_equal(f["inputs"][n][...], mesh[k].ravel(), err_msg=n)
    assert "unit_points" not in design


def wilson(failures, n, level):
    z = stats.norm.ppf(0.5 + level / 2)
    p = failures / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_saltelli_design_and_analysis_regenerate(tmp_path):
    f = run_study(tmp_path, """
        [integrator]
        duration = 0.2
        [input]
        times = [0.0]
        values = [10.0]
        [sample]
        method = "saltelli"
        count = 16
        seed = 5
        [[factor]]
        parameter = "circuit.oil_bulk_modulus"
        distribution = "uniform"
        min = 1e9
        max = 2e9
        [[factor]]
        parameter = "circuit.supply_pressure"
        distribution = "uniform"
        min = 6e6
        max = 8e6
        [analysis]
        quantities = ["p2_max"]
        bootstrap = 20
        quantile_levels = [0.1, 0.5, 0.9]
        [analysis.limit]
        quantity = "p2_max"
        above = 5e6
        """)
    names, u = check_inputs_from_unit_points(f)
    d = len(names)
    role = f["metadata/design/saltelli_role"][...]
    n_rows = u.shape[0]
    np.testing.assert_array_equal(role, np.arange(n_rows) % (d + 2))
    A, B = u[role == 0], u[role == 1]
    for j in range(d):  # A_B^j = A with column j from B
        ABj = u[role == 2 + j]
        expected = A.copy()
        expected[:, j] = B[:, j]
        np.testing.assert_array_equal(ABj, expected)

    meta = f["metadata"].attrs
    level = meta["confidence"]
    status = f["outputs/status"][...]
    y = np.where(status == 0, f["outputs/p2_max"][...], np.nan)

    # Statistics use the A and B rows only: 2N independent draws.
    draws = y[role <= 1]
    ok = draws[np.isfinite(draws)]
    st = f["analysis/statistics/p2_max"]
    assert st.attrs["count_ok"] == ok.size
    np.testing.assert_allclose(st.attrs["mean"], ok.mean(), rtol=1e-14)
    # The std of values ~1e6 carries rounding of order eps * |mean| whatever the summation order.
    np.testing.assert_allclose(st.attrs["std"], ok.std(ddof=1), rtol=1e-12, atol=1e-14 * abs(ok.mean()))
    assert ok.std() > 1e-6 * abs(ok.mean()), "the quantity must vary for this check to mean anything"
    np.testing.assert_array_equal(st["quantile_levels"][...], meta["quantile_levels"])
    np.testing.assert_allclose(st["quantiles"][...], np.quantile(ok, meta["quantile_levels"]), rtol=1e-14)

    fail = f["analysis/failure"].attrs
    failures = int(np.sum(ok > fail["limit"]))
    assert fail["failures"] == failures and fail["count"] == ok.size
    lo, hi = wilson(failures, ok.size, level)
    np.testing.assert_allclose([fail["ci_low"], fail["ci_high"]], [lo, hi], rtol=1e-12, atol=1e-15)

    # Sobol' indices: Saltelli 2010 first order, Jansen 1999 total, on all rows.
    fA, fB = y[role == 0], y[role == 1]
    V = np.concatenate([fA, fB]).var(ddof=1)
    f0 = np.concatenate([fA, fB]).mean()
    so = f["analysis/sobol/p2_max"]
    for j in range(d):
        fAB = y[role == 2 + j]
        first = np.mean((fB - f0) * (fAB - fA)) / V
        total = 0.5 * np.mean((fA - fAB) ** 2) / V
        np.testing.assert_allclose(so["first_order"][j], first, rtol=1e-10, atol=1e-13, err_msg=names[j])
        np.testing.assert_allclose(so["total"][j], total, rtol=1e-10, atol=1e-13, err_msg=names[j])
    assert meta["bootstrap_resamples"] == 20
    assert meta["bootstrap_seed"] == meta["seed"] ^ 0x5EEDB007


# Groups whose members are named by the study (a column, quantity, channel,
# input or factor): the layout comment names them <name>, <quantity>, ...
PLACEHOLDER_GROUPS = ("/outputs", "/inputs", "/trajectories", "/analysis/statistics", "/analysis/sobol",
                      "/metadata/design/factors", "/stability")


def layout_names(f):
    """Every attribute name, and every object name not chosen by the study."""
    names = set()

    def visit(path, obj):
        names.update(obj.attrs.keys())
        parent, _, leaf = ("/" + path).rpartition("/")
        if not parent.startswith(PLACEHOLDER_GROUPS) or parent == "/stability":
            names.add(leaf)

    names.update(f.attrs.keys())
    f.visititems(visit)
    return names


def test_layout_comment_lists_everything_written(tmp_path):
    """host/results/output.hpp's layout comment names every dataset, group and
    attribute that results.h5 and stability.h5 hold (a study with every
    optional part: trajectories, analysis, limit, Sobol' indices)."""
    header = (Path(__file__).resolve().parents[2] / "host" / "results" / "output.hpp").read_text()
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", header))
    study = """
        [integrator]
        duration = 0.05
        [sample]
        method = "saltelli"
        count = 4
        [[factor]]
        parameter = "circuit.oil_bulk_modulus"
        distribution = "uniform"
        min = 1e9
        max = 2e9
        [derived]
        "friction.static_force" = "1.2 * friction.coulomb_force"
        [output]
        trajectory_stride = 10
        [analysis]
        quantities = ["p2_max"]
        bootstrap = 10
        [analysis.limit]
        quantity = "p2_max"
        above = 5e6
        """
    f = run_study(tmp_path, study, "layout")
    missing = sorted(n for n in layout_names(f) if n not in words)
    assert not missing, f"results.h5 holds names host/results/output.hpp does not document: {missing}"
    (tmp_path / "stab.toml").write_text(textwrap.dedent(study))
    r = subprocess.run([EXE, "stability", str(tmp_path / "stab.toml"), "--out", str(tmp_path / "stab"), "-q"],
                       capture_output=True, text=True, env={**os.environ, "PATH": "/nonexistent", "HYDROSWEEP_PYTHON": "/nonexistent/python3"})
    assert r.returncode == 0, r.stderr
    g = h5py.File(tmp_path / "stab" / "stability.h5", "r")
    missing = sorted(n for n in layout_names(g) if n not in words)
    assert not missing, f"stability.h5 holds names host/results/output.hpp does not document: {missing}"
