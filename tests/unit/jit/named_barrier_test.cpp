// JIT: named barriers with thread counts (bar.sync a, b / bar.arrive a, b) carrying a
// producer/consumer protocol between two warps, against an exact host reference.
#include "run_grid.h"

#include <gtest/gtest.h>

namespace {

void runPipeline(const std::string &ptx) {
  std::string log;
  auto loaded = cucpu::jit::Program::load(ptx, log); // also under CUCPU_SCHEDULE=warp
  ASSERT_TRUE(loaded.hasValue()) << log;
  auto &prog = **loaded;
  for (auto [threads, rounds] : {std::pair{96, 7}, std::pair{64, 5}, std::pair{96, 1}}) {
    const int blocks = 2, extra = threads - 64;
    std::vector<int> in(blocks * rounds * 32), out(blocks * 32 + blocks * extra, -1);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = int(i % 17) - 8 + int(i / 32);
    int *pi = in.data(), *po = out.data();
    int rr = rounds;
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {uint32_t(threads), 1, 1};
    runGrid(prog, "pipeline", grid, block, {&pi, &po, &rr}, 0, 2);
    for (int b = 0; b < blocks; ++b) {
      for (int lane = 0; lane < 32; ++lane) {
        int want = 0;
        for (int r = 0; r < rounds; ++r)
          want += in[(b * rounds + r) * 32 + ((lane + r) & 31)] * 2 * (r + 1);
        ASSERT_EQ(out[b * 32 + lane], want)
            << threads << " threads, block " << b << " lane " << lane;
      }
      for (int t = 0; t < extra; ++t) {
        int want = in[(b * rounds + rounds - 1) * 32 + (t & 31)] * 2;
        ASSERT_EQ(out[blocks * 32 + b * extra + t], want) << "extra thread " << t;
      }
    }
  }
}

TEST(NamedBarriers, ProducerConsumerPipelineBetweenWarps) {
  runPipeline(readSource("tests/unit/jit/named_barrier_kernels.ptx"));
}

// The same with the barrier ids and thread counts in registers, as inline assembly with "r"
// operands passes them (CUTLASS's named barriers): each register is only ever set to a constant.
TEST(NamedBarriers, IdsAndCountsInRegisters) {
  std::string ptx = readSource("tests/unit/jit/named_barrier_kernels.ptx");
  auto replaceAll = [&](const std::string &from, const std::string &to) {
    for (size_t at = ptx.find(from); at != std::string::npos; at = ptx.find(from, at + to.size()))
      ptx.replace(at, from.size(), to);
  };
  for (const char *op : {"bar.sync", "bar.arrive"})
    for (int id : {1, 2})
      replaceAll(std::string(op) + " " + std::to_string(id) + ", 64;",
                 std::string(op) + " %nb" + std::to_string(id) + ", %nb64;");
  const size_t body = ptx.find('{', ptx.find(".entry pipeline"));
  ASSERT_NE(body, std::string::npos);
  ptx.insert(body + 1, "\n.reg .b32 %nb<65>;\nmov.u32 %nb1, 1;\nmov.u32 %nb2, 2;\n"
                       "mov.u32 %nb64, 64;\n");
  ASSERT_EQ(ptx.find("bar.sync 1, 64"), std::string::npos);
  runPipeline(ptx);
}

} // namespace
