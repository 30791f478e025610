#!/usr/bin/env bash
# Prints the path of the python stage's virtual environment, creating it from requirements.lock
# on first use and keeping it between runs (CI builds a fresh clone every time). Exits 77 (the
# tests' "skipped") with a message when PyPI cannot be reached.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lock="$here/requirements.lock"
hash="$(cat "$lock" <(python3 --version 2>&1) | sha256sum | cut -c1-16)"
root="${CUCPU_PYTHON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cucpu/python}"
venv="$root/venv-$hash"
if [ -x "$venv/bin/python" ] && [ -e "$venv/.complete" ]; then
  echo "$venv"
  exit 0
fi
mkdir -p "$root"
exec 9>"$root/.lock"
flock 9 # one creator at a time (ctest runs the python tests in parallel)
if [ -x "$venv/bin/python" ] && [ -e "$venv/.complete" ]; then
  echo "$venv"
  exit 0
fi
tmp="$(mktemp -d "$root/.new-XXXXXX")"
python3 -m venv "$tmp" >&2
if ! "$tmp/bin/python" -m pip install -q --disable-pip-version-check -r "$lock" >&2; then
  rm -rf "$tmp"
  echo "python stage skipped: the pinned packages could not be installed from PyPI (no network?)" >&2
  exit 77
fi
rm -rf "$venv"
mv "$tmp" "$venv"
# A venv's scripts name its folder: recreate the launcher paths after the move.
sed -i "s|$tmp|$venv|g" "$venv"/bin/* 2>/dev/null || true
touch "$venv/.complete"
echo "$venv"
