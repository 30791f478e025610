#!/usr/bin/env python3
"""Runs the misuse matrix (record_misuse) on cucpu and checks every case against an H200's answer.

Usage: compare_misuse.py ANSWERS DIFFERENCES RECORDER

A case passes when cucpu answers as the GPU did, or when the GPU crashed or hung there (cucpu must
still answer: a crash or hang of cucpu always fails), or when DIFFERENCES lists the case with the
answer cucpu gives, as `deliberate` (the reason is documented) or `pending` (not fixed yet). A
listed case that now matches the GPU fails too, so the list stays true. cucpu runs with
CUCPU_LOG=api=debug, and every failing call must log its reason (a line saying "no reason given"
fails the case). Prints one summary line.
"""
import os
import subprocess
import sys


def parse(text):
    cases = {}
    for line in text.splitlines():
        if line.strip():
            cases[line[:72].rstrip()] = line[73:].strip()
    return cases


def unexplained(log):
    """Failing calls logged without a reason, by case."""
    case, found = None, []
    for line in log.splitlines():
        if line.startswith("misuse case: "):
            case = line[len("misuse case: "):]
        elif "no reason given" in line:
            found.append(f"{case}: a failing call gives no reason: {line.strip()}")
    return found


def main():
    answers_path, differences_path, recorder = sys.argv[1:4]
    gpu = parse(open(answers_path).read())
    listed = {}
    for line in open(differences_path):
        if line.strip() and not line.startswith("#"):
            name, answer, kind, reason = line.rstrip("\n").split("\t")
            listed[name] = (answer, kind, reason)
    env = dict(os.environ, CUCPU_LOG="api=debug")
    run = subprocess.run([recorder], capture_output=True, text=True, timeout=300, env=env)
    mine = parse(run.stdout)
    counts = {"equal": 0, "gpu crashed": 0, "deliberate": 0, "pending": 0}
    failures = []
    for name, answer in gpu.items():
        got = mine.get(name)
        if got is None:
            failures.append(f"{name}: not run on cucpu")
        elif not got.lstrip("-").isdigit():
            failures.append(f"{name}: cucpu {got} (it must answer)")
        elif name in listed:
            want, kind, reason = listed[name]
            if got == answer:
                failures.append(f"{name}: now equal to the GPU's {answer}: remove it from the list")
            elif got != want:
                failures.append(f"{name}: cucpu {got}, listed as {want} ({kind}: {reason})")
            else:
                counts[kind] += 1
        elif got == answer:
            counts["equal"] += 1
        elif answer.startswith(("signal", "timeout")):
            counts["gpu crashed"] += 1
        else:
            failures.append(f"{name}: GPU {answer}, cucpu {got}")
    failures += [f"{name}: not recorded on the GPU" for name in mine if name not in gpu]
    failures += unexplained(run.stderr)
    for f in failures:
        print("FAIL", f)
    print(f"misuse matrix: {len(gpu)} cases, " + ", ".join(f"{v} {k}" for k, v in counts.items()) +
          f", {len(failures)} failed")
    return 1 if failures or run.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
