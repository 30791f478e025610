#!/usr/bin/env python3
"""Runs one case of hazard_cases under cucpu-sanitizer --tool racecheck and compares the report
with compute-sanitizer's on an H200 (tests/gpu/answers/sanitizer/racecheck.CASE.stdout): the
pairs of racing accesses (error or warning, kind and source line of each), the summary line, the program's output
and exit status. Not compared: hazard counts (compute-sanitizer counts bytes of some pairs,
cucpu conflicting accesses) and SASS offsets."""
import argparse
import re
import subprocess
import sys
from pathlib import Path


def parse(text):
    pairs, output, summary = set(), [], None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("========="):
            output.append(line)
        elif line.startswith("========= RACECHECK SUMMARY"):
            summary = line
        elif re.match(r"========= (Error|Warning): Race reported between", line):
            severity = line.split()[1].rstrip(":")
            first = re.search(r"between (\w+) access at .* in (\S+:\d+)", line)
            second = re.search(r"and (\w+) access at .* in (\S+:\d+)", lines[i + 1])
            pairs.add((severity, first.group(1), first.group(2), second.group(1),
                       second.group(2)))
    return pairs, output, summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sanitizer", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--answers", required=True)
    ap.add_argument("case")
    a = ap.parse_args()
    run = subprocess.run([a.sanitizer, "--tool", "racecheck", a.program, a.case],
                         capture_output=True, text=True, timeout=600)
    gpu = parse((Path(a.answers) / f"racecheck.{a.case}.stdout").read_text())
    mine = parse(run.stdout)
    problems = []
    for name, g, m in zip(("racing pairs", "program output", "summary"), gpu, mine):
        if g != m:
            problems.append(f"{name}: GPU {g}, cucpu {m}")
    gpu_rc = int((Path(a.answers) / f"racecheck.{a.case}.rc").read_text())
    if gpu_rc != run.returncode:
        problems.append(f"exit status: GPU {gpu_rc}, cucpu {run.returncode}")
    if problems:
        print(f"{a.case}: differs from compute-sanitizer on the H200")
        for p in problems:
            print("  " + p)
        print("cucpu-sanitizer's output:\n" + run.stdout + run.stderr)
        return 1
    print(f"{a.case}: same verdict as compute-sanitizer ({len(mine[0])} racing pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
