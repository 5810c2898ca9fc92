#!/usr/bin/env python3
"""Checks of the source tree's shape that the compiler does not make (docs/code-layout.md).

    tree_checks.py ROOT names        no two source files share a file name; no two code folders a folder name
    tree_checks.py ROOT references   every `docs/<name>.md §N` (and `<name>.md §N`) a comment cites has that heading,
                                     and every repository path a source file cites exists
    tree_checks.py ROOT includes     host/'s stages include only the stages below them; kernels/ includes
                                     nothing of host/
    tree_checks.py --self-test       each check passes on a small clean tree and fails on the same tree
                                     with one planted defect of its kind (a check that cannot fail is no check)

Each prints what it checked and every violation (file, line, what is wrong) and exits 1 on any.
"""
import os
import re
import shutil
import sys
import tempfile

# The folders read by the checks (build directories, virtual environments and
# caches are not the tree).
SOURCE_FOLDERS = ("kernels", "host", "tests", "bench", "studies", "python", "scripts", ".ci", "docs")
CODE_SUFFIXES = (".hpp", ".cpp", ".cu", ".h", ".cuh", ".py", ".sh", ".cmake")
SKIP_FOLDERS = {"__pycache__", ".pytest_cache", "build", "dist", ".venv"}
SKIP_PATHS = {"bench/results"}  # measurement records (JSON, logs), not source
# Names many folders hold by convention: not a collision.
CONVENTIONAL_NAMES = {"CMakeLists.txt", "README.md", "__init__.py", "conftest.py", ".gitignore", "pyproject.toml"}

# host/'s stages, lowest first (host/README.md draws them): a file of a stage
# includes files of its own stage and of the stages before it, never after.
# `host/build_paths.hpp` (configured paths) is below every stage.
HOST_STAGES = ("constrained", "registry", "design", "study", "run", "results", "cli")


def walk(root, folders=SOURCE_FOLDERS):
    for top in folders:
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        for here, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_FOLDERS and not d.startswith("build")
                             and rel(root, os.path.join(here, d)) not in SKIP_PATHS)
            for f in sorted(files):
                yield os.path.join(here, f)


def rel(root, path):
    return os.path.relpath(path, root).replace(os.sep, "/")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


# ---- names --------------------------------------------------------------------

def check_names(root):
    problems, seen, folders = [], {}, {}
    count = 0
    for path in walk(root):
        name = os.path.basename(path)
        if name in CONVENTIONAL_NAMES or not name.endswith(CODE_SUFFIXES + (".md", ".toml")):
            continue
        if rel(root, path).startswith(("tests/data/", "docs/")) and name.endswith(".toml"):
            continue  # study-file fixtures are data, named for what they hold
        count += 1
        seen.setdefault(name, []).append(rel(root, path))
    for top in ("kernels", "host"):
        for path in walk(root, (top,)):
            d = os.path.dirname(rel(root, path))
            if d != top:
                folders.setdefault(os.path.basename(d), set()).add(d)
    for name, paths in sorted(seen.items()):
        if len(paths) > 1:
            problems.append(f"file name {name} is used {len(paths)} times: " + ", ".join(paths))
    for name, paths in sorted(folders.items()):
        if len(paths) > 1:
            problems.append(f"folder name {name}/ is used {len(paths)} times: " + ", ".join(sorted(paths)))
    return f"{count} source files, the folders of kernels/ and host/", problems


# ---- references ---------------------------------------------------------------

SECTION_REF = re.compile(r"((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\.md|README)(?:`|\))?\s*§\s*([0-9]+(?:\.[0-9]+)*)")
PATH_REF = re.compile(r"(?<![\w/.$<{-])((?:kernels|host|tests|bench|studies|python|scripts|docs)/[A-Za-z0-9_./*-]*"
                      r"[A-Za-z0-9_*]\.(?:hpp|cpp|cu|h|py|md|sh|toml|txt|cmake|json|csv))(?![\w<{*-])")


