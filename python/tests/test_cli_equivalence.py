"""A study run from Python writes what the CLI writes (tests 1 and 4 of
python/README.md): summary.csv / stability.csv byte for byte, and every
dataset and attribute of results.h5 / stability.h5 equal except the run
record of /metadata (wall time, date, threads).

Both sides run on the CPU backend with 2 threads (--backend cpu: a main build
with CUDA on a GPU machine would otherwise take the GPU).
"""
from pathlib import Path

import numpy as np

import hydrosweep
from hstest import h5_differences, run_cli


def test_run_matches_cli(cli, study_copy, tmp_path):
    study = study_copy("four_bar_small.toml")
    out_cli, out_py = tmp_path / "cli", tmp_path / "py"
    run_cli(cli, "run", study, "--out", out_cli, "--threads", 2, "--backend", "cpu", "--quiet")
    res = hydrosweep.run(study, out_py, threads=2, backend="cpu")

    assert (out_py / "summary.csv").read_bytes() == (out_cli / "summary.csv").read_bytes()
    assert h5_differences(out_cli / "results.h5", out_py / "results.h5") == []
    # what Python returns is what the CLI wrote
    ref = hydrosweep.read_results(out_cli)
    assert np.array_equal(res.outputs, ref.outputs, equal_nan=True)
    assert np.array_equal(res.inputs, ref.inputs)
    assert np.array_equal(res.status, ref.status)
    assert res.report["instances"] == len(res) == 24
    assert res.report["ran"] == 24 and res.report["failed"] == 0
    assert Path(res.report["results_h5"]) == (out_py / "results.h5").resolve()


def test_stability_matches_cli(cli, study_copy, tmp_path):
    study = study_copy("stability_small.toml")
    out_cli, out_py = tmp_path / "cli", tmp_path / "py"
    run_cli(cli, "stability", study, "--out", out_cli, "--threads", 2, "--backend", "cpu", "--quiet")
    smap = hydrosweep.stability(study, out_py, threads=2, backend="cpu")

    assert (out_py / "stability.csv").read_bytes() == (out_cli / "stability.csv").read_bytes()
    assert h5_differences(out_cli / "stability.h5", out_py / "stability.h5") == []
    assert not (out_py / "stability_map.png").exists()  # the CLI's plot is not drawn
    ref = hydrosweep.read_results(out_cli)
    assert isinstance(ref, hydrosweep.StabilityMap)
    assert np.array_equal(smap.eigenvalues, ref.eigenvalues, equal_nan=True)
    assert np.array_equal(smap.max_real, ref.max_real, equal_nan=True)
    assert smap.report["points"] == len(smap) == 60
    assert smap.report["stable"] + smap.report["unstable"] + smap.report["failed"] == 60
