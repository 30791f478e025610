#!/usr/bin/env bash
# Builds and runs the tests under the sanitizers: ASan+UBSan (build-asan/) and TSan (build-tsan/,
# the thread pool, faults and launch tests). Usage: scripts/sanitize.sh [asan|tsan|all]
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
jobs="${JOBS:-2}"

if [ "$what" = asan ] || [ "$what" = all ]; then
  # Enum-typed parameters may carry any integer at the C ABI (cuGetErrorName(123456, ...)).
  flags="-fsanitize=address,undefined -fno-sanitize=enum -fno-omit-frame-pointer -O1"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
  cmake --build build-asan -j "$jobs"
  # Huge allocations must fail with CUDA_ERROR_OUT_OF_MEMORY, not abort. nvcc-built programs
  # (label runtime), the python stage, the cucpu-run test and the package consumers (built by
  # their own CMake projects) are not instrumented and cannot load an ASan libcuda: left out. So is the export-table probe, whose NVIDIA libraries keep
  # allocations LeakSanitizer reports (none of them cucpu's).
  ASAN_OPTIONS=allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan -j "$jobs" --output-on-failure -E 'abi_|tools.cucpu_run|rtc.cucpu_run|api_export_table_probe' \
      -LE 'runtime|python|package'
fi
if [ "$what" = tsan ] || [ "$what" = all ]; then
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-fsanitize=thread -O1" \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread
  cmake --build build-tsan -j "$jobs" --target exec_tests e2e_services_tests e2e_cooperative_tests
  # Jumping out of a signal handler confuses TSan: the fault tests run under ASan instead.
  TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan -j "$jobs" --output-on-failure \
    -R 'ThreadPool|BlockFibers|Services|Cooperative' -E 'ThreadPoolFaults|AFaultEnds'
  # nvcc-built multithreaded programs (from the normal build) on the TSan library. A stream's
  # executor lingers after its work and may still exist at exit: thread leaks are not reported.
  tsan="$(gcc -print-file-name=libtsan.so)"
  for p in threads_shared_context_static_default streams_callbacks_shared_default \
           reduction_events_shared_default textures_shared_default forward_progress \
           dynamic_parallelism; do
    [ -x "build/tests/runtime/$p" ] || continue
    out=$(TSAN_OPTIONS=halt_on_error=1:report_thread_leaks=0 \
          LD_PRELOAD="$tsan:$PWD/build-tsan/lib/libcuda.so.1" "build/tests/runtime/$p" 2>&1) || true
    echo "$out" | grep -q "^PASS" && ! echo "$out" | grep -q ThreadSanitizer \
      || { echo "$out"; echo "tsan: $p failed"; exit 1; }
    echo "tsan: $p clean"
  done
fi
