#!/usr/bin/env python3
"""Holds each RTL file list (rtl/<block>/<top>.f) to what a Verilator user expects of it.

    scripts/check_flists.py [--builds "TOP:PARAM=VALUE..."] LIST.f... [-- VERILATOR_ARGS...]

For each list:
- it is flat: one `--top-module NAME`, named as the file is, then files, each once, no `-f`
  (`-y DIR`, a folder Verilator searches for a vendor cell's lint-only ports, is allowed);
- `verilator --lint-only -Wall -f LIST` is clean as it stands (a user's first command);
- it names no file its top does not use: every module file is one Verilator elaborates under
  that top (`--xml-only`'s module files, with VERILATOR_ARGS: a board family's define and the
  cells it then needs) in its default build or in one of the other builds
  `--builds` names (make's LINT_PARAMS: a parameter that adds a block, as TSO=1 does), and
  every package is imported by a used file or by a used package. Verilator itself fails on a
  missing one.
Prints one line per problem and exits 1 if there is any.
"""

import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PKG_USE = re.compile(r"\b(\w+_pkg)\s*::|\bimport\s+(\w+_pkg)\b")


def read_list(path):
    """(top, files, problems) of a flat list."""
    top, files, problems = None, [], []
    for n, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if line.startswith("--top-module "):
            if top is not None:
                problems.append(f"{path}:{n}: a second --top-module")
            top = line.split(None, 1)[1].strip()
        elif line.startswith("-y ") and Path(line[3:].strip()).is_dir():
            continue
        elif line.startswith("-"):
            problems.append(f"{path}:{n}: {line}: a list holds files and its --top-module only")
        elif line in files:
            problems.append(f"{path}:{n}: {line} is named twice")
        else:
            files.append(line)
    if top is None:
        problems.append(f"{path}: no --top-module line")
    elif top != Path(path).stem:
        problems.append(f"{path}: --top-module {top}, but the list is named for {Path(path).stem}")
    return top, files, problems


def verilator(args, cwd):
    return subprocess.run(["verilator", *args], cwd=cwd, capture_output=True, text=True)


def used_module_files(path, extra, work):
    """The files of the modules Verilator elaborates under the list's top with `extra`."""
    xml = Path(work) / "flist.xml"
    run = verilator(["--xml-only", "--no-timing", *extra, "-f", path, "--xml-output", str(xml),
                     "-Mdir", work], ".")
    if run.returncode != 0:
        return None, run.stderr.strip()
    root = ET.parse(xml).getroot()
    ids = {f.get("id"): f.get("filename") for f in root.iter("file")}
    used = root.find("module_files")
    return {ids[f.get("id")] for f in used.iter("file")}, None


def used_packages(files):
    """Packages named (`pkg::`, `import pkg`) by the given files, followed through packages."""
    seen, todo = set(), list(files)
    while todo:
        text = Path(todo.pop()).read_text()
        text = re.sub(r"//.*", "", text)
        for m in PKG_USE.finditer(text):
            name = m.group(1) or m.group(2)
            if name not in seen:
                seen.add(name)
                todo.extend(str(p) for p in Path("rtl").rglob(f"{name}.sv"))
    return seen


def check(path, extra, builds):
    top, files, problems = read_list(path)
    if problems:
        return problems
    lint = verilator(["--lint-only", "-Wall", "-f", path], ".")
    if lint.returncode != 0:
        first = "\n    ".join(lint.stderr.strip().splitlines()[:6])
        return [f"{path}: `verilator --lint-only -Wall -f {path}` is not clean:\n    {first}"]
    modules = set()
    for build in [[]] + [["-G" + p] for t, p in builds if t == top]:
        with tempfile.TemporaryDirectory() as work:
            used, err = used_module_files(path, extra + build, work)
        if used is None:
            return [f"{path}: verilator --xml-only {' '.join(build)} failed: {err}"]
        modules |= used
    pkgs = used_packages(sorted(modules))
    for f in files:
        if f.endswith("_pkg.sv"):
            if Path(f).stem not in pkgs:
                problems.append(f"{path}: {f}: no file {top} uses imports this package")
        elif f not in modules:
            problems.append(f"{path}: {f}: {top} does not use a module of this file")
    return problems


def main(argv):
    builds = []
    if argv[:1] == ["--builds"]:
        builds = [tuple(b.split(":", 1)) for b in argv[1].split()]
        argv = argv[2:]
    if "--" in argv:
        cut = argv.index("--")
        lists, extra = argv[:cut], argv[cut + 1:]
    else:
        lists, extra = argv, []
    if not lists:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    # One Verilator per core: the lists are independent.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        found = pool.map(lambda path: check(path, extra, builds), lists)
    problems = [p for f in found for p in f]
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
