#!/usr/bin/env bash
# Records compute-sanitizer's verdicts on the planted-bug programs of tests/sanitizer: for each
# case, its output without a tool and under the tool it is for (stdout, stderr and exit status
# apart), in $1/sanitizer (default ./gpu-out/sanitizer). Needs a GPU, nvcc and compute-sanitizer.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-gpu-out}/sanitizer"
mkdir -p "$out"
cuda=/usr/local/cuda
sanitizer="$cuda/bin/compute-sanitizer"
nvcc="$cuda/bin/nvcc"
"$nvcc" -lineinfo -arch=sm_90 -o /tmp/memcheck_cases "$root/tests/sanitizer/memcheck_cases.cu"
"$nvcc" -lineinfo -arch=sm_90 -o /tmp/hazard_cases "$root/tests/sanitizer/hazard_cases.cu"
"$sanitizer" --version >"$out/version.txt" 2>&1
one() { # one TOOL PROGRAM CASE [OPTIONS...]
  local tool=$1 prog=$2 name=$3
  shift 3
  (cd /tmp && "./$prog" "$name") >"$out/plain.$name.stdout" 2>&1
  echo $? >"$out/plain.$name.rc"
  (cd /tmp && "$sanitizer" --tool "$tool" "$@" "./$prog" "$name") \
    >"$out/$tool.$name.stdout" 2>"$out/$tool.$name.stderr"
  echo $? >"$out/$tool.$name.rc"
}
for c in global_write_after_end global_read_before_start read_after_free null_write \
  host_heap_write misaligned_read shared_write_after_end shared_write_far local_write_far \
  heap_overrun vector_read_across_end atomic_after_end free_twice copy_past_end leak \
  ok_last_element ok_vector_at_end ok_shared_full ok_heap ok_spaces ok_mapped_host ok_managed; do
  one memcheck memcheck_cases "$c" --leak-check full
done
# Exit status and summary options.
(cd /tmp && "$sanitizer" --tool memcheck --error-exitcode 9 ./memcheck_cases global_write_after_end) \
  >"$out/memcheck.exitcode.stdout" 2>"$out/memcheck.exitcode.stderr"
echo $? >"$out/memcheck.exitcode.rc"
(cd /tmp && "$sanitizer" ./memcheck_cases leak) >"$out/memcheck.leak_default.stdout" 2>&1
for c in shared_read_after_write shared_write_after_read shared_write_after_write \
  ok_shared_ordered ok_shared_same_value ok_shared_atomics global_read_after_write \
  ok_warp_synced_exchange warp_unsynced_exchange; do
  one racecheck hazard_cases "$c"
done
for c in uninitialized_global_read ok_initialized_global_read uninitialized_shared_read; do
  one initcheck hazard_cases "$c"
done
for c in divergent_barrier bad_shuffle_mask ok_shuffle_mask; do
  one synccheck hazard_cases "$c"
done
# Python clients (numba-cuda, CuPy): run where they are installed, else skipped.
for c in numba_ok numba_oob cupy_ok cupy_oob; do
  (cd /tmp && timeout 300 "$sanitizer" --leak-check full python3 "$root/tests/sanitizer/python_cases.py" "$c") \
    >"$out/memcheck.python.$c.stdout" 2>"$out/memcheck.python.$c.stderr"
  echo $? >"$out/memcheck.python.$c.rc"
done
