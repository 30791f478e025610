#!/usr/bin/env bash
# Regenerates each committed .ptx under samples/, tests/ and bench/ from the .cu beside it (nvcc).
#
# Usage: scripts/regen-ptx.sh [--check]
#   --check   regenerate into a temporary file and only report (exit 1) .ptx files that differ.
# NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc) selects the compiler. Without nvcc
# the script says so and exits 0, leaving the committed PTX alone. Files are only rewritten when
# their content changes, so running it twice is a no-op.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ARCH="compute_75"
CHECK=0

for arg in "$@"; do
  case "$arg" in
    --check) CHECK=1 ;;
    -h | --help)
      sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "regen-ptx: unknown argument: $arg" >&2
      exit 2
      ;;
  esac
done

NVCC="${NVCC:-}"
if [[ -z "$NVCC" ]]; then
  if command -v nvcc > /dev/null 2>&1; then
    NVCC="$(command -v nvcc)"
  elif [[ -x /usr/local/cuda/bin/nvcc ]]; then
    NVCC=/usr/local/cuda/bin/nvcc
  fi
fi
if [[ -z "$NVCC" ]] || ! command -v "$NVCC" > /dev/null 2>&1; then
  echo "regen-ptx: nvcc not found; committed .ptx files left unchanged"
  exit 0
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# Every .cu file under samples/, tests/ and bench/ that has a committed .ptx of the same name
# beside it, plus every kernel source named *_kernel.cu (so that a new sample gets its .ptx on
# first run).
mapfile -t SOURCES < <(
  cd "$ROOT"
  for dir in samples tests bench; do
    # (tests/conformance and tests/unit/driver/data have their own generators, make_ptx.sh and
    # regen.sh: the latter's fatbin_kernel.cu becomes fat binaries, not PTX)
    [[ -d "$dir" ]] && find "$dir" \( -path tests/conformance -o -path tests/unit/driver/data \) \
      -prune -o -type f -name '*.cu' -print
  done | sort
)

status=0
built=0
updated=0
for src in "${SOURCES[@]}"; do
  ptx="${src%.cu}.ptx"
  if [[ ! -f "$ROOT/$ptx" && "$src" != *_kernel.cu ]]; then
    continue
  fi
  built=$((built + 1))
  out="$TMP/out.ptx"
  # Run from the source's directory with a relative name, so that no absolute path of this
  # checkout ends up in the output.
  # A source may ask for extra flags with a line "// nvcc-flags: ..." (e.g. -rdc=true).
  flags="$(sed -n 's|^// nvcc-flags: ||p' "$ROOT/$src" | head -n 1)"
  # ... and another virtual architecture with "// nvcc-arch: compute_80" (redux.sync needs it).
  arch="$(sed -n 's|^// nvcc-arch: ||p' "$ROOT/$src" | head -n 1)"
  arch="${arch:-$ARCH}"
  # shellcheck disable=SC2086
  (cd "$ROOT/$(dirname "$src")" && "$NVCC" -ptx -arch="$arch" $flags -o "$out" "$(basename "$src")")
  if [[ -f "$ROOT/$ptx" ]] && cmp -s "$out" "$ROOT/$ptx"; then
    echo "up to date: $ptx"
  elif [[ $CHECK -eq 1 ]]; then
    echo "stale:      $ptx"
    status=1
  else
    cp "$out" "$ROOT/$ptx"
    echo "updated:    $ptx"
    updated=$((updated + 1))
  fi
done

if [[ $CHECK -eq 0 ]]; then
  echo "regen-ptx: $built kernel source(s), $updated updated ($("$NVCC" --version | tail -1))"
fi
exit $status
