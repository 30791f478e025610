// Registers declared without '%' inside { } scopes, as the inline assembly of CUB and NVIDIA's
// libraries declares them (`{ .reg .b32 r0; shfl.sync.down.b32 r0, ...; }`), are registers to
// every instruction: warp-level results land in them like in '%' registers.
#include "run_grid.h"

#include <cstdint>

namespace {

// One warp: each lane stores what a shfl without and with a predicate, a ballot and the active
// mask wrote into scoped registers without '%'.
const char *kScopedWarpResults = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry scopedWarpResults(.param .u64 out)
{
.reg .b32 %r<9>;
.reg .b64 %rd<4>;
.reg .pred %p<2>;
mov.u32 %r1, %tid.x;
mul.lo.u32 %r2, %r1, 7;
and.b32 %r3, %r1, 1;
setp.ne.u32 %p1, %r3, 0;
{
.reg .b32 r0;
.reg .b32 r1;
.reg .b32 b;
.reg .b32 m;
.reg .pred p;
shfl.sync.down.b32 r0, %r2, 1, 31, -1;
shfl.sync.up.b32 r1|p, %r2, 2, 0, -1;
vote.sync.ballot.b32 b, %p1, -1;
activemask.b32 m;
mov.b32 %r4, r0;
mov.b32 %r5, r1;
selp.b32 %r6, 1, 0, p;
mov.b32 %r7, b;
mov.b32 %r8, m;
}
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd1, %rd1;
mul.wide.u32 %rd2, %r1, 20;
add.s64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r4;
st.global.u32 [%rd3+4], %r5;
st.global.u32 [%rd3+8], %r6;
st.global.u32 [%rd3+12], %r7;
st.global.u32 [%rd3+16], %r8;
ret;
}
)";

TEST(ScopedRegister, WarpLevelResultsReachRegistersDeclaredWithoutPercent) {
  auto prog = load(kScopedWarpResults);
  ASSERT_TRUE(prog);
  std::vector<uint32_t> out(32 * 5, 0xdeadbeef);
  uint32_t *p = out.data();
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  runGrid(*prog, "scopedWarpResults", grid, block, {&p});
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t *r = &out[lane * 5];
    // PTX: a lane whose source is out of range gets its own value (and a false predicate).
    EXPECT_EQ(r[0], 7 * (lane < 31 ? lane + 1 : lane)) << "shfl.down, lane " << lane;
    EXPECT_EQ(r[1], 7 * (lane >= 2 ? lane - 2 : lane)) << "shfl.up, lane " << lane;
    EXPECT_EQ(r[2], lane >= 2 ? 1u : 0u) << "shfl.up's predicate, lane " << lane;
    EXPECT_EQ(r[3], 0xaaaaaaaau) << "ballot of odd lanes, lane " << lane;
    EXPECT_EQ(r[4], 0xffffffffu) << "activemask, lane " << lane;
  }
}

} // namespace
