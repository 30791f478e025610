// Hostile PTX loads cleanly or fails cleanly, never crashes or runs away (tests/api/hostile).
// An H200 with driver 580 (tests/gpu/answers/hostile_ptx.txt, eager or lazy loading) refuses an
// atomic on predicates, a .local array of size 0 and .const data beyond the 64 KiB bank with
// CUDA_ERROR_INVALID_PTX, as cucpu does.
// It loads a kernel with a 4 GiB or 600 KiB .local array whose address is taken but never used
// (ptxas drops the array) and one declaring 100 million registers (unused): cucpu refuses the
// first two at load, as a thread's local memory is at most 512 KiB (ptxas's "uses too much local
// data" when used), and the third as beyond its register budget (1,048,576 per kernel), which
// bounds the time and memory a module may take to load. Before, the arrays crashed the process
// and the registers took minutes and 7 GB.
#include <cuda.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace {

CUresult load(const char *name, std::string *log) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/hostile/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string ptx = ss.str();
  char buffer[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {buffer, reinterpret_cast<void *>(sizeof buffer)};
  CUmodule mod;
  CUresult r = cuModuleLoadDataEx(&mod, ptx.c_str(), 2, options, values);
  *log = buffer;
  if (r == CUDA_SUCCESS)
    cuModuleUnload(mod);
  return r;
}

class HostilePtx : public testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  CUcontext ctx = nullptr;
  std::string log;
};

TEST_F(HostilePtx, AsTheGpuAnswers) {
  EXPECT_EQ(load("atom_xor_pred.ptx", &log), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(log, "ptx: 11:3: 'atom.global.xor.pred': wrong types; valid forms: "
                 "atom{.relaxed,.acquire,.release,.acq_rel}{.cta,.cluster,.gpu,.sys}"
                 "{.global,.shared,.shared::cta,.shared::cluster}.{and,or,xor,exch}.{b32,b64}\n");
  EXPECT_EQ(load("local_size0.ptx", &log), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(log, "ptx: 7:23: 'buf' has no size\n");
  EXPECT_EQ(load("local_512kib.ptx", &log), CUDA_SUCCESS);
  EXPECT_EQ(load("const_64kib.ptx", &log), CUDA_SUCCESS);
  EXPECT_EQ(load("const_65kib.ptx", &log), CUDA_ERROR_INVALID_PTX); // cucpu loaded it before
  EXPECT_EQ(log, "ptx: 5:21: '.const' data beyond the 64 KiB constant bank ('table')\n");
}

TEST_F(HostilePtx, LocalDataBeyondWhatAThreadMayHaveIsRefused) {
  for (const char *name : {"local_4gib.ptx", "local_600kib.ptx"}) {
    EXPECT_EQ(load(name, &log), CUDA_ERROR_INVALID_PTX) << name; // H200: loads
    EXPECT_EQ(log, "ptx: 7:23: 'k' uses more than 524288 bytes of local data per thread\n");
  }
}

TEST_F(HostilePtx, RegistersBeyondTheBudgetAreRefusedQuickly) {
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(load("many_registers.ptx", &log), CUDA_ERROR_NOT_SUPPORTED); // H200: loads
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(log, "ptx: 7:13: more than 1048576 registers declared in 'k'\n");
}

} // namespace
