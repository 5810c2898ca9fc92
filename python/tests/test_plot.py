"""hydrosweep.plot: the figures of `hydrosweep plot` from Python
(python/README.md, "Plots"). The code is the CLI's plot scripts' (studies/plot_study.py,
studies/plot_stability.py, installed as hydrosweep._plot_study and
_plot_stability): the files written, their names and formats, the choices
(quantity, instances, slices) reaching the figures, the package's exceptions
for what the scripts refuse, an ImportError naming the [plot] extra without
matplotlib, and the CLI's `hydrosweep plot` drawing the same figures.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hydrosweep
import hydrosweep.plot
from hstest import DATA, REPO

try:
    import matplotlib  # noqa: F401
except ImportError:  # pragma: no cover - scripts/test_python.sh installs it
    matplotlib = None
# Without matplotlib only the ImportError is tested (as to_dataframe without pandas).
needs_matplotlib = pytest.mark.skipif(matplotlib is None, reason="matplotlib is not installed (the [plot] extra)")

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}
# four_bar_small.toml: [analysis] quantities p2_max and cylinder_work; a 3-axis
# grid (no heat map: a note) with trajectories.
STUDY_FIGURES = ["histogram_p2_max", "cdf_p2_max", "histogram_cylinder_work", "cdf_cylinder_work", "time_histories"]
BULK = "circuit.oil_bulk_modulus"


def is_format(path, fmt):
    head = Path(path).read_bytes()[:400]
    if fmt == "svg":
        return head.startswith(b"<?xml") and b"<svg" in head
    return head.startswith(MAGIC[fmt])


def svg_texts(path):
    """The texts of a matplotlib SVG (drawn as paths, each preceded by a comment holding its string)."""
    return Path(path).read_text()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "run"
    hydrosweep.run(str(DATA / "four_bar_small.toml"), out, threads=2, backend="cpu")
    return out


@pytest.fixture(scope="module")
def map2_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "map2"
    hydrosweep.stability(str(DATA / "stability_small.toml"), out, threads=2, backend="cpu")
    return out


@pytest.fixture(scope="module")
def map3_dir(tmp_path_factory):
    """stability_small with a third axis (the oil bulk modulus, 2 values): a map with a held axis."""
    base = tmp_path_factory.mktemp("plot")
    study = base / "map3.toml"
    study.write_text((DATA / "stability_small.toml").read_text().replace("count = 12", "count = 4")
                     + f'\n[[grid]]\nparameter = "{BULK}"\nvalues = [5e8, 2e9]\n')
    hydrosweep.stability(str(study), base / "map3", threads=2, backend="cpu")
    return base / "map3"


def copy_dir(src, dst):
    dst.mkdir()
    for f in src.iterdir():
        if f.is_file():
            (dst / f.name).write_bytes(f.read_bytes())
    return dst


@needs_matplotlib
@pytest.mark.parametrize("fmt", ["png", "pdf", "svg"])
def test_study_figures_in_each_format(run_dir, tmp_path, fmt):
    out = tmp_path / "figs"
    with pytest.warns(hydrosweep.HydrosweepWarning, match="heat maps need exactly two"):
        written = hydrosweep.plot.study(run_dir, out, format=fmt)
    assert written == [out / f"{name}.{fmt}" for name in STUDY_FIGURES]
    assert all(isinstance(p, Path) and is_format(p, fmt) for p in written)
    assert sorted(os.listdir(out)) == sorted([".hydrosweep-plots"] + [p.name for p in written])
    assert (out / ".hydrosweep-plots").read_text().split() == [p.name for p in written]


@needs_matplotlib
def test_study_defaults_and_a_new_set_replaces_the_old(run_dir, tmp_path, capsys):
    d = copy_dir(run_dir, tmp_path / "run")
    with pytest.warns(hydrosweep.HydrosweepWarning):
        first = hydrosweep.plot.study(d)  # default out DIR/plots, png
    assert first == [d / "plots" / f"{name}.png" for name in STUDY_FIGURES]
    (d / "plots" / "mine.txt").write_text("a user's file")
    with pytest.warns(hydrosweep.HydrosweepWarning):
        second = hydrosweep.plot.study(d, format="svg", quantity="p2_max")
    # the earlier call's set is retired, the user's file stays
    assert sorted(os.listdir(d / "plots")) == sorted([".hydrosweep-plots", "mine.txt"] + [p.name for p in second])
    # a library call prints nothing (the scripts print paths and notes) and loads no pyplot
    assert capsys.readouterr() == ("", "")
    assert "matplotlib.pyplot" not in sys.modules
    from hydrosweep import _plot_study
    assert _plot_study._NOTES.get() is None  # nothing left set


@needs_matplotlib
def test_quantity_and_instances_reach_the_figures(run_dir, tmp_path):
    out = tmp_path / "figs"
    with pytest.warns(hydrosweep.HydrosweepWarning):
        written = hydrosweep.plot.study(run_dir, out, quantity=["cylinder_work", "max_cylinder_work"],
                                        instances=[3, 21], format="svg")
    assert [p.name for p in written] == ["histogram_cylinder_work.svg", "cdf_cylinder_work.svg",
                                         "histogram_max_cylinder_work.svg", "cdf_max_cylinder_work.svg",
                                         "time_histories.svg"]
    assert "histogram of max_cylinder_work" in svg_texts(out / "histogram_max_cylinder_work.svg")
    th = svg_texts(out / "time_histories.svg")
    assert "2 of 24 instances" in th
    assert "#3: " in th and "#21: " in th and "#0: " not in th


@needs_matplotlib
def test_bad_arguments_raise_study_error(run_dir, tmp_path):
    out = tmp_path / "figs"
    with pytest.raises(hydrosweep.StudyError, match=r"no output no_such_output in .*results\.h5; have: .*p2_max"):
        hydrosweep.plot.study(run_dir, out, quantity=["p2_max", "no_such_output"])
    with pytest.raises(hydrosweep.StudyError, match=r"--instances 24: out of range \(0 \.\. 23\)"):
        hydrosweep.plot.study(run_dir, out, instances=[0, 24])
    with pytest.raises(hydrosweep.StudyError, match="--format gif: one of png, pdf, svg"):
        hydrosweep.plot.study(run_dir, out, format="gif")
    with pytest.raises(hydrosweep.StudyError, match="--slice holds an axis of a stability map; .* has no stability.h5"):
        hydrosweep.plot.plot(run_dir, out, slices={BULK: 1e9})
    assert not out.exists()  # refused before anything was written
    with pytest.raises(TypeError):
        hydrosweep.plot.study(run_dir, out, instances=["3"])
    (tmp_path / "file").write_text("")
    with pytest.raises(hydrosweep.StudyError, match="exists and is not a directory"):
        hydrosweep.plot.study(run_dir, tmp_path / "file")
    with pytest.raises(hydrosweep.OutputError, match="file/sub: Not a directory"):  # the scripts' exit 1
        hydrosweep.plot.study(run_dir, tmp_path / "file" / "sub")


@needs_matplotlib
def test_a_folder_that_is_not_an_output_raises(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for call in (hydrosweep.plot.plot, hydrosweep.plot.study):
        with pytest.raises(hydrosweep.StudyError, match=r"results\.h5 not found \(is .*empty the output directory"):
            call(empty)
    with pytest.raises(hydrosweep.StudyError, match=r"stability\.h5 not found"):
        hydrosweep.plot.stability(empty)
    (empty / "results.h5").write_text("not hdf5")
    with pytest.raises(hydrosweep.StudyError, match="is not a hydrosweep results file"):
        hydrosweep.plot.plot(empty)
    assert sorted(os.listdir(empty)) == ["results.h5"]  # no plots/ made


@needs_matplotlib
def test_stability_map_and_its_slices(map3_dir, tmp_path):
    default = hydrosweep.plot.stability(map3_dir, tmp_path / "a", format="svg")
    assert default == tmp_path / "a" / "stability_map.svg" and is_format(default, "svg")
    assert "other axes at circuit.oil_bulk_modulus = 500 MPa" in svg_texts(default)
    # the nearest axis value to 1.9e9 Pa: 2e9
    sliced = hydrosweep.plot.stability(map3_dir, tmp_path / "b", slices={BULK: 1.9e9}, format="svg")
    assert "other axes at circuit.oil_bulk_modulus = 2000 MPa" in svg_texts(sliced)
    # plot() picks the map by the folder's file; into DIR by default
    d = copy_dir(map3_dir, tmp_path / "map3")
    assert hydrosweep.plot.plot(d) == [d / "stability_map.png"]
    assert is_format(d / "stability_map.png", "png")

    with pytest.raises(hydrosweep.StudyError,
                       match=r"--slice friction_scale: not an axis held in the map \(the axes beyond the first two: "
                             r"circuit\.oil_bulk_modulus\)"):
        hydrosweep.plot.stability(map3_dir, tmp_path / "c", slices={"friction_scale": 0.1})
    with pytest.raises(TypeError):
        hydrosweep.plot.stability(map3_dir, tmp_path / "c", slices={BULK: "2e9"})
    with pytest.raises(hydrosweep.StudyError, match="--quantity picks outputs of a run; .* holds a stability map"):
        hydrosweep.plot.plot(map3_dir, tmp_path / "c", quantity="p2_max")
    assert not (tmp_path / "c").exists()


@needs_matplotlib
def test_two_axis_map_refuses_a_slice(map2_dir, tmp_path):
    png = hydrosweep.plot.stability(map2_dir, tmp_path)
    assert png == tmp_path / "stability_map.png" and is_format(png, "png")
    with pytest.raises(hydrosweep.StudyError, match="--slice selects a slice of a grid map with more than two axes; "
                                                    r"this map has 2 varied input\(s\) \(grid design\)"):
        hydrosweep.plot.stability(map2_dir, tmp_path, slices={BULK: 1e9})


@needs_matplotlib
def test_the_package_holds_the_scripts_code():
    from hydrosweep import _plot_stability, _plot_study
    for module, script in ((_plot_study, "plot_study.py"), (_plot_stability, "plot_stability.py")):
        assert Path(module.__file__).read_text() == (REPO / "studies" / script).read_text(), (
            f"{module.__name__} differs from studies/{script}: reinstall the package (pip install ./python)")


# A python3 whose `import matplotlib` fails as when it is not installed.
NO_MATPLOTLIB = "raise ModuleNotFoundError(\"No module named 'matplotlib'\", name='matplotlib')\n"


def test_without_matplotlib_an_import_error_names_the_extra(run_dir):
    code = textwrap.dedent(f"""
        import sys
        sys.modules["matplotlib"] = None  # as if not installed
        import hydrosweep, hydrosweep.plot
        from hydrosweep import *
        assert plot is hydrosweep.plot
        for call in (hydrosweep.plot.plot, hydrosweep.plot.study, hydrosweep.plot.stability):
            try:
                call({str(run_dir)!r})
            except ImportError as e:
                print(e.name, e)
            else:
                raise SystemExit("no ImportError")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3
    for line in lines:
        assert line.startswith("matplotlib hydrosweep.plot needs matplotlib and h5py: pip install './python[plot]'")


