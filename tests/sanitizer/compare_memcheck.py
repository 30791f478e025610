#!/usr/bin/env python3
"""Runs one planted-bug case of memcheck_cases under cucpu-sanitizer and compares the report with
compute-sanitizer's on an H200 (tests/gpu/answers/sanitizer/memcheck.CASE.stdout).

Compared: the program's own output; each kind of invalid access (kind, size, source line,
function where no inlined frame names another, thread and block of the first, out of bounds or
misaligned, and where it lies: inside, before or after the nearest allocation and that
allocation's size, the distance too when it is a few bytes, or in the device heap); the codes of
failing API calls; the sizes of leaked allocations and the leak summary; the exit status.
Not compared: addresses, host frames, SASS offsets, the names of API calls (compute-sanitizer
names the runtime's calls, cucpu the driver's) and how many lanes of one instruction are
reported (the GPU reports each faulting lane of the warp, cucpu the first thread).

cucpu also reports accesses compute-sanitizer misses; those cases are listed in BEYOND_GPU with
the report and program output expected instead.
"""
from collections import Counter
import re
import subprocess
import sys
from pathlib import Path

from verdict import arguments, exit_status, verdict

# Accesses the H200's memcheck does not report and cucpu does: case -> what cucpu must say
# instead (the first invalid access, the program's output, the leaks the failed frees leave).
BEYOND_GPU = {
    # A local array indexed 2^24 elements out: the GPU's local window wraps round, unchecked.
    "local_write_far": {
        "error": {"header": "Invalid __local__ write of size 4 bytes", "function": "localIndex",
                  "place": "memcheck_cases.cu:30", "thread": "by thread (0,0,0) in block (0,0,0)",
                  "status": "out of bounds", "where": None, "frame": None},
        "output": ["local_write_far: launch cudaSuccess, synchronize cudaErrorLaunchFailure"],
        "api": [719],
        "leaks": [128, 256],
        "leak_summary": "LEAK SUMMARY: 384 bytes leaked in 2 allocations"},
}
NEAR = 16  # distances up to this many bytes are compared exactly; beyond, layouts differ


def parse(text):
    errors, api, leaks, output, leak_summary = [], [], [], [], None
    current = None
    for line in text.splitlines():
        if not line.startswith("========="):
            output.append(line)
            continue
        body = line[len("========= "):]
        if body.startswith("Invalid "):
            current = {"header": body, "function": None, "place": None, "thread": None,
                       "status": None, "where": None, "frame": None}
            errors.append(current)
            continue
        if body.strip() == "" or not body.startswith("    "):
            current = None
        m = re.match(r"Program hit \S+ \(error (\d+)\)", body)
        if m:
            api.append(int(m.group(1)))
        m = re.match(r"Leaked ([\d,]+) bytes", body)
        if m:
            leaks.append(int(m.group(1).replace(",", "")))
        if body.startswith("LEAK SUMMARY"):
            leak_summary = body
        if current is None:
            continue
        b = body.strip()
        if b.startswith("at "):
            # The name up to its template, ABI tags or parameters (numba's ABI tags and hashes
            # differ between versions); the source place when the line ends with one.
            current["function"] = re.match(r"at ([^(\[<+ ]*)", b).group(1)
            place = re.search(r" in (\S+:\d+)(?: \(PTX line \d+\))?$", b)
            current["place"] = place.group(1) if place else None
        elif b.startswith("by thread"):
            current["thread"] = b
        elif b.startswith("Access to"):
            current["status"] = "misaligned" if b.endswith("misaligned") else "out of bounds"
        elif b.startswith("and is located in the device heap"):
            current["where"] = ("device heap",)
        elif b.startswith("and is inside the nearest allocation"):
            size = re.search(r"of size ([\d,]+) bytes", b).group(1).replace(",", "")
            current["where"] = ("inside", int(size))
        elif b.startswith("and is "):
            m = re.match(r"and is ([\d,]+) bytes (after|before) the nearest allocation at \S+ "
                         r"of size ([\d,]+) bytes", b)
            distance = int(m.group(1).replace(",", ""))
            current["where"] = (m.group(2), int(m.group(3).replace(",", "")), distance)
        elif b.startswith("Device Frame:"):
            current["frame"] = re.search(r" in (\S+:\d+)", b).group(1)
    return errors, api, leaks, output, leak_summary


