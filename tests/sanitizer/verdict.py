"""What compare_memcheck.py and compare_racecheck.py share: their command line, the exit-status
check against the GPU's recording, and how a verdict is printed."""
import argparse
from pathlib import Path


def arguments(extra=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sanitizer", required=True, help="build/bin/cucpu-sanitizer")
    ap.add_argument("--program", required=True)
    ap.add_argument("--answers", required=True, help="tests/gpu/answers/sanitizer")
    if extra:
        extra(ap)
    ap.add_argument("case")
    return ap.parse_args()


def exit_status(answer_stem, run, problems):
    """Compares the exit status with the GPU's (`STEM.rc`; absent: 0)."""
    rc_file = Path(str(answer_stem) + ".rc")
    gpu = int(rc_file.read_text()) if rc_file.exists() else 0
    if gpu != run.returncode:
        problems.append(f"exit status: GPU {gpu}, cucpu {run.returncode}")


def verdict(case, problems, run, agreed):
    """Prints the differences and cucpu's output, or `agreed`; the process's exit status."""
    if problems:
        print(f"{case}: differs from compute-sanitizer on the H200")
        for p in problems:
            print("  " + p)
        print("cucpu-sanitizer's output:\n" + run.stdout + run.stderr)
        return 1
    print(f"{case}: same verdict as compute-sanitizer ({agreed})")
    return 0
