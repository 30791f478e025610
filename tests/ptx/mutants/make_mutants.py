#!/usr/bin/env python3
"""Makes the PTX mutation corpus: single-instruction mutants of the project's real PTX (nvcc's
output in tests/), each judged by NVIDIA's ptxas. Writes mutants.tsv (file, line, mutated line,
verdict, ptxas's first message); the test ptx_mutant_agreement compares cucpu's verdicts with it.
Usage: make_mutants.py [--count N] [--seed S] [--jobs J]"""
import argparse
import concurrent.futures
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parents[3]
here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(root / "scripts"))
from gen_ptx_table import split_top  # noqa: E402  (operands split at top-level commas)
PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")

TYPES = ("pred b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 bf16 bf16x2 tf32 f32 "
         "f64").split()
# Mutation kinds and how often each is drawn: the ones that often stay valid are drawn more, so
# the corpus tests false rejections as well as false acceptances.
KINDS = {"drop_mod": 3, "add_mod": 3, "replace_mod": 3, "swap_mods": 2, "type": 4, "opcode": 1,
         "reg": 2, "imm": 2, "drop_operand": 1, "dup_operand": 1, "sreg": 1, "vector": 1}
INSTR = re.compile(r"^(\s*)(@!?%\w+\s+)?([a-z][\w.:]*)(\s+(.*?))?\s*;\s*$")


def sources():
    files = sorted(p for p in root.glob("tests/**/*.ptx") if "mutants" not in p.parts)
    files = [p for p in files if ".version" in p.read_text(errors="replace")[:4000]]
    return [p for p in files if judge(p.read_text())[0] == "ok"]


def functions(lines):
    """(first, last) line indices of each function with a body."""
    out, depth, start, i = [], 0, None, 0
    for i, line in enumerate(lines):
        code = line.split("//")[0]
        if depth == 0 and start is None and re.search(r"\.(entry|func)\b", code):
            start = i
        if start is not None and depth == 0 and code.rstrip().endswith(";") and "{" not in code:
            if not any("{" in l.split("//")[0] for l in lines[start:i + 1]):
                start = None  # a declaration
                continue
        depth += code.count("{") - code.count("}")
        if start is not None and depth == 0 and "}" in code:
            out.append((start, i))
            start = None
    return out


def registers(lines, first, last):
    regs = {}
    for line in lines[first:last + 1]:
        m = re.match(r"\s*\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+(%\w+)(?:<(\d+)>)?", line)
        if m:
            name = m.group(2) + ("1" if m.group(3) else "")
            regs.setdefault(m.group(1), []).append(name)
    return regs


def mutate(rng, line, pools, regs):
    m = INSTR.match(line)
    indent, guard, opcode, ops = m.group(1), m.group(2) or "", m.group(3), m.group(5) or ""
    parts = opcode.split(".")
    operands = split_top(ops)
    kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
    if kind == "drop_mod" and len(parts) > 1:
        del parts[rng.randrange(1, len(parts))]
    elif kind == "add_mod":
        parts.insert(rng.randrange(1, len(parts) + 1), rng.choice(pools["mods"]))
    elif kind == "replace_mod" and len(parts) > 1:
        parts[rng.randrange(1, len(parts))] = rng.choice(pools["mods"])
    elif kind == "swap_mods" and len(parts) > 2:
        i = rng.randrange(1, len(parts) - 1)
        parts[i], parts[i + 1] = parts[i + 1], parts[i]
    elif kind == "type":
        idx = [i for i, p in enumerate(parts) if p in TYPES]
        if not idx:
            return None
        parts[rng.choice(idx)] = rng.choice(TYPES)
    elif kind == "opcode":
        parts[0] = rng.choice(pools["opcodes"])
    elif kind == "reg" and operands and regs:
        i = rng.randrange(len(operands))
        if not operands[i].startswith("%") and not operands[i].startswith("!%"):
            return None
        operands[i] = rng.choice(regs[rng.choice(sorted(regs))])
    elif kind == "imm" and operands:
        operands[rng.randrange(len(operands))] = rng.choice(["3", "-1", "0f3F800000", "0x7680",
                                                             "0d3FF0000000000000"])
    elif kind == "drop_operand" and operands:
        del operands[rng.randrange(len(operands))]
    elif kind == "dup_operand" and operands:
        operands.insert(rng.randrange(len(operands) + 1), rng.choice(operands))
    elif kind == "sreg" and operands:
        operands[rng.randrange(len(operands))] = rng.choice(["%tid.x", "%laneid", "%clock64",
                                                             "%ctaid.y", "%warpid"])
    elif kind == "vector" and operands:
        i = rng.randrange(len(operands))
        operands[i] = "{" + ", ".join([operands[i]] * rng.choice([2, 4])) + "}"
    else:
        return None
    out = f"{indent}{guard}{'.'.join(parts)}"
    if operands:
        out += " " + ", ".join(operands)
    out = out + ";"
    return kind, out if out.strip() != line.strip() else None


