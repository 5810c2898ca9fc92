"""Fixtures of the hydrosweep package's tests: the CLI to compare with and the
test studies (helpers: hstest.py).

The CLI: $HYDROSWEEP_CLI, else build/host/cli/hydrosweep of this checkout (the
main build's). Tests that compare with it fail, with a message saying so, when
neither exists: they are never skipped.
"""
import os
import shutil
from pathlib import Path

import pytest

from hstest import DATA, DEFAULT_CLI


@pytest.fixture(scope="session")
def cli():
    """Path of the hydrosweep executable the Python results are compared with."""
    env = os.environ.get("HYDROSWEEP_CLI")
    path = Path(env) if env else DEFAULT_CLI
    if not (path.is_file() and os.access(path, os.X_OK)):
        where = f"HYDROSWEEP_CLI={env}" if env else f"{DEFAULT_CLI} (HYDROSWEEP_CLI is not set)"
        pytest.fail(f"hydrosweep CLI not found: {where}. Build it first (cmake --build build) "
                    "or point HYDROSWEEP_CLI to an executable.", pytrace=False)
    return str(path)


@pytest.fixture
def study_copy(tmp_path):
    """Copies a study of tests/data into tmp_path; returns its path as str
    (the same string given to the CLI and to Python: it is in the metadata)."""

    def copy(name):
        dst = tmp_path / name
        shutil.copyfile(DATA / name, dst)
        return str(dst)

    return copy
