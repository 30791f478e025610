#!/usr/bin/env python3
"""libcuda.so.1 exports exactly the registry's entry points, and every name of NVIDIA's stub.

Usage: check_exports.py LIBCUDA REGISTRY [STUB_LIBCUDA]
"""
import subprocess
import sys


def exports(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main():
    ours = exports(sys.argv[1])
    lines = [l for l in open(sys.argv[2]) if not l.startswith("#")][1:]
    registry = {l.split("\t")[0] for l in lines if l.strip()}
    errors = [f"not exported: {s}" for s in sorted(registry - ours)]
    errors += [f"exported but not in the registry: {s}" for s in sorted(ours - registry)]
    if len(sys.argv) > 3:
        stub = exports(sys.argv[3])
        errors += [f"NVIDIA's stub exports {s}, we do not" for s in sorted(stub - ours)]
        print(f"stub: {len(stub)} names")
    for e in errors:
        print(e)
    print(f"exports: {len(ours)} symbols, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
