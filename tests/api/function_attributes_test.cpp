// What cuFuncGetAttribute reports of a kernel's resources, against an H100 with driver 580
// (tests/gpu/record_python_stack.cpp, same PTX): shared and constant bytes exactly; registers as
// the PTX's pressure within CU_JIT_MAX_REGISTERS and `.maxnreg` (a CPU has no register file; the
// H100 says 8 here); local bytes as cucpu keeps them (the H100's ptxas moved this array to
// registers and says 0).
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

const char *kPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.const .align 4 .b8 coeffs[80];
.shared .align 4 .b8 tile[100];
.visible .entry attrs(.param .u64 out, .param .u32 i)
{
  .local .align 4 .b8 scratch[64];
  .reg .b32 %r<40>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [i];
  and.b32 %r2, %r1, 15;
  shl.b32 %r3, %r2, 2;
  cvt.u64.u32 %rd2, %r3;
  mov.u64 %rd3, scratch;
  add.s64 %rd3, %rd3, %rd2;
  st.local.u32 [%rd3], %r1;
  ld.const.u32 %r4, [coeffs+4];
  st.shared.u32 [tile], %r4;
  ld.shared.u32 %r5, [tile];
  ld.local.u32 %r6, [scratch];
  add.s32 %r7, %r5, %r6;
  st.global.u32 [%rd1], %r7;
  ret;
}
)";

class FunctionAttributes : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  int attribute(const std::string &ptx, CUfunction_attribute a, unsigned maxRegisters = 0) {
    CUmodule mod = nullptr;
    CUjit_option opt = CU_JIT_MAX_REGISTERS;
    void *value = reinterpret_cast<void *>(uintptr_t(maxRegisters));
    EXPECT_EQ(maxRegisters ? cuModuleLoadDataEx(&mod, ptx.c_str(), 1, &opt, &value)
                           : cuModuleLoadData(&mod, ptx.c_str()),
              CUDA_SUCCESS);
    CUfunction f;
    EXPECT_EQ(cuModuleGetFunction(&f, mod, "attrs"), CUDA_SUCCESS);
    int v = -1;
    EXPECT_EQ(cuFuncGetAttribute(&v, a, f), CUDA_SUCCESS);
    cuModuleUnload(mod);
    return v;
  }
  CUcontext ctx = nullptr;
};

TEST_F(FunctionAttributes, SharedAndConstantBytesAsAGpu) {
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 100);
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES), 80);
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), 64);
}

TEST_F(FunctionAttributes, RegistersArePressureWithinTheLimits) {
  // Live at once at most: %r1-%r7 and %rd1-%rd3 (two units each); 40 are declared.
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_NUM_REGS), 13);
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_NUM_REGS, 6), 6);
  std::string limited = kPtx;
  limited.insert(limited.find("{"), ".maxnreg 5\n");
  EXPECT_EQ(attribute(limited, CU_FUNC_ATTRIBUTE_NUM_REGS), 5);
}

} // namespace
