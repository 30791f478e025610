"""python -m cucpu --libdir | --bindir | --cmake-dir | --include-dir: prints that folder."""

import argparse

import cucpu


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m cucpu", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--libdir", action="store_true", help="libcuda.so.1's folder")
    group.add_argument("--bindir", action="store_true", help="the tools' folder")
    group.add_argument("--cmake-dir", action="store_true", help="the CMake package (cucpu_DIR)")
    group.add_argument("--include-dir", action="store_true", help="cuda.h's folder")
    args = parser.parse_args()
    if args.libdir:
        print(cucpu.libdir())
    elif args.bindir:
        print(cucpu.bindir())
    elif args.cmake_dir:
        print(cucpu.cmake_dir())
    else:
        print(cucpu.include_dir())


if __name__ == "__main__":
    main()
