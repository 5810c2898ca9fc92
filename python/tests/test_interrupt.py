"""Ctrl-C during hydrosweep.run (from the main thread): the run stops after the
instances in flight, keeps its finished chunks and raises KeyboardInterrupt
with the CLI's account of what was saved; read_partial reads the finished
chunks (equal to the final results' rows); resume=True then finishes the
study; Python's own SIGINT handling is back afterwards. Run in a child
process, which interrupts itself once the first chunk is on disk.
"""
import subprocess
import sys
import textwrap

from hstest import DATA

SCRIPT = textwrap.dedent(r"""
    import glob, os, signal, sys, threading, time
    import hydrosweep

    # Python installs its KeyboardInterrupt handler only where SIGINT was not
    # ignored at start-up, and a process started in the background by a
    # non-interactive shell (`cmd &`, e.g. a CI harness) inherits it ignored:
    # hydrosweep then rightly puts back SIG_IGN. What is tested is that the
    # handler that was there comes back, so make it Python's own first.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    study = open(sys.argv[1]).read()
    # 10 x 10 x 4 = 400 instances of the 10 s work cycle, chunks of 8
    study = study.replace("count = 4", "count = 10").replace("count = 3", "count = 10")
    study = study.replace("values = [0.002, 0.05]", "values = [0.002, 0.005, 0.01, 0.05]")
    path = os.path.join(sys.argv[2], "big.toml")
    open(path, "w").write(study)
    out = os.path.join(sys.argv[2], "out")

    def interrupt():
        while not glob.glob(os.path.join(out, ".hydrosweep-partial", "chunk-*.bin")):
            time.sleep(0.005)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    try:
        hydrosweep.run(path, out, threads=2, chunk_size=8)
        print("not interrupted")
        sys.exit(1)
    except KeyboardInterrupt as e:
        print("KeyboardInterrupt:", e)
    assert os.path.isdir(os.path.join(out, ".hydrosweep-partial"))
    assert not os.path.exists(os.path.join(out, "results.h5"))

    # The finished chunks, read without finishing the run (read_partial).
    import numpy as np
    part = hydrosweep.read_partial(path, out)
    done = part.finished
    assert len(part) == 400 and 0 < done.sum() < 400 and done.sum() % 8 == 0, done.sum()
    assert not part.damaged
    assert all(part.status_text[i] == "not_run" for i in np.flatnonzero(~done))
    assert np.isnan(part.outputs[~done]).all() and not np.isnan(part.outputs[done]).any()
    import importlib.util
    if importlib.util.find_spec("pandas"):  # integer outputs stay float: NaN, not a cast of NaN
        df = part.to_dataframe()
        assert df["steps"][~done].isna().all() and (df["steps"][done] > 0).all()

    res = hydrosweep.run(path, out, threads=2, chunk_size=8, resume=True)
    r = res.report
    print("resumed", r["resumed"], "ran", r["ran"])
    assert r["resumed"] > 0 and r["resumed"] + r["ran"] == len(res) == 400
    assert r["resumed"] == done.sum()
    assert (res.status == 0).all()
    assert not os.path.exists(os.path.join(out, ".hydrosweep-partial"))
    # What read_partial gave is the final results' rows, bit for bit.
    assert np.array_equal(part.varied, res.varied) and part.varied_names == res.varied_names
    assert part.output_names == res.output_names
    assert part.outputs[done].tobytes() == res.outputs[done].tobytes()
    assert np.array_equal(part.status[done], res.status[done])
    try:
        hydrosweep.read_partial(path, out)
        sys.exit("read_partial of a finished run did not raise")
    except hydrosweep.StudyError as e:
        assert "holds no interrupted run" in str(e) and "the run finished" in str(e), e

    # Python's SIGINT handler is back: KeyboardInterrupt, not the end of the process.
    # The kill is process-directed: the kernel may hand it to an idle OpenMP worker,
    # whose Python-level handler only flags it; the main thread raises at its next
    # eval-loop check, which a loop of short sleeps reaches (one long sleep may not).
    try:
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            time.sleep(0.01)
        print("no KeyboardInterrupt")
        sys.exit(1)
    except KeyboardInterrupt:
        print("handler restored")
""")


def test_ctrl_c_then_resume(tmp_path):
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(DATA / "four_bar_small.toml"), str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    out = tmp_path / "out"
    assert lines[0].startswith("KeyboardInterrupt: interrupted: "), r.stdout
    assert lines[0].endswith(f" of 400 instances are saved in {out}/.hydrosweep-partial; continue with resume=True")
    assert lines[1].startswith("resumed ")
    assert lines[2] == "handler restored"
