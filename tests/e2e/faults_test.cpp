// Device services and kernel faults through the driver API: printf output, device malloc,
// and assert/trap/bad addresses becoming sticky context errors without killing the process.
// The printf line, the assert message and the sticky codes were checked on an H200 (driver
// 580.159.04) with tests/gpu/record_services.cpp.
#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

std::string ptx() {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/e2e/faults_kernels.ptx");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Services : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    std::string text = ptx();
    ASSERT_EQ(cuModuleLoadData(&mod, text.c_str()), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  CUfunction fn(const char *name) {
    CUfunction f = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&f, mod, name), CUDA_SUCCESS);
    return f;
  }
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
};

// Runs `body` with stdout redirected to a file and returns what was written.
template <typename F> std::string captureStdout(F &&body) {
  std::fflush(stdout);
  char path[] = "/tmp/cucpu-stdout-XXXXXX";
  int fd = mkstemp(path);
  int saved = dup(1);
  dup2(fd, 1);
  body();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  unlink(path);
  return ss.str();
}

TEST_F(Services, DevicePrintfFormatsLikeCuda) {
  int base = 40;
  void *args[] = {&base};
  std::string out = captureStdout([&] {
    ASSERT_EQ(cuLaunchKernel(fn("printer"), 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
              CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  });
  std::string line0 = "t=0 i=40 u=4000000000 x=ff X=0XABCD c=A f=1.500 e=1.234568e+04 g=0.0001 "
                      "s=zero ll=-9000000000 w=[    0] p=%\n";
  std::string line1 = "t=1 i=41 u=4000000000 x=100 X=0XABCD c=B f=2.500 e=1.234568e+04 g=0.0001 "
                      "s=one ll=-9000000000 w=[    1] p=%\n";
  EXPECT_TRUE(out == line0 + line1 || out == line1 + line0) << out;
}

TEST_F(Services, DeviceMallocAndFree) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 64 * sizeof(int)), CUDA_SUCCESS);
  void *args[] = {&d};
  ASSERT_EQ(cuLaunchKernel(fn("deviceHeap"), 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr),
            CUDA_SUCCESS);
  std::vector<int> h(64);
  ASSERT_EQ(cuMemcpyDtoH(h.data(), d, 64 * sizeof(int)), CUDA_SUCCESS);
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(h[t], t * (63 * 64 / 2)) << t;
}

// CU_LIMIT_MALLOC_HEAP_SIZE sizes the context's device heap: 64 threads each holding 256 bytes
// (plus cucpu's 16-byte header) across a barrier do not all fit in 8 KiB, and malloc returns null
// for the others, as on a GPU; with 1 MiB in a new context all fit.
TEST_F(Services, DeviceHeapIsSizedByTheContextLimit) {
  for (size_t heap : {size_t(8192), size_t(1) << 20}) {
    CUcontext c;
    ASSERT_EQ(cuCtxCreate(&c, nullptr, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, heap), CUDA_SUCCESS);
    size_t v = 0;
    ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(v, heap);
    std::string text = ptx();
    CUmodule m;
    CUfunction f;
    ASSERT_EQ(cuModuleLoadData(&m, text.c_str()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&f, m, "heapHeldAcrossBarrier"), CUDA_SUCCESS);
    CUdeviceptr d;
    ASSERT_EQ(cuMemAlloc(&d, 64 * sizeof(int)), CUDA_SUCCESS);
    void *args[] = {&d};
    ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
    std::vector<int> h(64);
    ASSERT_EQ(cuMemcpyDtoH(h.data(), d, 64 * sizeof(int)), CUDA_SUCCESS);
    int got = 0;
    for (int x : h)
      got += x;
    if (heap == 8192) {
      EXPECT_GT(got, 0);
      EXPECT_LE(got, 8192 / 256);
    } else {
      EXPECT_EQ(got, 64);
    }
    ASSERT_EQ(cuCtxDestroy(c), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  }
}

// CU_LIMIT_PRINTF_FIFO_SIZE bounds the output one launch can buffer: with room for one of the
// two 113-byte lines, the other is dropped (and a warning logged).
TEST_F(Services, PrintfBeyondTheFifoLimitIsDropped) {
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 150), CUDA_SUCCESS);
  int base = 40;
  void *args[] = {&base};
  std::string out = captureStdout([&] {
    ASSERT_EQ(cuLaunchKernel(fn("printer"), 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
              CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  });
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(out.rfind("t=", 0), 0u) << out;
}

// A fault leaves the context with a sticky error; other contexts keep working.
void expectSticky(CUresult expected) {
  EXPECT_EQ(cuCtxSynchronize(), expected);
  EXPECT_EQ(cuCtxSynchronize(), expected); // sticky: reported again
}

TEST_F(Services, FailedAssertIsStickyCudaErrorAssert) {
  std::vector<int> h(64, 1);
  h[37] = -5;
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, h.size() * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(d, h.data(), h.size() * sizeof(int)), CUDA_SUCCESS);
  void *args[] = {&d};
  testing::internal::CaptureStderr();
  EXPECT_EQ(cuLaunchKernel(fn("asserter"), 2, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
            CUDA_SUCCESS);
  cuCtxSynchronize(); // launches are asynchronous: the report comes while the kernel runs
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("block: [1,0,0], thread: [5,0,0] Assertion `in[t] >= 0` failed."),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("faults_kernels.cu"), std::string::npos) << err;
  expectSticky(CUDA_ERROR_ASSERT);
  CUdeviceptr more;
  EXPECT_EQ(cuMemAlloc(&more, 16), CUDA_ERROR_ASSERT); // as NVIDIA's driver answers (H200)
  int n = 0;
  void *fillArgs[] = {&d, &n};
  EXPECT_EQ(cuLaunchKernel(fn("fill"), 1, 1, 1, 32, 1, 1, 0, nullptr, fillArgs, nullptr),
            CUDA_ERROR_ASSERT);
}

