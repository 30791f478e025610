#!/usr/bin/env python3
"""Generates a run-time compiler front end's exports from its table (src/rtc/*_exports.tsv).

Outputs, for library SONAME and symbol prefix P:
  P_symbols.h    for the C++ side: `enum Symbol` (k_<name> = index), `kNames`, and the slots and
                 resolver the jumps use (the front end defines both)
  P_forward.S    an x86-64 jump for each `forward` symbol through cucpu_P_slots[index]; an empty
                 slot first asks cucpu_P_resolve(index) for NVIDIA's function, with every argument register
                 kept, so any signature forwards unchanged
  P.map          the version script: every symbol under the version node SONAME, as NVIDIA's
                 library defines them, and nothing else exported
"""
import pathlib
import sys

table, soname, prefix, out = sys.argv[1], sys.argv[2], sys.argv[3], pathlib.Path(sys.argv[4])
symbols = []
for line in pathlib.Path(table).read_text().splitlines():
    if not line.strip() or line.startswith("#"):
        continue
    name, how = line.split("\t")
    if how not in ("own", "forward"):
        sys.exit(f"{table}: {name}: 'how' must be own or forward, not {how!r}")
    symbols.append((name, how))

out.mkdir(parents=True, exist_ok=True)
hdr = [f"// Generated from {pathlib.Path(table).name} by gen_rtc_forwarders.py: the symbols of",
       f"// {soname}, by index, and what the generated jumps go through.",
       "#pragma once", "", "namespace {", "", "enum Symbol : unsigned {"]
hdr += [f"  k_{name} = {i}," for i, (name, _) in enumerate(symbols)]
hdr += ["  kSymbolCount", "};", "", "const char *const kNames[] = {"]
hdr += [f'    "{name}",' for name, _ in symbols]
hdr += ["};", "", "} // namespace", "", 'extern "C" {',
        f'__attribute__((visibility("hidden"))) extern void *cucpu_{prefix}_slots[kSymbolCount];',
        f'__attribute__((visibility("hidden"))) void *cucpu_{prefix}_resolve(unsigned index);', "}"]
(out / f"{prefix}_symbols.h").write_text("\n".join(hdr) + "\n")

asm = [f"# Generated from {pathlib.Path(table).name} by gen_rtc_forwarders.py.",
       "  .text"]
for i, (name, how) in enumerate(symbols):
    if how != "forward":
        continue
    asm += [f"  .globl {name}", f"  .type {name}, @function", f"{name}:",
            f"  movq cucpu_{prefix}_slots+{8 * i}(%rip), %r11", "  testq %r11, %r11", "  jz 1f",
            "  jmpq *%r11", f"1: movl ${i}, %r11d", f"  jmp cucpu_{prefix}_bind", f"  .size {name}, .-{name}"]
# The argument registers (and %al, the vector count of a variadic call) survive the lookup; the
# seven pushes and 128 bytes keep the stack 16-byte aligned at the call.
saves = ["%rdi", "%rsi", "%rdx", "%rcx", "%r8", "%r9", "%rax"]
asm += [f"  .type cucpu_{prefix}_bind, @function", f"cucpu_{prefix}_bind:"]
asm += [f"  pushq {r}" for r in saves]
asm += ["  subq $128, %rsp"] + [f"  movdqu %xmm{k}, {16 * k}(%rsp)" for k in range(8)]
asm += ["  movl %r11d, %edi", f"  call cucpu_{prefix}_resolve", "  movq %rax, %r11"]
asm += [f"  movdqu {16 * k}(%rsp), %xmm{k}" for k in range(8)] + ["  addq $128, %rsp"]
asm += [f"  popq {r}" for r in reversed(saves)]
asm += ["  jmpq *%r11", f"  .size cucpu_{prefix}_bind, .-cucpu_{prefix}_bind",
        '  .section .note.GNU-stack,"",@progbits']
(out / f"{prefix}_forward.S").write_text("\n".join(asm) + "\n")

names = "\n".join(f"    {name};" for name, _ in symbols)
(out / f"{prefix}.map").write_text(f"{soname} {{\n  global:\n{names}\n  local: *;\n}};\n")
