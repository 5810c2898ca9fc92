"""Bad input raises the CLI's error (test 2 of python/README.md): the class
follows the CLI's exit status (2: StudyError, a ValueError; 1:
HydrosweepError, a RuntimeError) and str(exception) is the text the CLI
prints after "hydrosweep: error: ".
"""

import pytest

import hydrosweep
from hstest import DATA, cli_error

SMALL = (DATA / "four_bar_small.toml").read_text()


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


BAD_STUDIES = {
    "out_of_range": SMALL.replace('[analysis]', '[parameters]\n"circuit.oil_bulk_modulus" = -1.0\n\n[analysis]'),
    "unknown_model": SMALL.replace('model = "four-bar"', 'model = "five-bar"'),
    "unknown_key": SMALL.replace("dt = 1e-3", "dt = 1e-3\ndurration = 2.0"),
    "grid_out_of_range": SMALL.replace("max = 500.0", "max = -500.0"),
    "not_toml": "[study\nname = 1\n",
    "cross_field": SMALL.replace('[analysis]', '[parameters]\n"circuit.rod_diameter" = 0.09\n\n[analysis]'),
}


@pytest.mark.parametrize("case", sorted(BAD_STUDIES))
def test_bad_study_raises_the_cli_message(cli, tmp_path, case):
    study = write(tmp_path, f"{case}.toml", BAD_STUDIES[case])
    expected = cli_error(cli, "run", study, "--out", tmp_path / "cli", expect=2)
    with pytest.raises(hydrosweep.StudyError) as e:
        hydrosweep.run(study, tmp_path / "py")
    assert str(e.value) == expected
    assert isinstance(e.value, ValueError)
    assert not (tmp_path / "py").exists()  # nothing written, as the CLI


def test_missing_file(cli, tmp_path):
    study = str(tmp_path / "no_such_study.toml")
    for command, call in (("run", hydrosweep.run), ("stability", hydrosweep.stability)):
        expected = cli_error(cli, command, study, "--out", tmp_path / "cli", expect=2)
        with pytest.raises(hydrosweep.StudyError) as e:
            call(study, tmp_path / "py")
        assert str(e.value) == expected
        assert expected.startswith(study)


def test_unsupported_command(cli, tmp_path):
    # nloop-linkage: stability only; lugre: no stability map (hs::require_command)
    cases = [("run", hydrosweep.run, '[study]\nmodel = "nloop-linkage"\n'),
             ("stability", hydrosweep.stability, '[study]\nmodel = "four-bar"\nfriction = "lugre"\n')]
    for command, call, text in cases:
        study = write(tmp_path, f"{command}.toml", text)
        expected = cli_error(cli, command, study, "--out", tmp_path / "cli", expect=2)
        with pytest.raises(hydrosweep.StudyError) as e:
            call(study, tmp_path / "py")
        assert str(e.value) == expected
        assert not (tmp_path / "py").exists()


def test_out_not_a_directory(cli, tmp_path):
    # exit 1 in the CLI: an OutputError, a HydrosweepError (RuntimeError)
    study = str(DATA / "four_bar_small.toml")
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    expected = cli_error(cli, "run", study, "--out", blocker, expect=1)
    with pytest.raises(hydrosweep.OutputError) as e:
        hydrosweep.run(study, blocker)
    assert str(e.value) == expected
    assert isinstance(e.value, hydrosweep.HydrosweepError) and isinstance(e.value, RuntimeError)
    assert not isinstance(e.value, ValueError)


def test_refused_resume(cli, tmp_path):
    # nothing to resume: exit 2 in the CLI (hs::ResumeError), a StudyError here
    study = str(DATA / "four_bar_small.toml")
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    expected = cli_error(cli, "run", study, "--out", tmp_path / "cli", "--resume", expect=2)
    with pytest.raises(hydrosweep.StudyError) as e:
        hydrosweep.run(study, tmp_path / "py", resume=True)
    assert str(e.value) == expected.replace(str(tmp_path / "cli"), str(tmp_path / "py"))


def test_unknown_model_in_parameters(cli):
    expected = cli_error(cli, "parameters", "--model", "five-bar", expect=2)
    with pytest.raises(hydrosweep.StudyError) as e:
        hydrosweep.parameters("five-bar")
    assert str(e.value) == expected


def test_dict_study_errors_name_the_dict(tmp_path):
    with pytest.raises(hydrosweep.StudyError) as e:
        hydrosweep.run({"study": {"model": "five-bar"}}, tmp_path / "py")
    assert str(e.value).startswith(hydrosweep.DICT_STUDY_NAME + ":")
    assert "five-bar" in str(e.value)


def test_bad_options(tmp_path):
    study = str(DATA / "four_bar_small.toml")
    with pytest.raises(hydrosweep.StudyError, match='backend "gpu" is not one of auto, cpu, cuda, kokkos'):
        hydrosweep.run(study, tmp_path / "a", backend="gpu")
    with pytest.raises(hydrosweep.StudyError, match="threads = -1"):
        hydrosweep.run(study, tmp_path / "b", threads=-1)
    with pytest.raises(hydrosweep.StudyError, match="chunk_size = -3"):
        hydrosweep.run(study, tmp_path / "c", chunk_size=-3)
    with pytest.raises(TypeError):
        hydrosweep.run(42, tmp_path / "d")
    with pytest.raises(TypeError):
        hydrosweep.run({"study": {"name": object()}}, tmp_path / "e")
    assert not any((tmp_path / d).exists() for d in "abcde")


def test_unavailable_backend(tmp_path):
    # the package is built for the CPU only (python/CMakeLists.txt): an
    # explicit cuda or kokkos is refused as the CLI of such a build refuses
    # it (exit 2), before anything is written
    assert not hydrosweep.has_cuda and not hydrosweep.has_kokkos
    for call, study in ((hydrosweep.run, DATA / "four_bar_small.toml"), (hydrosweep.stability, DATA / "stability_small.toml")):
        for backend, what in (("cuda", "CUDA"), ("kokkos", "Kokkos")):
            with pytest.raises(hydrosweep.StudyError) as e:
                call(str(study), tmp_path / backend, backend=backend)
            assert str(e.value).startswith(f"backend {backend}: this build has no {what} backend")
            assert not (tmp_path / backend).exists()
