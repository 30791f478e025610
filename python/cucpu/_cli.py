"""The wheel's console scripts: each runs the tool of the same name installed in the package."""

import os
import sys

import cucpu


def _exec(tool: str) -> None:
    path = os.path.join(cucpu.bindir(), tool)
    os.execv(path, [path] + sys.argv[1:])


def run() -> None:
    _exec("cucpu-run")


def devicequery() -> None:
    _exec("cucpu-devicequery")


def ptx() -> None:
    _exec("cucpu-ptx")
