#!/usr/bin/env bash
# Runs the recorders of this folder on a machine with an NVIDIA GPU and its driver, writing the
# GPU's outputs under $1 (default: ./gpu-out). Needs nvcc/g++ and /usr/local/cuda.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-gpu-out}"
mkdir -p "$out/warp" "$out/lockstep"
cxx="g++ -std=c++17 -O1 -I/usr/local/cuda/include"
lib="-L/usr/local/cuda/lib64/stubs -lcuda"
$cxx "$root/tests/gpu/record_outputs.cpp" -o /tmp/record_outputs $lib
$cxx "$root/tests/gpu/record_services.cpp" -o /tmp/record_services $lib
$cxx "$root/tests/gpu/record_errors.cpp" -o /tmp/record_errors $lib
$cxx "$root/tests/gpu/record_streams.cpp" -o /tmp/record_streams $lib
$cxx "$root/tests/gpu/record_stack.cpp" -o /tmp/record_stack $lib
$cxx "$root/tests/gpu/record_events.cpp" -o /tmp/record_events $lib
$cxx -Wno-deprecated-declarations "$root/tests/gpu/record_more_errors.cpp" -o /tmp/record_more_errors $lib
$cxx "$root/tests/gpu/record_old_abi.cpp" -o /tmp/record_old_abi $lib -ldl
$cxx "$root/tests/gpu/record_sticky.cpp" -o /tmp/record_sticky $lib
$cxx "$root/tests/gpu/record_arrays.cpp" -o /tmp/record_arrays $lib
$cxx -Wno-deprecated-declarations "$root/tests/gpu/record_python_stack.cpp" -o /tmp/record_python_stack $lib
$cxx "$root/tests/gpu/record_launch_ex.cpp" -o /tmp/record_launch_ex $lib
$cxx "$root/tests/gpu/record_free_sync.cpp" -o /tmp/record_free_sync $lib
$cxx "$root/tests/gpu/record_arena.cpp" -o /tmp/record_arena $lib
$cxx "$root/tests/gpu/record_vmm.cpp" -o /tmp/record_vmm $lib
$cxx "$root/tests/gpu/record_pools.cpp" -o /tmp/record_pools $lib
$cxx "$root/tests/gpu/record_hostile_ptx.cpp" -o /tmp/record_hostile_ptx $lib
$cxx "$root/tests/gpu/record_stream_memops.cpp" -o /tmp/record_stream_memops $lib
$cxx "$root/tests/gpu/record_legacy_stream.cpp" -o /tmp/record_legacy_stream $lib -pthread
$cxx "$root/tests/gpu/record_graphs.cpp" -o /tmp/record_graphs $lib -pthread
$cxx "$root/tests/gpu/record_ctx_events.cpp" -o /tmp/record_ctx_events $lib
$cxx "$root/tests/gpu/record_memcpy_batch.cpp" -o /tmp/record_memcpy_batch $lib
$cxx "$root/tests/gpu/record_ipc.cpp" -o /tmp/record_ipc $lib
$cxx -Wno-deprecated-declarations "$root/tests/gpu/record_old_launch.cpp" -o /tmp/record_old_launch $lib
$cxx "$root/tests/gpu/record_green_ctx.cpp" -o /tmp/record_green_ctx $lib
$cxx "$root/tests/gpu/record_pool_ipc.cpp" -o /tmp/record_pool_ipc $lib
$cxx "$root/tests/gpu/record_ptx_limits.cpp" -o /tmp/record_ptx_limits $lib
$cxx "$root/tests/gpu/record_misuse.cpp" -o /tmp/record_misuse $lib
$cxx "$root/tests/gpu/record_error_strings.cpp" -o /tmp/record_error_strings $lib
$cxx "$root/tests/gpu/record_exit_handler.cpp" -o /tmp/record_exit_handler $lib
$cxx "$root/tests/gpu/record_logs.cpp" -o /tmp/record_logs $lib
$cxx "$root/tests/gpu/record_compression.cpp" -o /tmp/record_compression $lib
$cxx "$root/tests/gpu/record_location_pools.cpp" -o /tmp/record_location_pools $lib
$cxx "$root/tests/gpu/record_batch_prefetch.cpp" -o /tmp/record_batch_prefetch $lib
# (output bytes: kN = 256 threads of 4-byte values)
/tmp/record_outputs "$root/tests/unit/jit/warp_kernels.ptx" "$out/warp" shflDownSum:32 \
  shflXorAll:1024 shflUpScan:1024 shflIdxWidth8:1024 votes:1024 matchAny:1024 reduxOps:3072 \
  divergentActiveMask:1024:noinput syncwarpExchange:1024