def headings(text):
    return [line for line in text.splitlines() if line.startswith("#")]


def has_section(text, number):
    heads = headings(text)
    if any(re.match(r"#+\s*" + re.escape(number) + r"[ .)]", h) for h in heads):
        return True
    if "." in number:  # § A.B: item B of the numbered list under heading A
        a, b = number.rsplit(".", 1)
        inside = False
        for line in text.splitlines():
            if line.startswith("#"):
                inside = bool(re.match(r"#+\s*" + re.escape(a) + r"[ .)]", line))
            elif inside and re.match(r"\s*" + re.escape(b) + r"\.\s", line):
                return True
    return False


def find_markdown(root, cited):
    """The file a `NAME.md` or `path/NAME.md` citation names, or None."""
    if cited == "README":
        cited = "README.md"
    if "/" in cited:
        path = os.path.join(root, cited)
        return path if os.path.isfile(path) else None
    for here in (root, os.path.join(root, "docs"), os.path.join(root, "docs", "models")):
        path = os.path.join(here, cited)
        if os.path.isfile(path):
            return path
    return None


def check_references(root):
    problems, sections, paths = [], 0, 0
    cache = {}
    for path in walk(root, ("kernels", "host", "tests", "bench", "studies", "python", "scripts", ".ci")):
        name = os.path.basename(path)
        if not (name.endswith(CODE_SUFFIXES) or name == "CMakeLists.txt" or name == "run"):
            continue
        here = rel(root, path)
        if here == "tests/tree_checks.py":
            continue  # its self-test plants references that do not resolve, on purpose
        for number, line in enumerate(read(path).splitlines(), 1):
            for m in SECTION_REF.finditer(line):
                sections += 1
                cited, section = m.group(1), m.group(2)
                target = find_markdown(root, cited)
                if target is None:
                    problems.append(f"{here}:{number}: cites {cited} §{section}: no such file")
                    continue
                if target not in cache:
                    cache[target] = read(target)
                if not has_section(cache[target], section):
                    problems.append(f"{here}:{number}: cites {cited} §{section}: {rel(root, target)} has no "
                                    f"heading or item {section}")
            for m in PATH_REF.finditer(line):
                cited = m.group(1).rstrip(".")
                paths += 1
                if "*" in cited:
                    import glob
                    if not glob.glob(os.path.join(root, cited)):
                        problems.append(f"{here}:{number}: cites {cited}: nothing matches")
                elif not os.path.exists(os.path.join(root, cited)):
                    problems.append(f"{here}:{number}: cites {cited}: no such file")
    return f"{sections} section citations, {paths} path citations", problems


# ---- includes -----------------------------------------------------------------

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def stage_of(path_in_host):
    """host/<stage>/... -> stage; host/build_paths.hpp -> '' (below every stage)."""
    parts = path_in_host.split("/")
    return parts[1] if len(parts) > 2 else ""


