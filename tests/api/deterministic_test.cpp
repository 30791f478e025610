// CUCPU_DETERMINISTIC=1 (run by ctest with it set): one thread runs every block in index order and
// every launch returns when its kernel has run, so a kernel whose result depends on the order its
// blocks run in gives the same answer every time: blocks take tickets in index order.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace {

// Thread 0 of each block takes the next ticket and stores its block index there.
const char *kPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry tickets(.param .u64 counter, .param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  .reg .pred %p;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p, %r1, 0;
  @%p bra done;
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [out];
  atom.global.add.u32 %r2, [%rd1], 1;
  mov.u32 %r3, %ctaid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
done:
  ret;
}
)";

TEST(Deterministic, BlocksRunInIndexOrderOnOneThread) {
  ASSERT_NE(std::getenv("CUCPU_DETERMINISTIC"), nullptr) << "run with CUCPU_DETERMINISTIC=1";
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext ctx;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  int sms = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  EXPECT_EQ(sms, 1);
  CUmodule mod;
  CUfunction f;
  ASSERT_EQ(cuModuleLoadData(&mod, kPtx), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&f, mod, "tickets"), CUDA_SUCCESS);
  constexpr unsigned kBlocks = 2048;
  CUstream streams[2];
  CUdeviceptr counters[2], outs[2];
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&counters[i], 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&outs[i], kBlocks * 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32(counters[i], 0, 1), CUDA_SUCCESS);
  }
  for (int i = 0; i < 2; ++i) { // two streams: each launch has run when it returns
    void *args[] = {&counters[i], &outs[i]};
    ASSERT_EQ(cuLaunchKernel(f, kBlocks, 1, 1, 64, 1, 1, 0, streams[i], args, nullptr),
              CUDA_SUCCESS);
    unsigned taken = 0;
    ASSERT_EQ(cuMemcpyDtoHAsync(&taken, counters[i], 4, streams[1 - i]), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(streams[1 - i]), CUDA_SUCCESS);
    EXPECT_EQ(taken, kBlocks);
  }
  for (int i = 0; i < 2; ++i) {
    std::vector<unsigned> out(kBlocks);
    ASSERT_EQ(cuMemcpyDtoH(out.data(), outs[i], kBlocks * 4), CUDA_SUCCESS);
    for (unsigned b = 0; b < kBlocks; ++b)
      ASSERT_EQ(out[b], b) << "ticket " << b << " of launch " << i;
  }
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

} // namespace