/tmp/record_outputs "$root/tests/unit/jit/lockstep_kernels.ptx" "$out/lockstep" lastWarpReduce:8 \
  paddedWarpScan:1024 guardedLoopReduce:1024 rotateGlobal:1024 plainReduce:8 \
  warpBitonicSort:2048 sharedRotateLoop:1024 halfWarpBitonicSort:1024 rotateGlobalNonCached:1024 \
  blockBitonicSort:2048 unrolledBitonicSort:2048 plainNeighbourShared:1024 \
  neighbourThroughCall:1024
/tmp/record_services "$root/tests/e2e/faults_kernels.ptx" >"$out/services.stdout" 2>"$out/services.stderr" || true
/tmp/record_errors "$root/tests/unit/jit/kernels.ptx" >"$out/errors.txt" 2>&1 || true
/tmp/record_streams >"$out/streams.txt" 2>&1 || true
/tmp/record_stack "$root/tests/api/stack/big_local.ptx" >"$out/stack.txt" 2>&1 || true
/tmp/record_events >"$out/events.txt" 2>&1 || true
/tmp/record_more_errors "$root/tests/api/errors/counter.ptx" >"$out/more_errors.txt" 2>&1 || true
/tmp/record_old_abi >"$out/old_abi.txt" 2>&1 || true
/tmp/record_sticky "$root/tests/e2e/faults_kernels.ptx" >"$out/sticky.txt" 2>&1 || true
/tmp/record_arrays >"$out/arrays.txt" 2>&1 || true
/tmp/record_python_stack "$root/tests/api/attributes/attrs.ptx" >"$out/python_stack.txt" 2>&1 || true
/tmp/record_launch_ex "$root/tests/unit/jit/address_kernels.ptx" "$root/tests/e2e/cg_syscalls.ptx" \
  >"$out/launch_ex.txt" 2>&1 || true
/tmp/record_free_sync "$root/tests/api/free/spin.ptx" >"$out/free_sync.txt" 2>&1 || true
/tmp/record_arena "$root/tests/api/arena/poke.ptx" >"$out/arena.txt" 2>&1 || true
/tmp/record_exit_handler >"$out/exit_handler.txt" 2>&1 || true
# Their outputs are tests/gpu/answers/{vmm,pools,stream_memops,graphs,ctx_events,memcpy_batch,ipc,old_launch,green_ctx,pool_ipc,ptx_limits,error_strings}.txt, which the api_*_answers tests
# compare with cucpu's.
/tmp/record_vmm "$root/tests/api/vmm/fill.ptx" >"$out/vmm.txt" || true
/tmp/record_pools >"$out/pools.txt" || true
/tmp/record_graphs "$root/tests/api/graphs/graph_kernels.ptx" >"$out/graphs.txt" || true
/tmp/record_ctx_events "$root/tests/api/stream0/waiters.ptx" >"$out/ctx_events.txt" || true
/tmp/record_memcpy_batch >"$out/memcpy_batch.txt" || true
timeout 60 /tmp/record_ipc >"$out/ipc.txt" || true
/tmp/record_old_launch "$root/tests/api/graphs/graph_kernels.ptx" >"$out/old_launch.txt" || true
/tmp/record_green_ctx "$root/tests/api/graphs/graph_kernels.ptx" >"$out/green_ctx.txt" || true
/tmp/record_ptx_limits >"$out/ptx_limits.txt" || true
/tmp/record_misuse >"$out/misuse.txt" || true
/tmp/record_error_strings >"$out/error_strings.txt" || true
/tmp/record_logs >"$out/logs.txt" || true
/tmp/record_compression >"$out/compression.txt" || true
timeout 60 /tmp/record_location_pools >"$out/location_pools.txt" || true
/tmp/record_batch_prefetch >"$out/batch_prefetch.txt" || true
timeout 60 /tmp/record_pool_ipc >"$out/pool_ipc.txt" || true
timeout 60 /tmp/record_stream_memops >"$out/stream_memops.txt" || true
CUDA_MODULE_LOADING=EAGER /tmp/record_hostile_ptx "$root"/tests/api/hostile/*.ptx >"$out/hostile_ptx.txt" || true
/tmp/record_legacy_stream "$root/tests/api/free/spin.ptx" "$root/tests/api/stream0/waiters.ptx" \
  >"$out/legacy_stream.txt" 2>&1 || true
# cucpu's NVRTC/nvJitLink front ends on NVIDIA's driver, against NVIDIA's own libraries: pass the
# folder holding the front ends (build/lib) as $2.
$cxx "$root/tests/gpu/record_rtc_frontends.cpp" -o /tmp/record_rtc_frontends $lib \
  -L/usr/local/cuda/lib64 -lnvrtc -lnvJitLink
LD_LIBRARY_PATH=/usr/local/cuda/lib64 /tmp/record_rtc_frontends >"$out/rtc_nvidia.txt" 2>&1 || true
if [ -n "${2:-}" ]; then
  LD_LIBRARY_PATH="$2:/usr/local/cuda/lib64" /tmp/record_rtc_frontends >"$out/rtc_cucpu.txt" 2>&1 || true
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt"
