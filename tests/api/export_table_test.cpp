// cuGetExportTable: the tables cudart 13 needs, context-local storage, MD2 and the integrity check.
#include "md2.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

std::string hex(const cucpu::api::Md2Digest &d) {
  std::string s;
  for (uint8_t b : d) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

std::string md2Of(const char *text) {
  return hex(cucpu::api::md2(reinterpret_cast<const uint8_t *>(text), std::strlen(text)));
}

TEST(Md2, Rfc1319TestVectors) {
  EXPECT_EQ(md2Of(""), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(md2Of("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(md2Of("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(md2Of("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(md2Of("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

const void **table(std::initializer_list<unsigned char> bytes) {
  static const void *t;
  CUuuid id;
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<unsigned char *>(id.bytes));
  t = nullptr;
  EXPECT_EQ(cuGetExportTable(&t, &id), CUDA_SUCCESS);
  return reinterpret_cast<const void **>(const_cast<void *>(t));
}

class ExportTable : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }
  CUcontext ctx = nullptr;
};

TEST_F(ExportTable, UnknownTableAndBadArguments) {
  const void *t;
  CUuuid id{};
  EXPECT_EQ(cuGetExportTable(&t, &id), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetExportTable(nullptr, &id), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetExportTable(&t, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ExportTable, PrimaryContextAndToolsBuffers) {
  const void **t2 = table({0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39,
                           0x12, 0xfd, 0x9d, 0xf9});
  auto retain = reinterpret_cast<CUresult (*)(CUcontext *, CUdevice)>(t2[2]);
  CUcontext primary = nullptr;
  ASSERT_EQ(retain(&primary, 0), CUDA_SUCCESS);
  EXPECT_NE(primary, nullptr);
  EXPECT_EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);

  const void **t3 = table({0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00,
                           0x20, 0x0c, 0x0a, 0x66});
  EXPECT_GE(reinterpret_cast<size_t>(t3[0]), 0x38u);
  for (int slot : {2, 6}) {
    auto get = reinterpret_cast<CUresult (*)(void **, size_t *)>(t3[slot]);
    void *buf = nullptr;
    size_t size = 0;
    ASSERT_EQ(get(&buf, &size), CUDA_SUCCESS);
    ASSERT_GE(size, 523u);
    for (size_t i = 0; i < size; ++i)
      ASSERT_EQ(static_cast<unsigned char *>(buf)[i], 0);
  }
}

TEST_F(ExportTable, ContextLocalStorage) {
  const void **t5 = table({0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3,
                           0x55, 0xd8, 0x95, 0x93});
  auto put = reinterpret_cast<CUresult (*)(CUcontext, void *, void *, void *)>(t5[0]);
  auto del = reinterpret_cast<CUresult (*)(CUcontext, void *)>(t5[1]);
  auto get = reinterpret_cast<CUresult (*)(void **, CUcontext, void *)>(t5[2]);
  int key, value;
  void *out = nullptr;
  EXPECT_NE(get(&out, nullptr, &key), CUDA_SUCCESS);
  ASSERT_EQ(put(nullptr, &key, &value, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(get(&out, ctx, &key), CUDA_SUCCESS); // null means the current context
  EXPECT_EQ(out, &value);
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  EXPECT_NE(get(&out, other, &key), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  EXPECT_EQ(del(nullptr, &key), CUDA_SUCCESS);
  EXPECT_NE(get(&out, ctx, &key), CUDA_SUCCESS);
}

TEST_F(ExportTable, ContextSetupReportsNothing) {
  const void **t6 = table({0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5,
                           0x00, 0x6d, 0xfa, 0x7e});
  EXPECT_EQ(reinterpret_cast<CUresult (*)()>(t6[3])(), CUDA_SUCCESS);
  uint32_t out1 = 7;
  void *out2 = &out1;
  auto setup = reinterpret_cast<CUresult (*)(CUcontext, uint32_t *, void **)>(t6[2]);
  EXPECT_EQ(setup(ctx, &out1, &out2), CUDA_SUCCESS);
  EXPECT_EQ(out1, 0u);
  EXPECT_EQ(out2, nullptr);
}

TEST_F(ExportTable, IntegrityCheckFixedVersions) {
  const void **t7 = table({0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12,
                           0x3c, 0x66, 0xe1, 0xf2});
  auto check = reinterpret_cast<CUresult (*)(uint32_t, uint64_t, uint64_t *)>(t7[1]);
  uint64_t r[2];
  ASSERT_EQ(check(13000, 1700000000, r), CUDA_SUCCESS);
  EXPECT_EQ(r[0], 0x3341181C03CB675CULL);
  EXPECT_EQ(r[1], 0x8ED383AA1F4CD1E8ULL);
  ASSERT_EQ(check(13001, 1700000000, r), CUDA_SUCCESS);
  EXPECT_EQ(r[0], 0x1841181C03CB675CULL);
  EXPECT_EQ(r[1], 0x8ED383AA1F4CD1E8ULL);
  // 13002 depends on the time (and the process): different seconds, different results.
  uint64_t a[2], b[2];
  ASSERT_EQ(check(13002, 1700000000, a), CUDA_SUCCESS);
  ASSERT_EQ(check(13002, 1700000001, b), CUDA_SUCCESS);
  EXPECT_NE(std::memcmp(a, b, sizeof a), 0);
}

} // namespace

// The tools interface's context and module tables that cudart 13.4+ (cuda-bindings) and cuFFT
// ask for before anything else: without them every runtime call failed. Sizes and empty slots as
// an H100 with driver 580 reports them (tests/gpu/record_python_stack.cpp); a slot cucpu does
// not implement says so instead of pretending.
TEST_F(ExportTable, ToolsContextAndModuleTablesHaveTheDriversShape) {
  struct Shape {
    std::initializer_list<unsigned char> uuid;
    size_t slots, empty;
  };
  const Shape shapes[] = {
      {{0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8,
        0xf2},
       93,
       91},
      {{0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d, 0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99,
        0x1e},
       99,
       93},
  };
  for (const Shape &s : shapes) {
    const void **t = table(s.uuid);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t[0]), s.slots * sizeof(void *));
    for (size_t i = 1; i < s.slots; ++i)
      EXPECT_EQ(t[i] == nullptr, i == s.empty) << "slot " << i;
    EXPECT_EQ(reinterpret_cast<CUresult (*)()>(const_cast<void *>(t[1]))(),
              CUDA_ERROR_NOT_SUPPORTED);
  }
}

// The slots NVIDIA's libraries call, as an H200 answers them (tests/gpu/answers/library_tables.txt,
// traced with tests/gpu/trace_export_tables.cpp): cuBLASLt's current context, context id and
// heuristics-cache key, and cuFFT's enumeration of a module's kernels.
const std::initializer_list<unsigned char> kCurrentContext = {
    0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
const std::initializer_list<unsigned char> kToolsContext = {
    0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2};
const std::initializer_list<unsigned char> kToolsModule = {
    0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d, 0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99, 0x1e};

TEST_F(ExportTable, CublasLtTakesTheCurrentContextAndItsId) {
  auto current = reinterpret_cast<CUresult (*)(CUcontext *)>(table(kCurrentContext)[2]);
  CUcontext got = nullptr;
  ASSERT_EQ(current(&got), CUDA_SUCCESS);
  EXPECT_EQ(got, ctx);

  const void **tools = table(kToolsContext);
  auto idOf = reinterpret_cast<CUresult (*)(CUcontext, unsigned long long *)>(tools[4]);
  unsigned long long id = 0, want = 0;
  ASSERT_EQ(idOf(ctx, &id), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetId(ctx, &want), CUDA_SUCCESS);
  EXPECT_EQ(id, want);

  // Slot 51 gives a per-context handle, slot 39 its key: equal for one context, different for two.
  auto handleOf = reinterpret_cast<CUresult (*)(CUcontext, unsigned long long, void **, int)>(
      tools[51]);
  auto keyOf = reinterpret_cast<CUresult (*)(CUcontext, void *, unsigned long long *)>(tools[39]);
  auto key = [&](CUcontext c) {
    void *handle = nullptr;
    unsigned long long k = 0;
    EXPECT_EQ(handleOf(c, 0, &handle, 0), CUDA_SUCCESS);
    EXPECT_NE(handle, nullptr);
    EXPECT_EQ(keyOf(c, handle, &k), CUDA_SUCCESS);
    return k;
  };
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(key(ctx), key(ctx));
  EXPECT_NE(key(ctx), key(other));
  EXPECT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

static void keepFunction(void *user, CUfunction f) {
  static_cast<std::vector<CUfunction> *>(user)->push_back(f);
}

TEST_F(ExportTable, CufftEnumeratesTheKernelsOfAModule) {
  const char *ptx = ".version 7.0\n.target sm_50\n.address_size 64\n"
                    ".visible .entry only() { ret; }\n";
  CUmodule mod;
  ASSERT_EQ(cuModuleLoadData(&mod, ptx), CUDA_SUCCESS);
  auto each = reinterpret_cast<int (*)(CUcontext, CUmodule, void (*)(void *, CUfunction), void *)>(
      table(kToolsModule)[7]);
  std::vector<CUfunction> seen;
  EXPECT_EQ(each(ctx, mod, keepFunction, &seen), 1); // the H200's answer for a one-kernel module
  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, mod, "only"), CUDA_SUCCESS);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], f);
  EXPECT_EQ(cuModuleUnload(mod), CUDA_SUCCESS);
}
