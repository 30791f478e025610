// Test helpers: load PTX through jit::Program and run a grid block by block on this thread.
#pragma once

#include "cucpu/jit/program.h"
#include "kernel_abi.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

inline std::string readSource(const char *rel) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::unique_ptr<cucpu::jit::Program> load(const std::string &ptx) {
  std::string log;
  auto p = cucpu::jit::Program::load(ptx, log);
  EXPECT_TRUE(p.hasValue()) << log;
  return p.hasValue() ? std::move(*p) : nullptr;
}

// Runs every block of a grid serially through the block function, `perCall` consecutive blocks
// per call (the function steps ctaid itself for cucpu_block::more); `flags`: CUCPU_LAUNCH_*.
inline void runGrid(cucpu::jit::Program &prog, const char *name, const uint32_t grid[3],
                    const uint32_t block[3], std::vector<void *> args, uint32_t dynShared = 0,
                    uint32_t perCall = 1, uint32_t flags = 0) {
  const auto *k = prog.findKernel(name);
  ASSERT_NE(k, nullptr);
  auto fn = prog.blockFunction(*k, block);
  ASSERT_TRUE(fn.hasValue()) << fn.error().message();
  std::vector<uint8_t> params(k->paramBytes + 8);
  ASSERT_EQ(args.size(), k->params.size());
  for (size_t i = 0; i < args.size(); ++i)
    std::memcpy(params.data() + k->params[i].offset, args[i], k->params[i].size);
  cucpu_launch l{};
  uint32_t env[32] = {};
  std::memcpy(l.grid, grid, sizeof l.grid);
  std::memcpy(l.block, block, sizeof l.block);
  l.params = params.data();
  l.dyn_shared_bytes = dynShared;
  l.nthreads = block[0] * block[1] * block[2];
  l.envreg = env;
  l.flags = flags;
  std::vector<uint8_t> shared(k->dynamicSharedOffset + dynShared + 64);
  std::vector<uint8_t> scratch(size_t(k->scratchBytesPerThread) * l.nthreads + 64);
  cucpu_block b{};
  b.shared = shared.data();
  b.scratch = scratch.data();
  const uint64_t total = uint64_t(grid[0]) * grid[1] * grid[2];
  for (uint64_t i = 0; i < total; i += perCall) {
    b.ctaid[0] = static_cast<uint32_t>(i % grid[0]);
    b.ctaid[1] = static_cast<uint32_t>(i / grid[0] % grid[1]);
    b.ctaid[2] = static_cast<uint32_t>(i / (uint64_t(grid[0]) * grid[1]));
    b.more = static_cast<uint32_t>(std::min<uint64_t>(perCall, total - i) - 1);
    (*fn)(&l, &b);
  }
}

// The input of the kernels tests/gpu/record_outputs.cpp runs on a GPU: in[t] = (t * 37 + 11) % 101.
inline std::vector<int> recordedInput(int n) {
  std::vector<int> in(n);
  for (int t = 0; t < n; ++t)
    in[t] = (t * 37 + 11) % 101;
  return in;
}

// `out` against the bytes a GPU wrote for `kernel` (`dir`/<kernel>.bin, recorded by
// tests/gpu/record_outputs.cpp).
template <typename T>
void expectSameAsGpu(const std::string &dir, const char *kernel, const std::vector<T> &out) {
  std::string gpu = readSource((dir + "/" + kernel + ".bin").c_str());
  ASSERT_EQ(gpu.size(), out.size() * sizeof(T)) << kernel;
  EXPECT_EQ(std::memcmp(gpu.data(), out.data(), gpu.size()), 0)
      << kernel << " differs from the GPU";
}