@needs_matplotlib
def test_scripts_still_run_as_scripts(run_dir, map3_dir, tmp_path):
    out = tmp_path / "s"
    r = subprocess.run([sys.executable, str(REPO / "studies" / "plot_study.py"), str(run_dir), "--out", str(out),
                        "--quantity", "p2_max", "--format", "pdf"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(out / f"{n}.pdf") for n in ("histogram_p2_max", "cdf_p2_max", "time_histories")]
    assert "plot_study: note: map: grid with 3 varied inputs" in r.stderr
    r = subprocess.run([sys.executable, str(REPO / "studies" / "plot_stability.py"), str(map3_dir), "--out", str(out),
                        "--slice", "nope=1"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("plot_stability: error: --slice nope: not an axis")

    fake = tmp_path / "nompl"
    fake.mkdir()
    (fake / "matplotlib.py").write_text(NO_MATPLOTLIB)
    env = dict(os.environ, PYTHONPATH=str(fake))
    expected = ("plot_study: error: No module named 'matplotlib' (python3 with h5py, matplotlib and numpy is needed; "
                "scripts/setup.sh installs them)\n")
    for script, d in (("plot_study.py", run_dir), ("plot_stability.py", map3_dir)):
        r = subprocess.run([sys.executable, str(REPO / "studies" / script), str(d), "--out", str(tmp_path / "x")],
                           capture_output=True, text=True, env=env)
        assert (r.returncode, r.stdout, r.stderr) == (3, "", expected), script


def cli_env(tmp_path, with_matplotlib=True):
    """The CLI's plot interpreter (HYDROSWEEP_PYTHON, which it takes before a
    project .venv or PATH): this one, so that it has the test environment's
    packages, optionally without matplotlib."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "python3"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", HYDROSWEEP_PYTHON=str(wrapper))
    if not with_matplotlib:
        (tmp_path / "nompl").mkdir(exist_ok=True)
        (tmp_path / "nompl" / "matplotlib.py").write_text(NO_MATPLOTLIB)
        env["PYTHONPATH"] = str(tmp_path / "nompl")
    return env


@needs_matplotlib
def test_cli_plot_draws_the_same_figures(cli, run_dir, map3_dir, tmp_path):
    env = cli_env(tmp_path)
    out_cli, out_py = tmp_path / "cli", tmp_path / "py"
    r = subprocess.run([cli, "plot", str(run_dir), "--out", str(out_cli), "--quantity", "p2_max", "cylinder_work"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    with pytest.warns(hydrosweep.HydrosweepWarning):
        written = hydrosweep.plot.plot(run_dir, out_py, quantity=["p2_max", "cylinder_work"])
    assert r.stdout.split() == [str(out_cli / p.name) for p in written]
    for p in written:  # one code, one matplotlib: the same bytes
        assert (out_cli / p.name).read_bytes() == p.read_bytes(), p.name

    r = subprocess.run([cli, "plot", str(map3_dir), "--out", str(out_cli), "--slice", f"{BULK}=2e9", "--format", "svg"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(out_cli / "stability_map.svg")]
    assert "circuit.oil_bulk_modulus = 2000 MPa" in svg_texts(out_cli / "stability_map.svg")


def test_cli_without_matplotlib_says_so_without_a_traceback(cli, run_dir, map3_dir, tmp_path):
    env = cli_env(tmp_path, with_matplotlib=False)
    for d in (run_dir, map3_dir):
        r = subprocess.run([cli, "plot", str(d), "--out", str(tmp_path / "x")], capture_output=True, text=True, env=env)
        assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
        assert "No module named 'matplotlib'" in r.stderr and "scripts/setup.sh installs them" in r.stderr, r.stderr
    r = subprocess.run([cli, "stability", str(DATA / "stability_small.toml"), "--out", str(tmp_path / "s"),
                        "--threads", "2", "--backend", "cpu", "--quiet"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert f"hydrosweep: warning: {tmp_path / 'bin' / 'python3'} lacks h5py, matplotlib or numpy" in r.stderr, r.stderr
    assert not (tmp_path / "s" / "stability_map.png").exists()
