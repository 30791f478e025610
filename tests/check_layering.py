#!/usr/bin/env python3
"""The layering rule: each module includes only headers of the modules it may use."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")

# module folder -> include prefixes it may use (besides its own and the C/C++ standard library)
ALLOWED = {
    "src/support": {"fmt", "spdlog", "cucpu/support"},
    "ptx": {"cucpu/ptx", "cucpu/support"},
    "jit": {"cucpu/jit", "cucpu/ptx", "cucpu/devicelib", "cucpu/support", "kernel_abi.h", "llvm"},
    "src/devicelib": {"cucpu/devicelib", "kernel_abi.h"},
    "src/exec": {"cucpu/exec", "cucpu/support", "kernel_abi.h"},
    "src/driver": {"cucpu/driver", "cucpu/jit", "cucpu/exec", "cucpu/support", "kernel_abi.h",
                   "cuda.h"},
    "src/api": {"cucpu/driver", "cucpu/support", "cuda.h"},
    "src/rtc": {"cucpu/rtc", "cucpu/support"},
}
# Headers of the project that are not modules' (third-party or system) and are checked by name.
PROJECT = ("cucpu/", "kernel_abi.h", "cuda.h", "llvm/", "clang/", "fmt/", "spdlog/")

include_re = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
errors = []
for module, allowed in ALLOWED.items():
    for path in sorted((root / module).rglob("*")):
        if path.suffix not in {".h", ".hpp", ".cpp", ".cc", ".c"}:
            continue
        for inc in include_re.findall(path.read_text(errors="replace")):
            if not inc.startswith(PROJECT):
                continue  # standard library, module-local headers
            if not any(inc == a or inc.startswith(a.rstrip("/") + "/") or inc == a for a in allowed):
                errors.append(f"{path.relative_to(root)}: includes <{inc}>, not allowed in {module}")

for e in errors:
    print(e)
print(f"layering: {len(errors)} violation(s)")
sys.exit(1 if errors else 0)
