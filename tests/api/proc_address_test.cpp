// cuGetProcAddress: version-aware lookups (every request CUDA 13 cudart makes), symbolStatus,
// per-thread-stream variants and the error paths.
#include <cuda.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <string>

namespace {

void *exported(const char *symbol) {
  static void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return lib ? dlsym(lib, symbol) : nullptr;
}

// The function cuGetProcAddress_v2 returns, or null with the result in `r`.
void *lookup(const char *name, int version, cuuint64_t flags, CUresult *r = nullptr,
             CUdriverProcAddressQueryResult *status = nullptr) {
  void *fn = reinterpret_cast<void *>(0x1);
  CUdriverProcAddressQueryResult s;
  CUresult res = cuGetProcAddress_v2(name, &fn, version, flags, &s);
  if (r)
    *r = res;
  if (status)
    *status = s;
  return fn;
}

TEST(ProcAddress, AnswersEveryRequestOfCudart13WithTheRightAbiVersion) {
  std::ifstream in(CUCPU_SOURCE_DIR "/tests/data/cudart13_getprocaddress.tsv");
  ASSERT_TRUE(in) << "missing tests/data/cudart13_getprocaddress.tsv";
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("order", 0) == 0)
      continue;
    std::istringstream ss(line);
    std::string order, name, expected;
    int version;
    cuuint64_t flags;
    ss >> order >> name >> version >> flags >> expected;
    CUresult r;
    CUdriverProcAddressQueryResult status;
    void *fn = lookup(name.c_str(), version, flags, &r, &status);
    ASSERT_EQ(r, CUDA_SUCCESS) << name << " " << version;
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS) << name;
    ASSERT_NE(exported(expected.c_str()), nullptr) << expected;
    EXPECT_EQ(fn, exported(expected.c_str()))
        << name << " at " << version << " flags " << flags << " should be " << expected;
    ++rows;
  }
  EXPECT_EQ(rows, 439);
}

TEST(ProcAddress, PicksTheNewestAbiAtOrBeforeTheRequestedVersion) {
  EXPECT_EQ(lookup("cuGetProcAddress", 11030, 0), exported("cuGetProcAddress"));
  EXPECT_EQ(lookup("cuGetProcAddress", 12000, 0), exported("cuGetProcAddress_v2"));
  EXPECT_EQ(lookup("cuCtxSynchronize", 12090, 0), exported("cuCtxSynchronize"));
  EXPECT_EQ(lookup("cuCtxSynchronize", 13000, 0), exported("cuCtxSynchronize_v2"));
  EXPECT_EQ(lookup("cuMemAlloc", 2000, 0), exported("cuMemAlloc"));
  EXPECT_EQ(lookup("cuMemAlloc", 3010, 0), exported("cuMemAlloc"));
  EXPECT_EQ(lookup("cuMemAlloc", 13000, 0), exported("cuMemAlloc_v2"));
  EXPECT_EQ(lookup("cuCtxCreate", 12050, 0), exported("cuCtxCreate_v4"));
  EXPECT_EQ(lookup("cuCtxCreate", 12040, 0), exported("cuCtxCreate_v3"));
  EXPECT_EQ(lookup("cuGraphInstantiate", 11000, 0), exported("cuGraphInstantiate_v2"));
  // CUDA 12 headers map cuGraphInstantiate to cuGraphInstantiateWithFlags.
  EXPECT_EQ(lookup("cuGraphInstantiate", 12000, 0), exported("cuGraphInstantiateWithFlags"));
}

TEST(ProcAddress, PerThreadDefaultStreamFlagSelectsPtdsVariants) {
  const cuuint64_t ptds = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  const cuuint64_t legacy = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
  EXPECT_EQ(lookup("cuMemcpyHtoD", 13000, ptds), exported("cuMemcpyHtoD_v2_ptds"));
  EXPECT_EQ(lookup("cuMemcpyHtoD", 13000, legacy), exported("cuMemcpyHtoD_v2"));
  EXPECT_EQ(lookup("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_DEFAULT),
            exported("cuMemcpyHtoD_v2"));
  EXPECT_EQ(lookup("cuLaunchKernel", 13000, ptds), exported("cuLaunchKernel_ptsz"));
  // Before per-thread streams existed (7.0) the default-stream ABI answers.
  EXPECT_EQ(lookup("cuMemcpyHtoD", 6050, ptds), exported("cuMemcpyHtoD_v2"));
  // Functions without a stream have no variant: the flag changes nothing.
  EXPECT_EQ(lookup("cuMemAlloc", 13000, ptds), exported("cuMemAlloc_v2"));
}

TEST(ProcAddress, ReturnedFunctionsWork) {
  void *fn = lookup("cuDriverGetVersion", 13000, 0);
  ASSERT_NE(fn, nullptr);
  int v = 0;
  EXPECT_EQ(reinterpret_cast<CUresult (*)(int *)>(fn)(&v), CUDA_SUCCESS);
  EXPECT_EQ(v, 13000);
}

TEST(ProcAddress, UnknownAndEmptyNamesAreNotFound) {
  CUresult r;
  CUdriverProcAddressQueryResult status;
  EXPECT_EQ(lookup("", 0, 0, &r, &status), nullptr);
  EXPECT_EQ(r, CUDA_SUCCESS); // the status says why (an H200's answer)
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(lookup("cuNoSuchFunction", 13000, 0, &r, &status), nullptr);
  EXPECT_EQ(r, CUDA_SUCCESS); // the status says why (an H200's answer)
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  // Versioned symbol names are not API names.
  EXPECT_EQ(lookup("cuMemAlloc_v2", 13000, 0, &r, &status), nullptr);
  EXPECT_EQ(r, CUDA_SUCCESS); // the status says why (an H200's answer)
}

TEST(ProcAddress, VersionBeforeTheFirstAbiIsNotSufficient) {
  CUresult r;
  CUdriverProcAddressQueryResult status;
  EXPECT_EQ(lookup("cuCtxCreate", 1000, 0, &r, &status), nullptr);
  EXPECT_EQ(r, CUDA_SUCCESS); // the status says why (an H200's answer)
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  EXPECT_EQ(lookup("cuGetProcAddress", 11020, 0, &r, &status), nullptr);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
}

TEST(ProcAddress, RejectsNullArgumentsAndUnknownFlags) {
  void *fn;
  EXPECT_EQ(cuGetProcAddress_v2(nullptr, &fn, 13000, 0, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetProcAddress_v2("cuInit", nullptr, 13000, 0, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetProcAddress_v2("cuInit", &fn, 13000, 8, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetProcAddress_v2("cuInit", &fn, 13000, 3, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetProcAddress_v2("cuInit", &fn, 13000, 0, nullptr), CUDA_SUCCESS); // status optional
}

TEST(ProcAddress, TheCuda113AbiHasNoStatusArgument) {
  using V1 = CUresult (*)(const char *, void **, int, cuuint64_t);
  auto v1 = reinterpret_cast<V1>(exported("cuGetProcAddress"));
  ASSERT_NE(v1, nullptr);
  void *fn = nullptr;
  EXPECT_EQ(v1("cuMemAlloc", &fn, 11030, 0), CUDA_SUCCESS);
  EXPECT_EQ(fn, exported("cuMemAlloc_v2"));
  EXPECT_EQ(v1("cuNoSuchFunction", &fn, 11030, 0), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(fn, nullptr);
}

} // namespace
