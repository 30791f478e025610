#!/usr/bin/env python3
"""Builds and runs NVIDIA's CUDALibrarySamples for cuBLAS, cuBLASLt, cuFFT, cuSPARSE, cuSOLVER and
cuRAND, and prints one line per sample and a summary per library.

Each source file with a main() is a program, linked with the other sources of its folder that have
none; programs are built by nvcc with PTX only for their own kernels (compute_80) and linked with
every library. A sample passes when it exits with 0 within the time limit: the samples check every
call's status and their own results and exit non-zero on a failure.

  scripts/library_samples.py SAMPLES_DIR [--cucpu LIBDIR] [--out DIR] [--jobs N] [--only PATTERN]
                             [--baseline RESULTS.tsv]

SAMPLES_DIR is a checkout of github.com/NVIDIA/CUDALibrarySamples. With --cucpu the programs run
on cucpu (LIBDIR first on the loader path); without it they run on whatever driver the machine has,
which on a GPU machine gives the baseline. --out keeps each program's output (name.txt) and a
results.tsv there. --baseline takes a GPU run's results.tsv (tests/gpu/answers/library_samples.tsv:
an H200's) and counts, per library, how many of the samples that pass there pass here.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time

LIBRARIES = ["cuBLAS", "cuBLASLt", "cuFFT", "cuSPARSE", "cuSOLVER", "cuRAND"]
LINK = ["-lcublas", "-lcublasLt", "-lcufft", "-lcusparse", "-lcusolver", "-lcusolverMg", "-lcurand",
        "-lnvrtc", "-lcuda"]
SOURCES = (".cu", ".cpp", ".c")
MAIN = re.compile(r"\bint\s+main\s*\(")


def programs(root):
    """(library, name, folder, main source, other sources) for every sample program."""
    found = []
    for lib in LIBRARIES:
        for folder, _, files in sorted(os.walk(os.path.join(root, lib))):
            sources = sorted(f for f in files if f.endswith(SOURCES))
            if "CMakeLists.txt" not in files or not sources:
                continue
            text = {f: open(os.path.join(folder, f), errors="replace").read() for f in sources}
            mains = [f for f in sources if MAIN.search(text[f])]
            rest = [f for f in sources if f not in mains]
            for m in mains:
                rel = os.path.relpath(os.path.join(folder, os.path.splitext(m)[0]), root)
                found.append((lib, rel.replace("/", "."), folder, m, rest))
    return found


def includes(root, lib, folder):
    dirs = [folder, os.path.dirname(folder)]
    for extra in ("utils", "Common", "common"):
        dirs.append(os.path.join(root, lib, extra))
    return [f"-I{d}" for d in dirs if os.path.isdir(d)]


def build(root, bindir, driver, prog):
    """Some samples call the driver API: they link with `driver`'s libcuda.so (cucpu's, or the
    toolkit's stub on a GPU machine). C++ sources may hold kernels, so they are compiled as CUDA."""
    lib, name, folder, main, rest = prog
    exe = os.path.join(bindir, name)
    sources = [os.path.join(folder, f) for f in [main] + rest]
    language = ["-x", "cu"] if any(f.endswith(".cpp") for f in sources) else []
    cmd = (["nvcc", "-std=c++17", "-O2", "-w", "-gencode", "arch=compute_80,code=compute_80",
            "-o", exe] + includes(root, lib, folder) + language + sources + [f"-L{driver}"]
           + LINK)
    r = subprocess.run(cmd, capture_output=True, text=True)
    return exe if r.returncode == 0 else None, r.stderr[-2000:]


def run(exe, folder, env, limit):
    start = time.time()
    try:
        r = subprocess.run([exe], cwd=folder, env=env, capture_output=True, text=True,
                           timeout=limit)
        return r.returncode, r.stdout + r.stderr, time.time() - start
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else ""
        return "timeout", out, time.time() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("samples")
    ap.add_argument("--cucpu", help="cucpu's library folder (build/lib)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--baseline", default=None)
    a = ap.parse_args()
    root = os.path.abspath(a.samples)
    out = os.path.abspath(a.out or "library-samples")
    bindir = os.path.join(out, "bin")
    os.makedirs(bindir, exist_ok=True)
    progs = [p for p in programs(root) if a.only in p[1]]
    env = dict(os.environ)
    if a.cucpu:
        env["LD_LIBRARY_PATH"] = os.path.abspath(a.cucpu) + ":" + env.get("LD_LIBRARY_PATH", "")
    driver = os.path.abspath(a.cucpu) if a.cucpu else "/usr/local/cuda/lib64/stubs"
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        built = list(pool.map(lambda p: build(root, bindir, driver, p), progs))
    results = []
    for prog, (exe, err) in zip(progs, built):
        lib, name, folder = prog[:3]
        if not exe:
            results.append((lib, name, "build-failed", 0.0))
            open(os.path.join(out, name + ".txt"), "w").write(err)
            continue
        rc, text, secs = run(exe, folder, env, a.timeout)
        open(os.path.join(out, name + ".txt"), "w").write(text)
        verdict = "pass" if rc == 0 else f"fail({rc})"
        results.append((lib, name, verdict, secs))
        print(f"{verdict:14} {secs:7.1f}s  {name}", flush=True)
    with open(os.path.join(out, "results.tsv"), "w") as f:
        for lib, name, verdict, secs in results:
            f.write(f"{lib}\t{name}\t{verdict}\t{secs:.1f}\n")
    for lib in LIBRARIES:
        mine = [r for r in results if r[0] == lib]
        if mine:
            passed = sum(r[2] == "pass" for r in mine)
            unbuilt = sum(r[2] == "build-failed" for r in mine)
            print(f"{lib}: {passed} of {len(mine)} passed ({unbuilt} did not build)")
    if a.baseline:
        compare(results, a.baseline)
    return 0


def compare(results, baseline):
    gpu = {}
    for line in open(baseline):
        lib, name, verdict = line.split("\t")[:3]
        gpu[name] = (lib, verdict)
    here = {name: verdict for _, name, verdict, _ in results}
    total = matched = 0
    for lib in LIBRARIES:
        names = [n for n, (l, v) in gpu.items() if l == lib and v == "pass" and n in here]
        ok = [n for n in names if here[n] == "pass"]
        total, matched = total + len(names), matched + len(ok)
        if names:
            print(f"{lib}: {len(ok)} of the {len(names)} that pass on the GPU pass here")
        for n in sorted(set(names) - set(ok)):
            print(f"  {here[n]:14} {n}")
    if total:
        print(f"all: {matched} of {total} ({100.0 * matched / total:.0f}%)")


if __name__ == "__main__":
    sys.exit(main())
