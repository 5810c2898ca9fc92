"""A design the user made (docs/study-files.md, method "rows") through Python:
rows given as a pandas DataFrame or as an array with column names, and an
HDF5 design file, each equal to the same points given as a grid, value for
value; an out-of-range row is a StudyError naming the row and the column.
"""
import itertools

import h5py
import numpy as np
import pytest

import hydrosweep

BASE = {
    "study": {"model": "four-bar", "friction": "brown-mcphee"},
    "integrator": {"dt": 1e-3, "duration": 0.5},
    "input": {"times": [0.0, 0.2], "values": [0.0, 10.0]},
    "analysis": {"quantities": ["p2_max"], "bootstrap": 100},
}
COULOMB = [80.0, 240.0]
BULK = [0.9e9, 1.3e9, 1.7e9]
COLUMNS = ["friction.coulomb_force", "circuit.oil_bulk_modulus"]
# The grid's points in its order (first axis slowest).
POINTS = np.array(list(itertools.product(COULOMB, BULK)))


@pytest.fixture(scope="module")
def grid_results(tmp_path_factory):
    study = dict(BASE, grid=[{"parameter": COLUMNS[0], "values": COULOMB},
                             {"parameter": COLUMNS[1], "values": BULK}])
    return hydrosweep.run(study, tmp_path_factory.mktemp("grid"), threads=2)


def same(a, b):
    assert a.inputs.shape == b.inputs.shape
    assert np.array_equal(a.inputs, b.inputs)
    assert np.array_equal(a.status, b.status)
    for name in ("p2_max", "q1", "steps", "settling_time"):
        np.testing.assert_array_equal(a.output(name), b.output(name))


def test_dataframe_rows_equal_the_grid(grid_results, tmp_path):
    pd = pytest.importorskip("pandas")
    rows = pd.DataFrame(POINTS, columns=COLUMNS)
    r = hydrosweep.run(dict(BASE, sample={"rows": rows}), tmp_path, threads=2)
    same(r, grid_results)
    assert (tmp_path / "design_rows.npy").exists()


def test_array_rows_with_columns_equal_the_grid(grid_results, tmp_path):
    r = hydrosweep.run(dict(BASE, sample={"rows": POINTS, "columns": COLUMNS}), tmp_path, threads=2)
    same(r, grid_results)


def test_hdf5_design_file_equals_the_grid(grid_results, tmp_path):
    path = tmp_path / "design.h5"
    with h5py.File(path, "w") as f:
        d = f.create_dataset("points", data=POINTS)
        d.attrs["columns"] = COLUMNS
    r = hydrosweep.run(dict(BASE, sample={"method": "rows", "file": str(path), "dataset": "points"}),
                       tmp_path / "out", threads=2)
    same(r, grid_results)


def test_array_without_columns_is_refused(tmp_path):
    with pytest.raises(ValueError, match="needs sample.columns"):
        hydrosweep.run(dict(BASE, sample={"rows": POINTS}), tmp_path)


def test_out_of_range_row_names_row_and_column(tmp_path):
    bad = POINTS.copy()
    bad[4, 1] = -1.0
    with pytest.raises(hydrosweep.StudyError, match=r"row 5, column circuit.oil_bulk_modulus: -1 is out of range"):
        hydrosweep.run(dict(BASE, sample={"rows": bad, "columns": COLUMNS}), tmp_path)


def test_check_returns_the_design_and_raises_for_a_bad_study(tmp_path):
    d = hydrosweep.check(dict(BASE, sample={"rows": POINTS, "columns": COLUMNS}))
    assert d["method"] == "rows" and d["instance_count"] == 6
    assert d["varied_names"] == COLUMNS
    assert d["varied_units"] == ["N", "Pa"]
    np.testing.assert_array_equal(d["design"], POINTS)
    assert hydrosweep.check(dict(BASE, sample={"rows": POINTS, "columns": COLUMNS}), rows=2)["design"].shape == (2, 2)
    with pytest.raises(hydrosweep.StudyError, match="unknown parameter 'friction.coulomb'"):
        hydrosweep.check(dict(BASE, sample={"rows": POINTS, "columns": ["friction.coulomb", COLUMNS[1]]}))


def test_rows_into_an_out_that_is_a_file_is_an_output_error(tmp_path):
    out = tmp_path / "a_file"
    out.write_text("not a directory")
    with pytest.raises(hydrosweep.OutputError, match="cannot hold the design's rows"):
        hydrosweep.run(dict(BASE, sample={"rows": POINTS, "columns": COLUMNS}), out)
