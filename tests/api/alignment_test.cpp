// `.align` on .shared, dynamic .shared and .local variables is honoured as on a GPU, up to 512
// bytes, for every thread and block (numba's local and shared arrays ask for 256); and a .local
// address kept across a barrier stays each thread's own (it was taken for block-uniform, so every
// thread of a block got thread 0's array).
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace {

// Five generic addresses per thread: two static shared arrays, the dynamic one, two locals. The
// barrier keeps them live across regions, so the thread's scratch holds saved registers too.
constexpr const char *kPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.shared .align 256 .b8 s0[3];
.shared .align 256 .b8 s1[5];
.extern .shared .align 512 .b8 dyn[];
.visible .entry aligned(.param .u64 out)
{
  .local .align 256 .b8 l0[3];
  .local .align 128 .b8 l1[7];
  .reg .b16 %h<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %ctaid.x;
  mad.lo.s32 %r1, %r3, %r2, %r1;
  mul.wide.u32 %rd2, %r1, 40;
  add.s64 %rd3, %rd1, %rd2;
  mov.u64 %rd4, s0;
  cvta.shared.u64 %rd4, %rd4;
  mov.u64 %rd5, s1;
  cvta.shared.u64 %rd5, %rd5;
  mov.u64 %rd6, dyn;
  cvta.shared.u64 %rd6, %rd6;
  mov.u64 %rd7, l0;
  cvta.local.u64 %rd7, %rd7;
  mov.u64 %rd8, l1;
  cvta.local.u64 %rd8, %rd8;
  mov.u16 %h1, 1;
  st.local.u8 [l0+2], %h1;
  st.local.u8 [l1+6], %h1;
  bar.sync 0;
  ld.local.u8 %h2, [l0+2];
  st.global.u64 [%rd3], %rd4;
  st.global.u64 [%rd3+8], %rd5;
  st.global.u64 [%rd3+16], %rd6;
  st.global.u64 [%rd3+24], %rd7;
  st.global.u64 [%rd3+32], %rd8;
  ret;
}
)";

TEST(Alignment, SharedDynamicSharedAndLocalVariablesKeepTheirAlign) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext ctx;
  ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  CUmodule mod;
  ASSERT_EQ(cuModuleLoadData(&mod, kPtx), CUDA_SUCCESS);
  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, mod, "aligned"), CUDA_SUCCESS);
  constexpr unsigned threads = 3, blocks = 4;
  CUdeviceptr out;
  ASSERT_EQ(cuMemAlloc(&out, threads * blocks * 40), CUDA_SUCCESS);
  void *args[] = {&out};
  ASSERT_EQ(cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 100, nullptr, args, nullptr),
            CUDA_SUCCESS);
  std::vector<uint64_t> a(threads * blocks * 5);
  ASSERT_EQ(cuMemcpyDtoH(a.data(), out, a.size() * 8), CUDA_SUCCESS);
  for (unsigned t = 0; t < threads * blocks; ++t) {
    const uint64_t *p = &a[t * 5];
    EXPECT_EQ(p[0] % 256, 0u) << "s0, thread " << t;
    EXPECT_EQ(p[1] % 256, 0u) << "s1, thread " << t;
    EXPECT_NE(p[0], p[1]);
    EXPECT_EQ(p[2] % 512, 0u) << "dyn, thread " << t;
    EXPECT_EQ(p[3] % 256, 0u) << "l0, thread " << t;
    EXPECT_EQ(p[4] % 128, 0u) << "l1, thread " << t;
  }
  for (unsigned b = 0; b < blocks; ++b) { // a block's threads run together: own local areas
    std::set<uint64_t> locals;
    for (unsigned t = 0; t < threads; ++t)
      EXPECT_TRUE(locals.insert(a[(b * threads + t) * 5 + 3]).second) << "block " << b;
  }
  cuMemFree(out);
  cuModuleUnload(mod);
  cuCtxDestroy(ctx);
}

} // namespace
