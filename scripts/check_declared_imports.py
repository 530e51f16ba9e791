#!/usr/bin/env python3
"""Package.swift says the truth about each target's dependencies.

For every Swift target of the package (from `swift package dump-package`), compares
the dependencies it declares with the modules its sources import, and fails on a
declared dependency no source of the target imports (a layer it does not use). Run
by `make lint`. A C target (no Swift sources) is not checked.

Usage: scripts/check_declared_imports.py [PACKAGE_DIRECTORY]
"""

import json
import os
import re
import subprocess
import sys

IMPORT = re.compile(
    r"^\s*(?:@[\w()\"., ]+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE,
)


def dependency_name(dependency):
    """The module a dependency entry names (byName, target or product)."""
    for kind in ("byName", "target", "product"):
        if kind in dependency:
            return dependency[kind][0]
    raise ValueError(f"unknown dependency kind: {dependency}")


def target_directory(root, target):
    if target.get("path"):
        return os.path.join(root, target["path"])
    folder = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(root, folder, target["name"])


def imported_modules(directory):
    modules = set()
    swift_files = 0
    for folder, _, files in os.walk(directory):
        for name in files:
            if name.endswith(".swift"):
                swift_files += 1
                with open(os.path.join(folder, name), encoding="utf-8") as source:
                    modules.update(IMPORT.findall(source.read()))
    return modules, swift_files


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    manifest = json.loads(
        subprocess.run(
            ["swift", "package", "--package-path", root, "dump-package"],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    problems = []
    for target in manifest["targets"]:
        if target["type"] == "system":
            continue
        imports, swift_files = imported_modules(target_directory(root, target))
        if swift_files == 0:
            continue
        for dependency in target.get("dependencies", []):
            name = dependency_name(dependency)
            if name not in imports:
                problems.append(f"{target['name']}: declares {name}, which none of its sources imports")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} declared dependencies never imported: remove them from Package.swift")
        return 1
    print(f"declared dependencies: every one imported ({len(manifest['targets'])} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
