#!/usr/bin/env python3
"""The registry's checks column: the generator refuses malformed checks and emits the listed
checks, in order, before the implementation (test api_registry_checks).

Usage: gen_checks_test.py GENERATOR
"""
import pathlib
import subprocess
import sys
import tempfile

HEADER = ("symbol\tapi\tversion\tstream\taliases\theader\tsection\ttier\tstatus\tchecks\tparams\n")


def row(checks, status="impl"):
    return (f"cuEventCreate\tcuEventCreate\t2000\t-\t-\tcuda.h\tEvents\tT0\t{status}\t{checks}\t"
            "CUevent *phEvent, unsigned int Flags\n")


def generate(generator, registry_text):
    with tempfile.TemporaryDirectory() as d:
        registry = pathlib.Path(d) / "registry.tsv"
        registry.write_text(HEADER + registry_text)
        run = subprocess.run([sys.executable, generator, str(registry), d], capture_output=True,
                             text=True)
        wrappers = pathlib.Path(d) / "entry_points.cpp"
        return run, wrappers.read_text() if wrappers.exists() else ""


def main():
    generator = sys.argv[1]
    failures = []
    for bad, why in [("out phEvnt", "names no parameter"), ("frobnicate phEvent", "bad check"),
                     ("flags Flags", "bad check"), ("ctx phEvent", "bad check")]:
        run, _ = generate(generator, row(bad))
        if run.returncode == 0 or why not in run.stderr:
            failures.append(f"'{bad}' was not refused with '{why}': {run.stderr.strip()}")
    run, _ = generate(generator, row("ctx", status="stub"))
    if run.returncode == 0 or "a stub has no checks" not in run.stderr:
        failures.append("a stub with checks was not refused")
    run, text = generate(generator, row("ctx, out phEvent, flags Flags 1|2"))
    expected = ["::cucpu::api::check::context()", '::cucpu::api::check::out(phEvent, "phEvent")',
                '::cucpu::api::check::flags(Flags, 1|2, "Flags")',
                "::cucpu::api::impl::cuEventCreate(phEvent, Flags)"]
    positions = [text.find(e) for e in expected]
    if run.returncode != 0 or -1 in positions or positions != sorted(positions):
        failures.append(f"checks not generated in order before the implementation: {positions}")
    for f in failures:
        print("FAIL", f)
    print(f"registry checks: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
