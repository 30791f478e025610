#!/usr/bin/env python3
"""Runs the RUN lines of one FileCheck test (tests/lit/*.ll): `cucpu-opt` and `FileCheck` are
replaced by the given programs, %s by the test's path. Exit 77 (skipped) without FileCheck.
Usage: run_lit.py TEST CUCPU_OPT FILECHECK"""
import re
import shutil
import subprocess
import sys


def main():
    test, opt, filecheck = sys.argv[1:4]
    if not shutil.which(filecheck):
        print(f"FileCheck not found ({filecheck}): skipped")
        return 77
    runs = [m.group(1) for m in re.finditer(r"^;\s*RUN:\s*(.*)$", open(test).read(), re.M)]
    if not runs:
        print(f"{test}: no RUN line")
        return 1
    for run in runs:
        cmd = re.sub(r"\bcucpu-opt\b", opt, run)
        cmd = re.sub(r"\bFileCheck\b", filecheck, cmd).replace("%s", test)
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd])
        if r.returncode != 0:
            print(f"FAILED: {cmd}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
