#!/usr/bin/env bash
# Prints the folder of a client's own test suite, taken from its pinned PyPI source distribution
# (checked against its SHA-256) and kept next to the virtual environment. Exits 77 (skipped) with
# a message when PyPI cannot be reached.
# Usage: client_tests.sh cupy
set -euo pipefail
case "$1" in
cupy)
  name=cupy-14.2.0
  url=https://files.pythonhosted.org/packages/dc/10/059a92d40b161ea24607c9e41a75098812ca7021f2b565524f87beba15c9/cupy-14.2.0.tar.gz
  sha=cfed725e612178cfbdbf62f4a3a598b60edecbbca718c0d4580c21a16ae4a62c
  ;;
*)
  echo "usage: client_tests.sh cupy" >&2
  exit 2
  ;;
esac
root="${CUCPU_PYTHON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cucpu/python}"
dir="$root/$name-tests"
if [ -e "$dir/.complete" ]; then
  echo "$dir/tests"
  exit 0
fi
mkdir -p "$root"
exec 9>"$root/.lock-$name"
flock 9
if [ ! -e "$dir/.complete" ]; then
  tmp="$(mktemp -d "$root/.new-XXXXXX")"
  if ! python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
    "$url" "$tmp/sdist.tar.gz" 2>/dev/null; then
    rm -rf "$tmp"
    echo "python stage skipped: $name's source distribution could not be downloaded" >&2
    exit 77
  fi
  echo "$sha  $tmp/sdist.tar.gz" | sha256sum -c --quiet >&2
  tar -xzf "$tmp/sdist.tar.gz" -C "$tmp" "$name/tests"
  rm -rf "$dir"
  mv "$tmp/$name" "$dir"
  rm -rf "$tmp"
  touch "$dir/.complete"
fi
echo "$dir/tests"
