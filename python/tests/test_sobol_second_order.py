"""Second-order Sobol' indices (docs/study-files.md, `[sample] second_order`)
against SALib's estimators on the same outputs.

A Saltelli study with second_order = true runs blocks of 2d + 2 instances
(A, B, A_B^j, B_A^j; host/design/sampling.hpp). Its outputs, reordered into
SALib's block layout (A, A_B^j, B_A^j, B), go through SALib.analyze.sobol,
whose S1, ST and S2 are Saltelli 2010 / Jansen / Saltelli 2002 as ours
(host/results/analysis.hpp). The two differ only in two conventions, so the
allowed difference is computed from them, not chosen:
- SALib divides by the population variance of the 2N pooled A, B values,
  hydrosweep by the unbiased one: a relative 1/(2N) on every index;
- SALib centres the outputs at the mean of all N(2d + 2) rows, hydrosweep at
  the mean of the A and B rows (f0): the first-order numerator B(A_B^j − A)
  moves by δ·mean(A_B^j − A) and the closed second-order one
  B_A^j A_B^k − A B by δ·mean(B_A^j + A_B^k − A − B), δ the difference of
  the two centres (the total order, a mean of squared differences, does not move).
A wrong block role or estimator gives differences of the order of the indices.
"""
import numpy as np
import pytest

import hydrosweep

salib_sobol = pytest.importorskip("SALib.analyze.sobol", reason="SALib (scripts/test_python.sh installs it)")

