"""hydrosweep: batch simulation of hydraulically actuated multibody systems.

Python bindings of the hydrosweep host library (the code behind the
``hydrosweep`` command-line tool); see python/README.md.

    import hydrosweep
    res = hydrosweep.run("studies/grid_friction_bulk.toml", "out/grid", threads=2)
    res.outputs.shape            # (N, K) float64, res.output_names
    df = res.to_dataframe()      # with pandas

Functions: run, stability, check, read_results, read_partial, models, parameters,
study_text. Classes: Results, PartialResults, StabilityMap. Exceptions: StudyError (ValueError),
HydrosweepError (RuntimeError; its subclass OutputError); a
HydrosweepWarning carries the host's notes. Submodule hydrosweep.plot
(``import hydrosweep.plot``; the [plot] extra, matplotlib): the figures of
``hydrosweep plot``, hydrosweep.plot.plot(DIR), study(DIR), stability(DIR).
"""
from ._core import HydrosweepError, OutputError, StudyError
from ._core import has_cuda, has_kokkos
from ._core import version as _version
from ._api import (DICT_STUDY_NAME, HydrosweepWarning, check, models, parameters, read_partial, run, stability,
                   study_text)
from ._results import PartialResults, Results, StabilityMap, read_results

__version__ = _version()

__all__ = [
    "run", "stability", "check", "read_results", "read_partial", "models", "parameters", "study_text",
    "Results", "PartialResults", "StabilityMap",
    "StudyError", "HydrosweepError", "OutputError", "HydrosweepWarning",
    "DICT_STUDY_NAME", "has_cuda", "has_kokkos", "__version__",
    "plot",  # the submodule (imported on use; its calls need matplotlib)
]
