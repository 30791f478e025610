#!/usr/bin/env python3
"""Compares record_libraries' output on cucpu with an H200's (tests/gpu/answers/libraries.txt).

A line must equal the GPU's, unless libraries_differences.txt lists its call:
  rounding  the status and the error class against the exact reference must equal the GPU's;
            the bits may differ (another kernel, or another order of the same sums)
  pending   cucpu does not give the GPU's answer yet, for the reason given
A listed call whose line has become equal to the GPU's fails too, so the list stays true.
Usage: compare_libraries.py ANSWERS DIFFERENCES OUTPUT
"""
import sys


def fields(line):
    words = line.split()
    return {k: v for k, v in zip(words, words[1:]) if k in ("status", "error", "hash")}


def main(answers, differences, output):
    listed = {}
    for line in open(differences):
        if line.strip() and not line.startswith("#"):
            name, kind, reason = (p.strip() for p in line.split("|", 2))
            listed[name] = (kind, reason)
    gpu = [l.rstrip("\n") for l in open(answers)]
    got = [l.rstrip("\n") for l in open(output)]
    problems, equal = [], 0
    if len(gpu) != len(got):
        problems.append(f"{len(got)} lines where the GPU printed {len(gpu)}")
    for want, have in zip(gpu, got):
        name = want.split()[0] if want.split() else ""
        kind, reason = listed.get(name, (None, None))
        if want == have:
            equal += 1
            if kind:
                problems.append(f"{name}: now equal to the GPU's, remove it from {differences}")
        elif kind == "rounding":
            w, h = fields(want), fields(have)
            if w.get("status") != h.get("status") or w.get("error") != h.get("error"):
                problems.append(f"{name}: GPU '{want}' / cucpu '{have}' (listed as rounding)")
        elif kind != "pending":
            problems.append(f"GPU   '{want}'\ncucpu '{have}'")
    for p in problems:
        print(p)
    print(f"{equal} of {len(gpu)} lines equal, {len(listed)} listed, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