FACTORS = [
    {"parameter": "friction.coulomb_force", "distribution": "uniform", "min": 80.0, "max": 400.0},
    {"parameter": "circuit.oil_bulk_modulus", "distribution": "uniform", "min": 0.8e9, "max": 1.8e9},
    {"parameter": "circuit.supply_pressure", "distribution": "uniform", "min": 6e6, "max": 9e6},
]
N = 256
STUDY = {
    "study": {"model": "four-bar", "friction": "brown-mcphee"},
    "integrator": {"dt": 1e-3, "duration": 0.5},
    "input": {"times": [0.0, 0.2], "values": [0.0, 10.0]},
    "sample": {"method": "saltelli", "count": N, "seed": 11, "second_order": True},
    "factor": FACTORS,
    "analysis": {"quantities": ["p2_max", "q1"], "bootstrap": 100},
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return hydrosweep.run(STUDY, tmp_path_factory.mktemp("saltelli2"), threads=2)


def test_design_has_blocks_of_2d_plus_2(results):
    d = len(FACTORS)
    assert len(results) == N * (2 * d + 2)
    assert np.all(results.ok)


@pytest.mark.parametrize("quantity", ["p2_max", "q1"])
def test_indices_equal_salibs_on_the_same_outputs(results, quantity):
    d = len(FACTORS)
    block = 2 * d + 2
    y = results.output(quantity).reshape(N, block)
    A, B = y[:, 0], y[:, 1]
    AB, BA = y[:, 2:2 + d], y[:, 2 + d:]
    assert np.ptp(A) > 0, "the quantity must vary for the check to mean anything"

    # SALib's layout per base row: A, A_B^0..A_B^(d-1), B_A^0..B_A^(d-1), B.
    salib_y = np.concatenate([A[:, None], AB, BA, B[:, None]], axis=1).reshape(-1)
    problem = {"num_vars": d, "names": [f["parameter"] for f in FACTORS], "bounds": [[0.0, 1.0]] * d}
    ref = salib_sobol.analyze(problem, salib_y, calc_second_order=True, num_resamples=10, seed=1)

    so = results.analysis["sobol"][quantity]
    first, total, second = np.asarray(so["first_order"]), np.asarray(so["total"]), np.asarray(so["second_order"])
    assert second.shape == (d, d)
    assert np.all(np.isnan(second[np.tril_indices(d)]))

    # The conventions' differences (module docstring), in units of the
    # outputs' scale: SALib standardises y by its std over all rows.
    pooled = np.concatenate([A, B])
    V = pooled.var(ddof=1)
    delta = y.mean() - pooled.mean()
    rel = 1.0 / (2 * N)
    slack = 1e-9  # rounding of sums of N terms of O(1) standardised values
    d1 = [abs(first[j]) * rel + abs(delta * np.mean(AB[:, j] - A)) / V + slack for j in range(d)]
    for j in range(d):
        assert abs(first[j] - ref["S1"][j]) <= 2 * d1[j], (quantity, j, first[j], ref["S1"][j], d1[j])
        assert abs(total[j] - ref["ST"][j]) <= 2 * (abs(total[j]) * rel + slack), (quantity, j, total[j], ref["ST"][j])
    for j in range(d):
        for k in range(j + 1, d):
            closed = second[j, k] + first[j] + first[k]
            d2 = (abs(closed) * rel + abs(delta * np.mean(BA[:, j] + AB[:, k] - A - B)) / V) + d1[j] + d1[k] + slack
            assert abs(second[j, k] - ref["S2"][j, k]) <= 2 * d2, (quantity, j, k, second[j, k], ref["S2"][j, k], d2)
    # Not vacuous: the allowed differences are small next to the indices.
    assert max(d1) < 0.01, d1


def test_second_order_needs_saltelli_and_two_factors(tmp_path):
    with pytest.raises(hydrosweep.StudyError, match=r'sample.second_order applies to method = "saltelli" only'):
        hydrosweep.check(dict(STUDY, sample={"method": "monte-carlo", "count": 4, "second_order": True}))
    with pytest.raises(hydrosweep.StudyError, match="needs at least two"):
        hydrosweep.check(dict(STUDY, factor=FACTORS[:1]))


def test_the_pairs_are_drawn(results, tmp_path):
    """sobol2_<q>: the S_jk matrix, each pair's value written in its cell
    (studies/plot_study.py plot_sobol_pairs); no such figure without pairs."""
    pytest.importorskip("matplotlib", reason="the [plot] extra (scripts/test_python.sh installs it)")
    import hydrosweep.plot

    written = hydrosweep.plot.study(results.path, tmp_path / "plots", quantity=["p2_max"], format="svg")
    names = [p.name for p in written]
    assert "sobol_p2_max.svg" in names and "sobol2_p2_max.svg" in names, names
    svg = (tmp_path / "plots" / "sobol2_p2_max.svg").read_text()
    second = np.asarray(results.analysis["sobol"]["p2_max"]["second_order"])
    for j, k in ((0, 1), (0, 2), (1, 2)):  # the plot's 3-digit text of every pair
        assert f"{second[j, k]:.3g}" in svg, (j, k, second[j, k])


def test_analysis_as_tables(results):
    """Results.statistics() and Results.sobol_indices(q): the /analysis values
    as DataFrames, equal to the nested dict's, with units and intervals."""
    pytest.importorskip("pandas", reason="pandas (scripts/test_python.sh installs it)")
    st = results.statistics()
    assert list(st.index) == ["p2_max", "q1"]
    for q in st.index:
        g = results.analysis["statistics"][q]
        assert st.loc[q, "mean"] == g["mean"] and st.loc[q, "std_ci_high"] == g["std_ci_high"]
        assert st.loc[q, "count_ok"] == g["count_ok"]
        for level, v, lo in zip(g["quantile_levels"], g["quantiles"], g["quantile_ci_low"]):
            assert st.loc[q, f"q{level:g}"] == v and st.loc[q, f"q{level:g}_ci_low"] == lo
    assert st.loc["p2_max", "unit"] == "Pa" and st.loc["q1", "unit"] == "rad"
    assert st.attrs["confidence"] == results.analysis["confidence"]

    so = results.sobol_indices("p2_max")
    g = results.analysis["sobol"]["p2_max"]
    assert list(so.index) == [f["parameter"] for f in FACTORS]
    np.testing.assert_array_equal(so["first_order"].to_numpy(), g["first_order"])
    np.testing.assert_array_equal(so["total_ci_high"].to_numpy(), g["total_ci_high"])
    np.testing.assert_array_equal(so.attrs["second_order"].to_numpy(), g["second_order"])
    assert so.attrs["base_samples"] == N
    with pytest.raises(KeyError, match="have: p2_max, q1"):
        results.sobol_indices("steps")
