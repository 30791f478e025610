// The JIT linker: a kernel in one PTX input calls a device function and reads a variable that
// another input defines (both compiled with nvcc -rdc=true); errors name what went wrong.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string source(const char *name) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/link/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Link : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  CUcontext ctx = nullptr;
};

TEST_F(Link, TwoPtxInputsMakeOneModule) {
  std::string caller = source("caller.ptx"), scaler = source("scaler.ptx");
  char errors[1024] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errors, reinterpret_cast<void *>(sizeof errors)};
  CUlinkState link;
  ASSERT_EQ(cuLinkCreate(2, opts, values, &link), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkAddData(link, CU_JIT_INPUT_PTX, caller.data(), caller.size() + 1, "caller.ptx", 0,
                          nullptr, nullptr),
            CUDA_SUCCESS);
  std::string path = std::string(CUCPU_SOURCE_DIR) + "/tests/api/link/scaler.ptx";
  ASSERT_EQ(cuLinkAddFile(link, CU_JIT_INPUT_PTX, path.c_str(), 0, nullptr, nullptr), CUDA_SUCCESS);
  void *image = nullptr;
  size_t size = 0;
  ASSERT_EQ(cuLinkComplete(link, &image, &size), CUDA_SUCCESS) << errors;
  ASSERT_NE(image, nullptr);
  EXPECT_GT(size, caller.size());
  CUmodule mod;
  ASSERT_EQ(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkDestroy(link), CUDA_SUCCESS); // the module keeps what it loaded

  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, mod, "linked"), CUDA_SUCCESS);
  const int n = 100;
  std::vector<int> in(n), out(n, 0);
  for (int i = 0; i < n; ++i)
    in[i] = i - 50;
  CUdeviceptr din, dout, offset;
  size_t offsetBytes = 0;
  ASSERT_EQ(cuMemAlloc(&din, n * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&dout, n * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(din, in.data(), n * sizeof(int)), CUDA_SUCCESS);
  // The variable scaler.ptx defines is the module's, initialiser included.
  ASSERT_EQ(cuModuleGetGlobal(&offset, &offsetBytes, mod, "offset"), CUDA_SUCCESS);
  EXPECT_EQ(offsetBytes, sizeof(int));
  int nn = n;
  void *args[] = {&din, &dout, &nn};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(out.data(), dout, n * sizeof(int)), CUDA_SUCCESS);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], (i - 50) * 3 - 1 + 1000) << i;
  cuModuleUnload(mod);
}

// One module may use an extern variable nothing defines (it is defined there, zero, as NVIDIA's
// driver does); a link may not.
TEST_F(Link, UndefinedExternVariable) {
  const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                          ".extern .global .align 4 .u32 gv;\n"
                          ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<2>;\n"
                          ".reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nld.global.u32 %r1, [gv];\n"
                          "st.global.u32 [%rd1], %r1;\nret;\n}\n";
  CUmodule m;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  char errors[1024] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errors, reinterpret_cast<void *>(sizeof errors)};
  CUlinkState link;
  ASSERT_EQ(cuLinkCreate(2, opts, values, &link), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()), ptx.size(),
                          "gv.ptx", 0, nullptr, nullptr),
            CUDA_SUCCESS);
  void *image = nullptr;
  size_t size = 0;
  EXPECT_EQ(cuLinkComplete(link, &image, &size), CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(std::string(errors).find("undefined reference to 'gv'"), std::string::npos) << errors;
  EXPECT_EQ(cuLinkDestroy(link), CUDA_SUCCESS);
}

TEST_F(Link, UnresolvedSymbolsAndBadInputsAreReported) {
  std::string caller = source("caller.ptx");
  char errors[1024] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errors, reinterpret_cast<void *>(sizeof errors)};
  CUlinkState link;
  ASSERT_EQ(cuLinkCreate(2, opts, values, &link), CUDA_SUCCESS);
  void *image = nullptr;
  size_t size = 0;
  // Nothing added: an empty image, as on an H200 (tests/gpu/answers/misuse.txt).
  ASSERT_EQ(cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
  CUmodule empty;
  ASSERT_EQ(cuModuleLoadData(&empty, image), CUDA_SUCCESS);
  unsigned count = 1;
  EXPECT_EQ(cuModuleGetFunctionCount(&count, empty), CUDA_SUCCESS);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(cuModuleUnload(empty), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkAddData(link, CU_JIT_INPUT_PTX, caller.data(), caller.size(), "caller.ptx", 0,
                          nullptr, nullptr),
            CUDA_SUCCESS);
  // The variable and the function are only declared: the link cannot complete.
  EXPECT_NE(cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
  EXPECT_NE(std::string(errors).find("unresolved extern function '_Z5scalei'"), std::string::npos)
      << errors;
  const char elf[] = "\x7f"
                     "ELF....";
  EXPECT_EQ(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, const_cast<char *>(elf), sizeof elf, "k.cubin",
                          0, nullptr, nullptr),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_NE(std::string(errors).find("k.cubin"), std::string::npos) << errors;
  EXPECT_EQ(cuLinkAddData(link, CU_JIT_INPUT_PTX, nullptr, 10, "x", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkAddFile(link, CU_JIT_INPUT_PTX, "/nonexistent.ptx", 0, nullptr, nullptr),
            CUDA_ERROR_FILE_NOT_FOUND);
  EXPECT_EQ(cuLinkComplete(link, nullptr, &size), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuLinkDestroy(link), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(
      cuLinkAddData(link, CU_JIT_INPUT_PTX, caller.data(), caller.size(), "x", 0, nullptr, nullptr),
      CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkCreate(0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
