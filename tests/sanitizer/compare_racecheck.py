#!/usr/bin/env python3
"""Runs one case of hazard_cases under cucpu-sanitizer --tool racecheck and compares the report
with compute-sanitizer's on an H200 (tests/gpu/answers/sanitizer/racecheck.CASE.stdout): the
pairs of racing accesses (error or warning, kind and source line of each), the summary line, the program's output
and exit status. Not compared: hazard counts (compute-sanitizer counts bytes of some pairs,
cucpu conflicting accesses) and SASS offsets."""
import re
import subprocess
import sys
from pathlib import Path

from verdict import arguments, exit_status, verdict


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
    a = arguments()
    run = subprocess.run([a.sanitizer, "--tool", "racecheck", a.program, a.case],
                         capture_output=True, text=True, timeout=600)
    stem = Path(a.answers) / f"racecheck.{a.case}"
    gpu = parse(Path(f"{stem}.stdout").read_text())
    mine = parse(run.stdout)
    problems = []
    for name, g, m in zip(("racing pairs", "program output", "summary"), gpu, mine):
        if g != m:
            problems.append(f"{name}: GPU {g}, cucpu {m}")
    exit_status(stem, run, problems)
    return verdict(a.case, problems, run, f"{len(mine[0])} racing pairs")


if __name__ == "__main__":
    sys.exit(main())