def mutant_text(lines, fns, fn, lineno, new):
    """The file with `new` at `lineno`, keeping module scope, every .func and the one function."""
    keep = []
    inside = {i for (a, b) in fns for i in range(a, b + 1)}
    for i, line in enumerate(lines):
        if i in inside:
            a, b = next((a, b) for (a, b) in fns if a <= i <= b)
            if (a, b) != fn and ".entry" in "".join(lines[a:a + 2]):
                continue
        keep.append(new if i == lineno else line)
    return "\n".join(keep) + "\n"


def target_of(text):
    m = re.search(r"^\s*\.target\s+(sm_\d+[af]?)", text, re.M)
    t = m.group(1) if m else "sm_75"
    return t if int(re.sub(r"\D", "", t)) > 90 else "sm_90"


def judge(text):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([PTXAS, f"-arch={target_of(text)}", f.name, "-o", os.devnull],
                           capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(f.name)
    msgs = [l for l in r.stderr.splitlines() if "error" in l]
    msg = re.sub(r"^ptxas [^,]*, line \d+; ", "", msgs[0]) if msgs else ""
    return ("ok" if r.returncode == 0 else "error"), msg.replace("\t", " ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    args = ap.parse_args()
    rng = random.Random(args.seed)
    files = sources()
    loaded, pools = [], {"mods": set(), "opcodes": set()}
    for p in files:
        lines = p.read_text().split("\n")
        fns = functions(lines)
        sites = []
        for fn in fns:
            for i in range(fn[0], fn[1] + 1):
                m = INSTR.match(lines[i])
                if m and not m.group(3).startswith(".") and lines[i].count(";") == 1:
                    sites.append((fn, i))
                    parts = m.group(3).split(".")
                    pools["opcodes"].add(parts[0])
                    pools["mods"].update(parts[1:])
        if sites:
            loaded.append((p, lines, fns, sites))
    pools = {k: sorted(v) for k, v in pools.items()}
    jobs = []
    while len(jobs) < args.count:
        p, lines, fns, sites = rng.choice(loaded)
        fn, i = rng.choice(sites)
        r = mutate(rng, lines[i], pools, registers(lines, *fn))
        if not r or not r[1]:
            continue
        jobs.append((p, lines, fns, fn, i, r[0], r[1]))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        verdicts = list(ex.map(lambda j: judge(mutant_text(j[1], j[2], j[3], j[4], j[6])), jobs))
    with open(here / "mutants.tsv", "w") as out:
        out.write("# file\tline\tkind\tmutated line\tptxas\tptxas message\n")
        for (p, _, _, _, i, kind, new), (v, msg) in zip(jobs, verdicts):
            out.write(f"{p.relative_to(root)}\t{i + 1}\t{kind}\t{new.strip().replace(chr(9), chr(32))}\t{v}\t{msg}\n")
    ok = sum(v == "ok" for v, _ in verdicts)
    print(f"{len(jobs)} mutants: {ok} accepted by ptxas, {len(jobs) - ok} rejected")


if __name__ == "__main__":
    main()
