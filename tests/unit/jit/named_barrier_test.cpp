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

// The pipeline kernel with its barrier operands `bar.sync 1, 64` etc. replaced by registers
// %nb1, %nb2 (ids) and %nb64 (count), which `setup` defines at the top of the body.
std::string pipelineWithRegisters(const std::string &setup) {
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
  EXPECT_NE(body, std::string::npos);
  ptx.insert(body + 1, "\n.reg .b32 %nb<65>;\n" + setup);
  EXPECT_EQ(ptx.find("bar.sync 1, 64"), std::string::npos);
  return ptx;
}

// Barrier ids and thread counts in registers, as inline assembly with "r" operands passes them
// (CUTLASS's named barriers): each register is only ever set to a constant.
TEST(NamedBarriers, IdsAndCountsInRegisters) {
  runPipeline(pipelineWithRegisters("mov.u32 %nb1, 1;\nmov.u32 %nb2, 2;\nmov.u32 %nb64, 64;\n"));
}

// Ids and counts computed at run time (each thread records the barrier it waits at); ids from
// 16 up name barrier id % 16, as an H100 runs them without an error.
TEST(NamedBarriers, IdsAndCountsComputedAtRunTime) {
  runPipeline(pipelineWithRegisters("mov.u32 %nb1, %tid.x;\nshr.u32 %nb1, %nb1, 10;\n"
                                    "add.u32 %nb2, %nb1, 2;\n"
                                    "add.u32 %nb1, %nb1, 1;\nadd.u32 %nb64, %nb1, 63;\n"));
  runPipeline(pipelineWithRegisters("mov.u32 %nb1, %ntid.y;\nadd.u32 %nb2, %nb1, 17;\n"
                                    "shl.b32 %nb64, %nb1, 6;\nadd.u32 %nb1, %nb1, 32;\n"));
}

// Different warps name different barriers at one instruction (ids computed from the warp
// index): warp w of a pair waits at barrier 1 + w / 2 for the other warp's arrival, which
// published its values; the other warps still wait at their own barriers meanwhile. Also under
// CUCPU_SCHEDULE=warp. A thread count that never completes (128 at a barrier only 64 threads
// reach) must not hang the block: the dispatcher runs the waiting threads anyway.
TEST(NamedBarriers, DifferentBarriersAtOneInstruction) {
  const std::string ptx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry pairs(.param .u64 out, .param .u32 count) {
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  .shared .align 4 .b32 buf[256];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;          // warp
  shr.u32 %r3, %r2, 1;
  add.u32 %r3, %r3, 1;          // barrier id 1 + warp / 2
  and.b32 %r4, %r2, 1;
  setp.eq.u32 %p, %r4, 1;
  ld.param.u32 %r9, [count];
  mul.lo.u32 %r5, %r1, 7;
  shl.b32 %r6, %r1, 2;
  mov.u32 %r7, buf;
  add.u32 %r6, %r7, %r6;
  @%p bra CONSUMER;
  st.shared.u32 [%r6], %r5;     // producer: publish 7 * tid, then arrive
  bar.arrive %r3, %r9;
  mov.u32 %r8, 0;
  bra DONE;
CONSUMER:
  bar.sync %r3, %r9;
  ld.shared.u32 %r8, [%r6+-128]; // the partner warp's lane
DONE:
  mov.u32 %r10, %ctaid.x;
  mul.lo.u32 %r11, %r10, 256;
  add.u32 %r11, %r11, %r1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r11, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  ret;
}
)";
  std::string log;
  auto loaded = cucpu::jit::Program::load(ptx, log);
  ASSERT_TRUE(loaded.hasValue()) << log;
  for (int count : {64, 128}) {
    std::vector<uint32_t> out(2 * 256, 0xdeadbeef);
    uint32_t *po = out.data();
    uint32_t grid[3] = {2, 1, 1}, block[3] = {256, 1, 1};
    runGrid(**loaded, "pairs", grid, block, {&po, &count}, 0, 2);
    for (uint32_t b = 0; b < 2; ++b)
      for (uint32_t t = 0; t < 256; ++t) {
        const uint32_t want = (t >> 5) & 1 ? (t - 32) * 7 : 0;
        ASSERT_EQ(out[b * 256 + t], want) << "count " << count << " block " << b << " thread " << t;
      }
  }
}

} // namespace
