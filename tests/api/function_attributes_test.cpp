// What cuFuncGetAttribute reports of a kernel's resources, against an H100 with driver 580
// (tests/gpu/record_python_stack.cpp, same PTX: tests/api/attributes/attrs.ptx): shared and
// constant bytes exactly; registers as the PTX's pressure within CU_JIT_MAX_REGISTERS and
// `.maxnreg` (a CPU has no register file; the H100 says 8 here); local bytes as cucpu keeps them
// (the H100's ptxas moved this array to registers and says 0).
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string attributesPtx() {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/attributes/attrs.ptx");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
  const std::string kPtx = attributesPtx();
  ASSERT_FALSE(kPtx.empty());
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 100);
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES), 80);
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), 64);
}

TEST_F(FunctionAttributes, RegistersArePressureWithinTheLimits) {
  const std::string kPtx = attributesPtx();
  ASSERT_FALSE(kPtx.empty());
  // Live at once at most: %r1-%r7 and %rd1-%rd3 (two units each); 40 are declared.
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_NUM_REGS), 13);
  EXPECT_EQ(attribute(kPtx, CU_FUNC_ATTRIBUTE_NUM_REGS, 6), 6);
  std::string limited = kPtx;
  limited.insert(limited.find("\n{"), "\n.maxnreg 5");
  EXPECT_EQ(attribute(limited, CU_FUNC_ATTRIBUTE_NUM_REGS), 5);
}

} // namespace
