"""run(..., extend=N) (docs/study-files.md, "Extending a Monte Carlo study"):
a finished Monte Carlo run with N more samples equals one run of the larger
count, value for value; refusals are StudyErrors naming the reason."""
import numpy as np
import pytest

import hydrosweep

STUDY = {
    "study": {"model": "four-bar", "friction": "brown-mcphee"},
    "integrator": {"dt": 1e-3, "duration": 0.4},
    "input": {"times": [0.0, 0.1], "values": [0.0, 10.0]},
    "sample": {"method": "monte-carlo", "count": 24, "seed": 5},
    "factor": [{"parameter": "circuit.oil_bulk_modulus", "min": 0.9e9, "max": 1.7e9}],
    "output": {"trajectory_stride": 50},
    "analysis": {"quantities": ["p2_max"], "bootstrap": 40},
}


def test_extend_equals_one_run_of_the_larger_count(tmp_path):
    hydrosweep.run(STUDY, tmp_path / "a", threads=2)
    res = hydrosweep.run(STUDY, tmp_path / "a", threads=2, extend=16)
    assert res.report["ran"] == 16 and res.report["extended_from"] == 24
    whole = hydrosweep.run(dict(STUDY, sample=dict(STUDY["sample"], count=40)), tmp_path / "b", threads=2)
    assert len(res) == len(whole) == 40
    assert res.inputs.tobytes() == whole.inputs.tobytes()
    assert res.outputs.tobytes() == whole.outputs.tobytes()
    assert np.array_equal(res.status, whole.status)
    for name, values in whole.trajectories.items():
        assert res.trajectories[name].tobytes() == values.tobytes(), name
    assert res.analysis["statistics"]["p2_max"]["mean"] == whole.analysis["statistics"]["p2_max"]["mean"]
    assert (tmp_path / "a" / "summary.csv").read_bytes() == (tmp_path / "b" / "summary.csv").read_bytes()


def test_extend_refusals(tmp_path):
    with pytest.raises(hydrosweep.StudyError, match="has no results.h5"):
        hydrosweep.run(STUDY, tmp_path / "none", extend=4)
    hydrosweep.run(STUDY, tmp_path / "a", threads=2)
    with pytest.raises(hydrosweep.StudyError, match="holds the results of another study"):
        hydrosweep.run(dict(STUDY, sample=dict(STUDY["sample"], seed=6)), tmp_path / "a", extend=4)
    lhs = dict(STUDY, sample=dict(STUDY["sample"], method="lhs"))
    with pytest.raises(hydrosweep.StudyError, match="adds samples to a Monte Carlo study"):
        hydrosweep.run(lhs, tmp_path / "a", extend=4)
    with pytest.raises(ValueError, match="extend = -1"):
        hydrosweep.run(STUDY, tmp_path / "a", extend=-1)
