// Records how NVIDIA's legacy default stream orders and returns: a launch on stream 0 returns
// before the kernel ends; a kernel on stream 0 waiting for a flag the host sets in mapped memory
// finishes; work on a blocking stream follows earlier stream-0 work and stream 0 follows earlier
// blocking-stream work, a non-blocking stream does not; events recorded on stream 0; and what
// the calls answer for a stream and an event of a destroyed context.
// Usage: record_legacy_stream tests/api/free/spin.ptx tests/api/stream0/waiters.ptx.
// Checked by tests/api/legacy_stream_test.cpp.
#include "record.h"

#include <atomic>
#include <chrono>
#include <cuda.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;
CUfunction spin, waitFlag, copyWord;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

const char *when(double ms) { return ms > 100 ? "waited" : "returned at once"; }

void startSpin(CUstream s, unsigned long long ns, CUdeviceptr flag) {
  void *args[] = {&ns, &flag};
  cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, nullptr);
}

void copy(CUstream s, CUdeviceptr src, CUdeviceptr dst) {
  void *args[] = {&src, &dst};
  cuLaunchKernel(copyWord, 1, 1, 1, 1, 1, 1, 0, s, args, nullptr);
}

unsigned long long word(CUdeviceptr d) {
  unsigned long long v = 0;
  cuMemcpyDtoH(&v, d, sizeof v);
  return v;
}

