"""cucpu: the CUDA driver API on the CPU. Tells where the installed library, tools and CMake
package are, so that programs can be pointed at them:

    LD_LIBRARY_PATH=$(python -m cucpu --libdir) ./app     or     cucpu-run ./app
"""

from pathlib import Path

_ROOT = Path(__file__).resolve().parent


def libdir() -> str:
    """The folder holding cucpu's libcuda.so.1 (and its NVRTC/nvJitLink front ends)."""
    return str(_ROOT / "lib" / "cucpu")


def bindir() -> str:
    """The folder holding cucpu-run, cucpu-devicequery and cucpu-ptx."""
    return str(_ROOT / "bin")


def cmake_dir() -> str:
    """The CMake package folder: -Dcucpu_DIR=<this> for find_package(cucpu)."""
    return str(_ROOT / "lib" / "cmake" / "cucpu")


def include_dir() -> str:
    """The folder holding cucpu's cuda.h."""
    return str(_ROOT / "include" / "cucpu")