def key(e):
    return (e["header"], e["place"])


def same_error(gpu, mine):
    diffs = []
    for field in ("header", "place", "thread", "status", "frame"):
        if gpu.get(field) != mine.get(field):
            diffs.append(f"{field}: GPU {gpu.get(field)!r}, cucpu {mine.get(field)!r}")
    if gpu.get("frame") is None and gpu["function"] != mine["function"]:
        diffs.append(f"function: GPU {gpu['function']!r}, cucpu {mine['function']!r}")
    g, m = gpu["where"], mine["where"]
    if g and len(g) == 3 and m and len(m) == 3 and g[2] > NEAR:
        g, m = g[:2], m[:2]
    if g != m:
        diffs.append(f"where: GPU {g}, cucpu {m}")
    return diffs


def main():
    a = arguments(lambda ap: ap.add_argument(
        "--python", help="the Python that runs --program python_cases.py"))
    prefix = "memcheck.python." if a.python else "memcheck."
    answer = Path(a.answers) / f"{prefix}{a.case}.stdout"
    # As tests/gpu/record_sanitizer.sh ran them: two cases check options, the others leaks too.
    name, options = a.case, ["--leak-check", "full"]
    if a.case == "exitcode":
        name, options = "global_write_after_end", ["--error-exitcode", "9"]
    elif a.case == "leak_default":
        name, options = "leak", []
    program = [a.python, a.program] if a.python else [a.program]
    run = subprocess.run([a.sanitizer, *options, *program, name], capture_output=True,
                         text=True, timeout=600)
    gpu = parse(answer.read_text())
    mine = parse(run.stdout)
    problems = []
    g_errors, g_api, g_leaks, g_output, g_leak_summary = gpu
    m_errors, m_api, m_leaks, m_output, m_leak_summary = mine
    if a.case in BEYOND_GPU:
        beyond = BEYOND_GPU[a.case]
        if g_errors:
            problems.append("the GPU now reports this case: move it out of BEYOND_GPU")
        g_errors, g_output, g_api = [beyond["error"]], beyond["output"], beyond["api"]
        g_leaks, g_leak_summary = beyond["leaks"], beyond["leak_summary"]
    if g_output != m_output:
        problems.append(f"program output: GPU {g_output}, cucpu {m_output}")
    if bool(g_errors) != bool(m_errors):
        problems.append(f"invalid accesses: GPU {len(g_errors)}, cucpu {len(m_errors)}")
    elif g_errors:
        problems += same_error(g_errors[0], m_errors[0])
        if sorted(set(map(key, g_errors))) != sorted(set(map(key, m_errors))):
            problems.append(f"kinds of access: GPU {sorted(set(map(key, g_errors)))}, "
                            f"cucpu {sorted(set(map(key, m_errors)))}")
    if sorted(set(g_api)) != sorted(set(m_api)):
        problems.append(f"failing API calls: GPU codes {sorted(set(g_api))}, cucpu "
                        f"{sorted(set(m_api))}")
    if a.python:  # libraries keep device-dependent caches (CuPy's): no leak the GPU lacks
        leaks_differ = bool(Counter(m_leaks) - Counter(g_leaks))
    else:
        leaks_differ = sorted(g_leaks) != sorted(m_leaks) or g_leak_summary != m_leak_summary
    if leaks_differ:
        problems.append(f"leaks: GPU {sorted(g_leaks)} ({g_leak_summary}), cucpu "
                        f"{sorted(m_leaks)} ({m_leak_summary})")
    exit_status(Path(a.answers) / f"{prefix}{a.case}", run, problems)
    return verdict(a.case, problems, run,
                   f"{len(m_errors)} invalid accesses, {len(m_leaks)} leaks")


if __name__ == "__main__":
    sys.exit(main())