// Each call on a stream and an event of a destroyed context, in a process of its own (NVIDIA's
// driver crashes on some of them).
void destroyedContext() {
  const char *names[] = {
      "cuStreamQuery",      "cuStreamSynchronize", "cuStreamDestroy",         "cuEventQuery",
      "cuEventSynchronize", "cuEventRecord(e, 0)", "cuStreamWaitEvent(0, e)", "cuEventDestroy"};
  for (int call = 0; call < 8; ++call) {
    if (pid_t pid = fork(); pid != 0) {
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status))
        std::printf("destroyed context: %-24s crashed (signal %d)\n", names[call],
                    WTERMSIG(status));
      continue;
    }
    CUcontext a, b;
    CUstream s;
    CUevent e;
    cuInit(0);
    cuCtxCreate(&a, nullptr, 0, 0);
    cuStreamCreate(&s, 0);
    cuEventCreate(&e, 0);
    cuCtxDestroy(a);
    cuCtxCreate(&b, nullptr, 0, 0);
    std::fflush(stdout);
    CUresult r = call == 0   ? cuStreamQuery(s)
                 : call == 1 ? cuStreamSynchronize(s)
                 : call == 2 ? cuStreamDestroy(s)
                 : call == 3 ? cuEventQuery(e)
                 : call == 4 ? cuEventSynchronize(e)
                 : call == 5 ? cuEventRecord(e, nullptr)
                 : call == 6 ? cuStreamWaitEvent(nullptr, e, 0)
                             : cuEventDestroy(e);
    std::printf("destroyed context: %-24s %d\n", names[call], int(r));
    std::fflush(stdout);
    _exit(0);
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  destroyedContext();
  const std::string spinPtx = readFile(argv[1]), waitPtx = readFile(argv[2]);
  CUcontext ctx;
  CUmodule m1, m2;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  SHOW(cuModuleLoadData(&m1, spinPtx.c_str()));
  SHOW(cuModuleLoadData(&m2, waitPtx.c_str()));
  SHOW(cuModuleGetFunction(&spin, m1, "spin"));
  SHOW(cuModuleGetFunction(&waitFlag, m2, "waitFlag"));
  SHOW(cuModuleGetFunction(&copyWord, m2, "copyWord"));
  CUstream blocking, nonBlocking;
  SHOW(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
  SHOW(cuStreamCreate(&nonBlocking, CU_STREAM_NON_BLOCKING));
  CUdeviceptr flag, out;
  cuMemAlloc(&flag, 8);
  cuMemAlloc(&out, 8);

  // A. A launch on stream 0 returns at once.
  cuMemsetD8(flag, 0, 8);
  auto t0 = Clock::now();
  startSpin(nullptr, 300000000ull, flag);
  std::printf("A: spin launch on stream 0: %s\n", when(msSince(t0)));
  SHOW(cuStreamQuery(nullptr));
  SHOW(cuCtxSynchronize());

  // B. A kernel on stream 0 waits for the host.
  void *hostFlag;
  SHOW(cuMemHostAlloc(&hostFlag, 64, CU_MEMHOSTALLOC_DEVICEMAP));
  *static_cast<volatile unsigned *>(hostFlag) = 0;
  CUdeviceptr dFlag;
  SHOW(cuMemHostGetDevicePointer(&dFlag, hostFlag, 0));
  std::atomic<bool> launched{false};
  std::thread watchdog([&] { // if the launch blocked, free the kernel after 2 s
    std::this_thread::sleep_for(std::chrono::seconds(2));
    if (!launched)
      *static_cast<volatile unsigned *>(hostFlag) = 9;
  });
  t0 = Clock::now();
  void *wargs[] = {&dFlag, &out};
  CUresult r = cuLaunchKernel(waitFlag, 1, 1, 1, 1, 1, 1, 0, nullptr, wargs, nullptr);
  launched = true;
  std::printf("B: waitFlag launch on stream 0 -> %d: %s\n", int(r), when(msSince(t0)));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  SHOW(cuStreamQuery(nullptr));
  *static_cast<volatile unsigned *>(hostFlag) = 5;
  SHOW(cuCtxSynchronize());
  std::printf("B: the kernel read %llu\n", word(out) & 0xffffffffu);
  watchdog.join();

  // C. Blocking streams follow stream 0; non-blocking ones do not.
  cuMemsetD8(flag, 0, 8);
  cuMemsetD8(out, 0, 8);
  startSpin(nullptr, 300000000ull, flag);
  copy(blocking, flag, out);
  t0 = Clock::now();
  SHOW(cuStreamSynchronize(blocking));
  std::printf("C: blocking stream after stream-0 spin: %s, copied %llu\n", when(msSince(t0)),
              word(out));
  cuMemsetD8(flag, 0, 8);
  cuMemsetD8(out, 0, 8);
  startSpin(nullptr, 300000000ull, flag);
  copy(nonBlocking, flag, out);
  t0 = Clock::now();
  SHOW(cuStreamSynchronize(nonBlocking));
  std::printf("C: non-blocking stream after stream-0 spin: %s\n", when(msSince(t0)));
  SHOW(cuCtxSynchronize());
  std::printf("C: non-blocking stream copied %llu\n", word(out));

  // D. Stream 0 follows blocking streams.
  cuMemsetD8(flag, 0, 8);
  cuMemsetD8(out, 0, 8);
  startSpin(blocking, 300000000ull, flag);
  SHOW(cuStreamQuery(nullptr));
  t0 = Clock::now();
  SHOW(cuStreamSynchronize(nullptr));
  std::printf("D: cuStreamSynchronize(0) with a busy blocking stream: %s\n", when(msSince(t0)));
  startSpin(blocking, 300000000ull, flag);
  copy(nullptr, flag, out);
  SHOW(cuCtxSynchronize());
  std::printf("D: stream 0 after blocking-stream spin copied %llu\n", word(out));
  startSpin(nonBlocking, 300000000ull, flag);
  t0 = Clock::now();
  SHOW(cuStreamSynchronize(nullptr));
  std::printf("D: cuStreamSynchronize(0) with a busy non-blocking stream: %s\n", when(msSince(t0)));
  SHOW(cuCtxSynchronize());

  // E. Events on stream 0.
  CUevent e;
  SHOW(cuEventCreate(&e, 0));
  startSpin(nullptr, 300000000ull, flag);
  SHOW(cuEventRecord(e, nullptr));
  SHOW(cuEventQuery(e));
  SHOW(cuEventSynchronize(e));
  SHOW(cuEventQuery(e));
  return 0;
}
