// The device arena: alignment of every size class, blocks that never overlap under random
// allocation and freeing (checked against a host reference of the live blocks), refusal of
// foreign, inner and double frees, owners kept apart, and the inaccessible pages around spans.
#include "device_arena.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

namespace cucpu::driver {
namespace {

TEST(DeviceArena, BlocksAreAlignedAndSizedByClass) {
  DeviceArena arena;
  for (size_t bytes :
       std::initializer_list<size_t>{1, 16, 17, 100, 255, 256, 257, 1000, 4096, 5000, 65536, 65537,
                                     300000, 2u << 20, (2u << 20) + 1}) {
    size_t taken = 0;
    void *p = arena.allocate(bytes, &taken);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_GE(taken, bytes);
    const auto a = reinterpret_cast<uintptr_t>(p);
    // cuMemAlloc's alignment; device malloc's small classes are aligned to their size
    EXPECT_EQ(a % (bytes > 128 ? 256 : taken), 0u) << bytes;
    EXPECT_EQ(a % (bytes >= DeviceArena::kHugePage ? DeviceArena::kHugePage : 1), 0u) << bytes;
    std::memset(p, 0xab, bytes);
    uintptr_t base;
    size_t size;
    ASSERT_TRUE(arena.blockOf(a + bytes - 1, &base, &size));
    EXPECT_EQ(base, a);
    EXPECT_EQ(size, taken);
    EXPECT_TRUE(arena.release(p));
  }
  EXPECT_EQ(arena.liveBytes(), 0u);
}

TEST(DeviceArena, RandomTrafficNeverOverlaps) {
  DeviceArena arena;
  std::mt19937_64 rng(7);
  std::map<uintptr_t, std::pair<size_t, unsigned char>> live; // base -> (bytes, fill)
  size_t expectLive = 0;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const size_t bytes = rng() % 4 == 0 ? 1 + rng() % 400000 : 1 + rng() % 3000;
      size_t taken = 0;
      auto *p = static_cast<unsigned char *>(arena.allocate(bytes, &taken));
      ASSERT_NE(p, nullptr);
      const auto a = reinterpret_cast<uintptr_t>(p);
      auto next = live.lower_bound(a);
      if (next != live.end()) {
        ASSERT_LE(a + bytes, next->first);
      }
      if (next != live.begin()) {
        ASSERT_LE(std::prev(next)->first + std::prev(next)->second.first, a);
      }
      const auto fill = static_cast<unsigned char>(step);
      std::memset(p, fill, bytes);
      live[a] = {bytes, fill};
      expectLive += taken;
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      auto *p = reinterpret_cast<unsigned char *>(it->first);
      for (size_t i = 0; i < it->second.first; i += 97)
        ASSERT_EQ(p[i], it->second.second); // nobody else wrote into the block
      size_t size = 0;
      ASSERT_TRUE(arena.release(p, DeviceArena::Owner::Driver, &size));
      expectLive -= size;
      live.erase(it);
    }
  }
  EXPECT_EQ(arena.liveBytes(), expectLive);
}

TEST(DeviceArena, RefusesWhatItDidNotHandOut) {
  DeviceArena arena;
  size_t taken;
  auto *small = static_cast<char *>(arena.allocate(300, &taken));
  auto *large = static_cast<char *>(arena.allocate(1 << 20, &taken));
  int onStack = 0;
  EXPECT_FALSE(arena.release(&onStack));
  EXPECT_FALSE(arena.release(small + 256)); // inside a block
  EXPECT_FALSE(arena.release(small + 512)); // a free slot
  EXPECT_FALSE(arena.release(large + 4096));
  EXPECT_FALSE(arena.release(small, DeviceArena::Owner::DeviceHeap)); // the driver's block
  EXPECT_TRUE(arena.release(small));
  EXPECT_FALSE(arena.release(small)); // twice
  EXPECT_TRUE(arena.release(large));
  EXPECT_FALSE(arena.release(large));
  uintptr_t base;
  size_t size;
  EXPECT_FALSE(arena.blockOf(reinterpret_cast<uintptr_t>(small), &base, &size));
}

TEST(DeviceArena, FreedSlotsAreReusedAndEmptySlabsReturned) {
  DeviceArena arena;
  size_t taken;
  void *a = arena.allocate(1024, &taken);
  void *b = arena.allocate(1024, &taken);
  ASSERT_TRUE(arena.release(a));
  EXPECT_EQ(arena.allocate(1000, &taken), a); // the lowest free slot of the class
  // Fill a slab and then some: the extra slab is unmapped when emptied, its slots unknown.
  std::vector<void *> blocks;
  for (int i = 0; i < 600; ++i)
    blocks.push_back(arena.allocate(1024, &taken));
  for (void *p : blocks)
    ASSERT_TRUE(arena.release(p));
  ASSERT_TRUE(arena.release(a));
  ASSERT_TRUE(arena.release(b));
  EXPECT_EQ(arena.liveBytes(), 0u);
}

using DeviceArenaDeathTest = testing::Test;

TEST(DeviceArenaDeathTest, PagesAroundAndAfterSpansFault) {
  DeviceArena arena;
  size_t taken;
  auto *p = static_cast<volatile char *>(arena.allocate(65537, &taken));
  ASSERT_EQ(taken, 69632u); // 17 pages
  p[taken - 1] = 1;
  EXPECT_DEATH(p[taken] = 1, "");
  EXPECT_DEATH(p[-1] = 1, "");
  auto *q = static_cast<volatile char *>(arena.allocate(4 << 20, &taken));
  q[0] = 1;
  ASSERT_TRUE(arena.release(const_cast<char *>(q)));
  EXPECT_DEATH(q[0] = 1, ""); // freed spans are inaccessible at once
  // The last block of a slab: the slab's pages become inaccessible, as an H100 unmaps the page
  // of a freed 256-byte allocation (tests/gpu/record_arena.cpp)...
  auto *r = static_cast<volatile char *>(arena.allocate(256, &taken));
  ASSERT_TRUE(arena.release(const_cast<char *>(r)));
  EXPECT_DEATH(r[0] = 1, "");
  // ...and accessible again for the next block of its class.
  EXPECT_EQ(arena.allocate(200, &taken), const_cast<char *>(r));
  r[0] = 1;
}

} // namespace
} // namespace cucpu::driver
