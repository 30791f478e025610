// A warp's fragments of a matrix product: where each lane's registers hold which elements of A,
// B, C and D (the ISA's mma.sync layouts, or wmma's element order), and the moves between the
// lanes' published registers and whole row-major tiles.
#pragma once

#include "cucpu/devicelib/devicelib.h"
#include "kernel_abi.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace cucpu::devicelib {

bool isFloat(uint16_t format);

// Whole matrices of one product, raw element bits, row-major.
struct Tiles {
  static constexpr int kMax = 256 * 16; // elements of the largest matrix (m16n8k256's A)
  uint64_t a[kMax], b[kMax], c[kMax], d[kMax];
};

constexpr int kLanes = 32;
constexpr int kMaxPerLane = Tiles::kMax / kLanes;

// One matrix's fragments: element i of lane l is tile element index[l][i]; it sits in register
// i / perReg (regBytes each, from `offset` in the lane's slot) at bit (i % perReg) * bits.
struct FragmentMap {
  int elements = 0, bits = 0, perReg = 1, regBytes = 4, regs = 0, offset = 0;
  std::array<std::array<uint16_t, kMaxPerLane>, kLanes> index{};
};

enum class Which { A, B, C, D };

// The map of one matrix of a product (computed once per description, kept per thread).
const FragmentMap &fragmentMap(const cucpu_mma_desc &d, Which w);

// f(tile index, element bits) for every element the first `lanes` lanes hold.
template <class F>
void forEachElement(const FragmentMap &m, const uint8_t *pub, uint64_t stride, uint32_t lanes,
                    F &&f) {
  const uint64_t mask = m.bits == 64 ? ~uint64_t(0) : (uint64_t(1) << m.bits) - 1;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    const uint8_t *p = pub + lane * stride + m.offset;
    const uint16_t *index = m.index[lane].data();
    for (int r = 0, i = 0; r < m.regs && i < m.elements; ++r) {
      uint64_t reg = 0;
      std::memcpy(&reg, p + r * m.regBytes, m.regBytes == 8 ? 8 : 4);
      for (int e = 0; e < m.perReg && i < m.elements; ++e, ++i)
        f(index[i], (reg >> (e * m.bits)) & mask);
    }
  }
}

// The same for elements of BITS (16 or 32) bits in 32-bit registers: the loop over a register's
// elements unrolls.
template <int BITS, class F>
void forEachElementOf(const FragmentMap &m, const uint8_t *pub, uint64_t stride, uint32_t lanes,
                      F &&f) {
  static_assert(BITS == 16 || BITS == 32);
  constexpr int kPerReg = 32 / BITS;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    const uint8_t *p = pub + lane * stride + m.offset;
    const uint16_t *index = m.index[lane].data();
    for (int r = 0; r < m.elements / kPerReg; ++r) {
      uint32_t reg;
      std::memcpy(&reg, p + 4 * r, 4);
      for (int e = 0; e < kPerReg; ++e)
        f(index[r * kPerReg + e], uint64_t(BITS == 32 ? reg : (reg >> (e * BITS)) & 0xffffu));
    }
  }
}

// The lanes' registers (published one after another: A, B, C) into the tiles; lanes beyond
// `lanes` read as zero.
void gather(const cucpu_mma_desc &d, const uint8_t *pub, uint64_t stride, uint32_t lanes, Tiles &t);
// D's tile into the lanes' result registers.
void scatter(const cucpu_mma_desc &d, const Tiles &t, uint8_t *res, uint64_t stride,
             uint32_t lanes);

} // namespace cucpu::devicelib
