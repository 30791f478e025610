// Address operands: a 32-bit register and its immediate offset add modulo 2^32, as on the GPU.
// cuBLAS's transpose kernels index a shared tile with a register that points below the tile for
// some threads and an offset that brings it back ([%r17+8320]).
#include "run_grid.h"

namespace {

TEST(Addresses, ThirtyTwoBitRegisterAndOffsetWrapTogether) {
  auto prog = load(readSource("tests/unit/jit/address_kernels.ptx"));
  ASSERT_TRUE(prog);
  std::vector<uint32_t> out(16, 0xdeadbeef);
  uint32_t *p = out.data();
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {16, 1, 1};
  runGrid(*prog, "wrapped", grid, block, {&p});
  for (uint32_t t = 0; t < 16; ++t)
    EXPECT_EQ(out[t], t) << "thread " << t;
}

} // namespace
