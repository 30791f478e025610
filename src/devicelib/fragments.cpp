// Fragment layouts, computed once per product description and kept per thread, and the moves
// between the lanes' registers and whole tiles.
#include "fragments.h"

#include <array>
#include <cstring>
#include <memory>
#include <vector>

namespace cucpu::devicelib {

int elementBits(uint16_t f) {
  switch (f) {
  case CUCPU_MF_F64:
    return 64;
  case CUCPU_MF_F32:
  case CUCPU_MF_TF32:
  case CUCPU_MF_S32:
    return 32;
  case CUCPU_MF_F16:
  case CUCPU_MF_BF16:
    return 16;
  case CUCPU_MF_S4:
  case CUCPU_MF_U4:
    return 4;
  case CUCPU_MF_B1:
    return 1;
  default:
    return 8;
  }
}

bool isFloat(uint16_t f) {
  return f == CUCPU_MF_F16 || f == CUCPU_MF_BF16 || f == CUCPU_MF_TF32 || f == CUCPU_MF_F32 ||
         f == CUCPU_MF_F64 || f == CUCPU_MF_E4M3 || f == CUCPU_MF_E5M2;
}

namespace {

struct Layout {
  cucpu_mma_desc desc;
  FragmentMap a, b, c, d;
};

// The ISA's layouts for the m16n8kK shapes (the m8n8 shapes are their first rows) with e
// elements per register, or wmma's order.
void position(const cucpu_mma_desc &d, Which w, int i, int e, int lane, int &row, int &col) {
  const int cols = w == Which::A ? d.k : d.n;
  if (d.flags & CUCPU_MMA_WMMA) {
    row = (i * kLanes + lane) / cols;
    col = (i * kLanes + lane) % cols;
    return;
  }
  const int g = lane >> 2, t = lane & 3, r = i / e;
  switch (w) {
  case Which::A:
    row = g + 8 * (r % 2);
    col = t * e + i % e + (r / 2) * 4 * e;
    break;
  case Which::B:
    row = t * e + i % e + r * 4 * e;
    col = g;
    break;
  case Which::C:
  case Which::D:
    row = g + 8 * (i / 2);
    col = 2 * t + i % 2;
    break;
  }
}

void build(const cucpu_mma_desc &d, Which w, uint16_t format, int regs, int regBytes, int offset,
           FragmentMap &m) {
  const int rows = w == Which::B ? d.k : d.m, cols = w == Which::A ? d.k : d.n;
  m.bits = elementBits(format);
  m.perReg = m.bits >= 32 ? 1 : 32 / m.bits;
  m.regBytes = regBytes;
  m.regs = regs;
  m.offset = offset;
  m.elements = rows * cols / kLanes;
  for (int lane = 0; lane < kLanes; ++lane)
    for (int i = 0; i < m.elements; ++i) {
      int row, col;
      position(d, w, i, m.perReg, lane, row, col);
      m.index[size_t(lane)][size_t(i)] = uint16_t(row * cols + col);
    }
}

const Layout &layoutOf(const cucpu_mma_desc &d) {
  thread_local std::vector<std::unique_ptr<Layout>> cache;
  for (const auto &l : cache)
    if (std::memcmp(&l->desc, &d, sizeof d) == 0)
      return *l;
  auto l = std::make_unique<Layout>();
  l->desc = d;
  const int bOff = d.a_regs * d.reg_bytes[0], cOff = bOff + d.b_regs * d.reg_bytes[1];
  build(d, Which::A, d.a, d.a_regs, d.reg_bytes[0], 0, l->a);
  build(d, Which::B, d.b, d.b_regs, d.reg_bytes[1], bOff, l->b);
  build(d, Which::C, d.c, d.c_regs, d.reg_bytes[2], cOff, l->c);
  build(d, Which::D, d.d, d.d_regs, d.reg_bytes[3], 0, l->d);
  if (cache.size() >= 64)
    cache.erase(cache.begin());
  cache.push_back(std::move(l));
  return *cache.back();
}

void gatherOne(const FragmentMap &m, const uint8_t *pub, uint64_t stride, uint32_t lanes,
               uint64_t *tile, int tileElements) {
  std::memset(tile, 0, sizeof(uint64_t) * size_t(tileElements));
  forEachElement(m, pub, stride, lanes, [&](uint16_t at, uint64_t bits) { tile[at] = bits; });
}

} // namespace

const FragmentMap &fragmentMap(const cucpu_mma_desc &d, Which w) {
  const Layout &l = layoutOf(d);
  return w == Which::A ? l.a : w == Which::B ? l.b : w == Which::C ? l.c : l.d;
}

void gather(const cucpu_mma_desc &d, const uint8_t *pub, uint64_t stride, uint32_t lanes,
            Tiles &t) {
  const Layout &l = layoutOf(d);
  gatherOne(l.a, pub, stride, lanes, t.a, d.m * d.k);
  gatherOne(l.b, pub, stride, lanes, t.b, d.k * d.n);
  gatherOne(l.c, pub, stride, lanes, t.c, d.m * d.n);
}

void scatter(const cucpu_mma_desc &d, const Tiles &t, uint8_t *res, uint64_t stride,
             uint32_t lanes) {
  const FragmentMap &m = layoutOf(d).d;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    uint8_t *p = res + lane * stride;
    const uint16_t *index = m.index[lane].data();
    for (int r = 0, i = 0; r < m.regs; ++r) {
      uint64_t reg = 0;
      for (int e = 0; e < m.perReg && i < m.elements; ++e, ++i)
        reg |= t.d[index[i]] << (e * m.bits);
      std::memcpy(p + r * m.regBytes, &reg, m.regBytes == 8 ? 8 : 4);
    }
  }
}

} // namespace cucpu::devicelib