TEST_F(Services, TrapIsStickyLaunchFailed) {
  int when = 3;
  void *args[] = {&when};
  testing::internal::CaptureStderr();
  EXPECT_EQ(cuLaunchKernel(fn("trapper"), 8, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
            CUDA_SUCCESS);
  testing::internal::GetCapturedStderr();
  expectSticky(CUDA_ERROR_LAUNCH_FAILED);
}

// A call through a function pointer that names no function ends the grid with what an H100
// reports for it (tests/e2e/faults_kernels.cu), and the log names the pointer.
TEST_F(Services, CallThroughABadFunctionPointerIsStickyInvalidPc) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 128 * sizeof(int)), CUDA_SUCCESS);
  unsigned long long bad = 0x1234;
  void *args[] = {&d, &bad};
  testing::internal::CaptureStderr();
  EXPECT_EQ(cuLaunchKernel(fn("badFunctionPointer"), 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr),
            CUDA_SUCCESS);
  cuCtxSynchronize(); // launches are asynchronous: the report comes while the kernel runs
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("call through a pointer to no function (0x1234)"), std::string::npos) << err;
  EXPECT_NE(err.find("thread (100,0,0)"), std::string::npos) << err;
  expectSticky(CUDA_ERROR_INVALID_PC);
}

// An indirect call whose prototype matches no function of the module loads, and faults as any
// call through a pointer to no function when it runs.
TEST_F(Services, IndirectCallThatCanReachNoFunctionFaultsWhenItRuns) {
  const char *text = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry unreachable(.param .u64 f)
{
  .reg .b64 %rd;
  ld.param.u64 %rd, [f];
  {
  .param .b64 a;
  st.param.b64 [a], 0;
  proto: .callprototype _ (.param .b64 _);
  call %rd, (a), proto;
  }
  ret;
}
)";
  CUmodule m;
  ASSERT_EQ(cuModuleLoadData(&m, text), CUDA_SUCCESS);
  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "unreachable"), CUDA_SUCCESS);
  unsigned long long pointer = 0x40;
  void *args[] = {&pointer};
  testing::internal::CaptureStderr();
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  cuCtxSynchronize(); // launches are asynchronous: the report comes while the kernel runs
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("call through a pointer to no function (0x40)"), std::string::npos) << err;
  expectSticky(CUDA_ERROR_INVALID_PC);
}

// %globaltimer counts nanoseconds of the real-time clock (it was TSC ticks).
TEST_F(Services, GlobalTimerIsRealTimeNanoseconds) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 32 * sizeof(unsigned long long)), CUDA_SUCCESS);
  void *args[] = {&d};
  timespec before{}, after{};
  clock_gettime(CLOCK_REALTIME, &before);
  ASSERT_EQ(cuLaunchKernel(fn("globalTimer"), 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  clock_gettime(CLOCK_REALTIME, &after);
  std::vector<unsigned long long> t(32);
  ASSERT_EQ(cuMemcpyDtoH(t.data(), d, t.size() * sizeof(t[0])), CUDA_SUCCESS);
  auto ns = [](const timespec &ts) { return ts.tv_sec * 1000000000ull + ts.tv_nsec; };
  for (int i = 0; i < 32; ++i) {
    EXPECT_GE(t[i], ns(before)) << i;
    EXPECT_LE(t[i], ns(after)) << i;
  }
}

TEST_F(Services, WildWriteIsStickyIllegalAddressAndOtherContextsWork) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 256), CUDA_SUCCESS);
  unsigned long long offset = 1ull << 40; // far outside any mapping
  void *args[] = {&d, &offset};
  testing::internal::CaptureStderr();
  EXPECT_EQ(cuLaunchKernel(fn("wildWrite"), 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
            CUDA_SUCCESS);
  cuCtxSynchronize(); // launches are asynchronous: the report comes while the kernel runs
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("illegal access"), std::string::npos) << err;
  expectSticky(CUDA_ERROR_ILLEGAL_ADDRESS);

  // A second context is unaffected.
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  std::string text = ptx();
  CUmodule m2;
  ASSERT_EQ(cuModuleLoadData(&m2, text.c_str()), CUDA_SUCCESS);
  CUfunction f2;
  ASSERT_EQ(cuModuleGetFunction(&f2, m2, "fill"), CUDA_SUCCESS);
  CUdeviceptr d2;
  ASSERT_EQ(cuMemAlloc(&d2, 32 * sizeof(int)), CUDA_SUCCESS);
  int v = 7;
  void *fillArgs[] = {&d2, &v};
  ASSERT_EQ(cuLaunchKernel(f2, 1, 1, 1, 32, 1, 1, 0, nullptr, fillArgs, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  int h[32];
  ASSERT_EQ(cuMemcpyDtoH(h, d2, sizeof h), CUDA_SUCCESS);
  EXPECT_EQ(h[31], 7);
  ASSERT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

} // namespace