def check_includes(root):
    problems, count = [], 0
    for path in walk(root, ("kernels", "host")):
        if not path.endswith((".hpp", ".cpp", ".cu", ".h", ".cuh")):
            continue
        here = rel(root, path)
        for number, line in enumerate(read(path).splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if not target.startswith(("host/", "kernels/")):
                resolved = os.path.normpath(os.path.join(os.path.dirname(here), target)).replace(os.sep, "/")
                if not resolved.startswith(("host/", "kernels/")):
                    continue
                target = resolved
            count += 1
            if here.startswith("kernels/"):
                if target.startswith("host/"):
                    problems.append(f"{here}:{number}: kernels/ includes {target}: the physics uses nothing of host/")
                continue
            if not target.startswith("host/"):
                continue
            mine, theirs = stage_of(here), stage_of(target)
            if theirs == "" or mine == theirs:
                continue
            if mine == "" or mine not in HOST_STAGES or theirs not in HOST_STAGES:
                unknown = mine if mine not in HOST_STAGES else theirs
                problems.append(f"{here}:{number}: includes {target}: host/{unknown}/ is not a stage of "
                                f"tests/tree_checks.py HOST_STAGES {HOST_STAGES}")
            elif HOST_STAGES.index(theirs) > HOST_STAGES.index(mine):
                problems.append(f"{here}:{number}: includes {target}: stage {mine}/ reaches up to {theirs}/ "
                                f"(order: {' < '.join(HOST_STAGES)})")
    return f"{count} includes of kernels/ and host/", problems


CHECKS = {"names": check_names, "references": check_references, "includes": check_includes}


def run(root, which):
    what, problems = CHECKS[which](root)
    for p in problems:
        print(p)
    print(f"{which}: {what}; " + ("ok" if not problems else f"{len(problems)} problem(s)"))
    return problems


# ---- self-test ----------------------------------------------------------------

def self_test():
    """Each check on a small clean tree (passes) and with one planted defect (fails, naming it)."""
    DOC = "docs/models/" + "friction.md"
    def write(root, path, text):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)

    def clean_tree(root):
        # The citations are assembled (DOC + ...) so that no checker of this
        # repository reads the fixture's fictional sections as its own.
        write(root, DOC, "# Friction\n\n## 3. Stribeck\n\n1. one\n2. two\n")
        write(root, "kernels/friction/lugre.hpp", "// " + DOC + " §3.2, kernels/core/dual.hpp\n"
                                                  '#include "../core/dual.hpp"\n')
        write(root, "kernels/core/dual.hpp", "// friction.md §3\n")
        write(root, "host/study/study.hpp", '#include "kernels/core/dual.hpp"\n#include "host/registry/models.hpp"\n')
        write(root, "host/registry/models.hpp", "// host/study/study.hpp reads it\n")
        write(root, "host/run/runner.cpp", '#include "host/study/study.hpp"\n#include "host/build_paths.hpp"\n')
        write(root, "host/build_paths.hpp", "\n")

    plants = {
        "names": ("host/results/dual.hpp", "// a second dual.hpp (in a folder named like bench/results)\n",
                  "file name dual.hpp"),
        "references": ("host/run/stale.cpp", "// " + DOC + " §4 and host/run/gone.hpp\n",
                       "friction.md §4"),
        "includes": ("host/study/reaches_up.cpp", '#include "host/run/runner.cpp"\n', "reaches up to run/"),
    }
    failures = []
    for which, (path, text, expected) in plants.items():
        with tempfile.TemporaryDirectory() as root:
            clean_tree(root)
            _, clean = CHECKS[which](root)
            if clean:
                failures.append(f"{which}: the clean tree fails: {clean}")
            write(root, path, text)
            _, planted = CHECKS[which](root)
            if not any(expected in p for p in planted):
                failures.append(f"{which}: the planted defect ({path}) was not reported; got {planted}")
            else:
                print(f"{which}: clean tree passes; planted {path} reported: "
                      + next(p for p in planted if expected in p))
    # A stale path in a comment, and kernels/ including host/, are reported too.
    with tempfile.TemporaryDirectory() as root:
        clean_tree(root)
        write(root, "kernels/core/bad.hpp", '// see host/run/gone.hpp\n#include "host/study/study.hpp"\n')
        _, refs = check_references(root)
        _, incs = check_includes(root)
        if not any("host/run/gone.hpp: no such file" in p for p in refs):
            failures.append(f"references: a stale path was not reported; got {refs}")
        if not any("kernels/ includes host/study/study.hpp" in p for p in incs):
            failures.append(f"includes: kernels/ including host/ was not reported; got {incs}")
    for f in failures:
        print("SELF-TEST FAILED:", f)
    print("self-test: " + ("ok" if not failures else f"{len(failures)} failure(s)"))
    return failures


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return 1 if self_test() else 0
    if len(argv) != 3 or argv[2] not in CHECKS:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 1 if run(argv[1], argv[2]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
