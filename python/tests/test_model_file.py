"""Model files from Python (docs/model-files.md): a dict study naming a model
file runs as the CLI runs the same study file (results.h5 equal but for the
study's text and path); a model given as a dict (the study's "machine")
runs as its file does, bit for bit; hydrosweep.parameters reads a model file
as `hydrosweep parameters --model FILE` does; a bad model file is a
StudyError naming the element.
"""
import numpy as np
import pytest

try:
    import tomllib  # Python >= 3.11
except ImportError:  # pragma: no cover
    tomllib = None

import hydrosweep
from hstest import REPO, h5_differences, run_cli

FOUR_BAR = str(REPO / "models" / "four_bar.toml")


def study(model_file):
    return {
        "study": {"name": "model_file_small", "model_file": model_file, "friction": "lugre"},
        "integrator": {"dt": 1e-3, "duration": 3.0},
        "sample": {"method": "monte-carlo", "count": 6, "seed": 3},
        "factor": [{"parameter": "body.coupler.mass", "relative": 0.05},
                   {"parameter": "ground.E_x", "relative": 0.01}],
    }


def test_dict_study_with_a_model_file_equals_the_cli(cli, tmp_path):
    res = hydrosweep.run(study(FOUR_BAR), tmp_path / "py", threads=2)
    path = tmp_path / "study.toml"
    path.write_text(hydrosweep.study_text(study(FOUR_BAR)))
    run_cli(cli, "run", str(path), "--out", str(tmp_path / "cli"), "-q")
    assert h5_differences(tmp_path / "cli" / "results.h5", tmp_path / "py" / "results.h5",
                          ignore_metadata={"study_text", "study_path"}) == []
    assert res.metadata["model"] == "four-bar-file"
    assert res.metadata["model_file_text"] == open(FOUR_BAR).read()
    assert np.all(res.status == 0)
    # q4, q5 are the kernel's padding: at rest
    assert np.all(res.outputs[:, res.output_names.index("q4")] == 0.0)


def test_parameters_of_a_model_file_match_the_cli(cli):
    table = {p["name"]: p for p in hydrosweep.parameters(FOUR_BAR)}
    assert table["body.crank.mass"]["default"] == 16.0
    assert table["ground.E_x"]["default"] == 10.0
    assert table["cylinder.lift.piston_diameter"]["unit"] == "m"
    out = run_cli(cli, "parameters", "--model", FOUR_BAR).stdout
    for name, p in table.items():
        assert f"| `{name}` | {p['unit']} | {p['range']} |" in out, name


def test_a_bad_model_file_is_a_study_error_naming_the_element(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(open(FOUR_BAR).read().replace('mass = 64.0', 'mass = -64.0'))
    with pytest.raises(hydrosweep.StudyError, match=r"body\.coupler\.mass = -64 is out of range"):
        hydrosweep.parameters(str(bad))
    with pytest.raises(hydrosweep.StudyError, match=r"study\.model_file"):
        hydrosweep.run(study(str(bad)), tmp_path / "out")


@pytest.mark.skipif(tomllib is None, reason="tomllib needs Python 3.11")
def test_a_model_given_as_a_dict_runs_as_its_file(tmp_path):
    with open(FOUR_BAR, "rb") as f:
        machine = tomllib.load(f)
    from_file = hydrosweep.run(study(FOUR_BAR), tmp_path / "file", threads=2)
    inline = study(None)
    del inline["study"]["model_file"]
    inline["machine"] = machine
    from_dict = hydrosweep.run(inline, tmp_path / "dict", threads=2)
    assert from_dict.metadata["model"] == "four-bar-file"
    assert from_dict.metadata["model_file_path"] == hydrosweep.DICT_STUDY_NAME + " [machine]"
    assert np.array_equal(from_dict.outputs, from_file.outputs, equal_nan=True)
    assert np.array_equal(from_dict.inputs, from_file.inputs)


@pytest.mark.skipif(tomllib is None, reason="tomllib needs Python 3.11")
def test_a_two_cylinder_dict_model_with_controllers_runs_as_its_file(tmp_path):
    """The excavator's boom and arm (two cylinders, PI stroke controllers,
    docs/model-files.md §8-§9) as a dict with a changed arm gain runs as its
    file with that gain set as a parameter, bit for bit."""
    path = str(REPO / "models" / "excavator_boom_arm.toml")
    with open(path, "rb") as f:
        machine = tomllib.load(f)
    machine["input"]["arm"]["proportional_gain"] = 60.0
    base = {"integrator": {"dt": 1e-3, "duration": 2.5}}
    from_dict = hydrosweep.run({"study": {"name": "ba"}, "machine": machine, **base}, tmp_path / "dict", threads=2)
    from_file = hydrosweep.run({"study": {"name": "ba", "model_file": path},
                                "parameters": {"input.arm.proportional_gain": 60.0}, **base},
                               tmp_path / "file", threads=2)
    assert np.all(from_dict.status == 0)
    assert np.array_equal(from_dict.outputs, from_file.outputs, equal_nan=True)
    names = from_dict.output_names
    assert np.isfinite(from_dict.outputs[0, names.index("control_error_rms_2")])
    table = {p["name"]: p for p in hydrosweep.parameters(path)}
    assert table["input.arm.proportional_gain"]["unit"] == "V/m"


def test_named_points_are_in_the_trajectories(cli, tmp_path):
    """models/excavator_boom_arm.toml's [output] point arm.tip: results.h5
    carries arm_tip_x, arm_tip_y per sample, the forward kinematics of the
    sample's joint angles (boom 4.6 m from O, arm 2.4 m from T), written by
    the CLI as by Python, and in the summary at the run's end."""
    study = tmp_path / "s.toml"
    study.write_text(open(REPO / "studies" / "excavator_boom_arm_cycle.toml").read()
                     .replace("../models/", str(REPO / "models") + "/").replace("duration = 12.0", "duration = 3.0"))
    run_cli(cli, "run", str(study), "--out", str(tmp_path / "out"), "-q")
    res = hydrosweep.read_results(str(tmp_path / "out"), kind="run")
    tr = res.trajectories
    q1, q2 = tr["q1"][0], tr["q2"][0]
    x = 4.6 * np.cos(q1) + 2.4 * np.cos(q1 + q2)
    y = 4.6 * np.sin(q1) + 2.4 * np.sin(q1 + q2)
    assert np.max(np.abs(tr["arm_tip_x"][0] - x)) < 1e-14
    assert np.max(np.abs(tr["arm_tip_y"][0] - y)) < 1e-14
    # The summary carries the point at the run's end: the last sample's value
    # (the run ends on a sample), from the final q1, q2 columns.
    for axis in ("x", "y"):
        assert res.output(f"arm_tip_{axis}")[0] == tr[f"arm_tip_{axis}"][0][-1]
    q1e, q2e = res.output("q1")[0], res.output("q2")[0]
    assert abs(res.output("arm_tip_x")[0] - (4.6 * np.cos(q1e) + 2.4 * np.cos(q1e + q2e))) < 1e-14
