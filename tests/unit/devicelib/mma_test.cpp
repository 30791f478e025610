// The device library's warp-level matrix products against an H200's: every configuration of
// tests/gpu/mma/mma_configs.h, fragments built per lane as the recorder's kernels build them
// (mma.sync in the ISA's layouts, wmma in the library's element order), D compared bit for bit
// with tests/gpu/answers/mma/<name>.bin. CUCPU_MMA_ANSWERS=<dir> and CUCPU_MMA_TESTS=<n> compare
// with a fuller recording instead (record_mma's output).
#include "../../gpu/mma/mma_configs.h"
#include "kernel_abi.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

uint16_t format(MmaFmt f) {
  switch (f) {
  case kF16:
    return CUCPU_MF_F16;
  case kBF16:
    return CUCPU_MF_BF16;
  case kTF32:
    return CUCPU_MF_TF32;
  case kF32:
    return CUCPU_MF_F32;
  case kF64:
    return CUCPU_MF_F64;
  case kS8:
    return CUCPU_MF_S8;
  case kU8:
    return CUCPU_MF_U8;
  case kS4:
    return CUCPU_MF_S4;
  case kU4:
    return CUCPU_MF_U4;
  case kB1:
    return CUCPU_MF_B1;
  case kE4M3:
    return CUCPU_MF_E4M3;
  case kE5M2:
    return CUCPU_MF_E5M2;
  default:
    return CUCPU_MF_S32;
  }
}

std::vector<char> readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Layout {
  int elements, bits, perReg, regBytes, regs;
};

Layout layoutOf(MmaFmt f, int elements) {
  const int bits = mmaElementBits(f);
  const int perReg = bits >= 32 ? 1 : 32 / bits;
  const int regBytes = bits == 64 ? 8 : 4;
  return {elements, bits, perReg, regBytes, (elements + perReg - 1) / perReg};
}

void put(uint8_t *frag, const Layout &l, int i, uint64_t v) {
  uint8_t *r = frag + (i / l.perReg) * l.regBytes;
  uint64_t reg = 0;
  std::memcpy(&reg, r, size_t(l.regBytes));
  reg |= v << ((i % l.perReg) * l.bits);
  std::memcpy(r, &reg, size_t(l.regBytes));
}

uint64_t get(const uint8_t *frag, const Layout &l, int i) {
  uint64_t reg = 0;
  std::memcpy(&reg, frag + (i / l.perReg) * l.regBytes, size_t(l.regBytes));
  return l.bits == 64 ? reg : (reg >> ((i % l.perReg) * l.bits)) & ((uint64_t(1) << l.bits) - 1);
}

// Runs `ntests` tests of configuration ci; returns the mismatching elements' descriptions.
std::vector<std::string> run(int ci, int ntests, const std::vector<char> &want) {
  const MmaConfig &cfg = kMmaConfigs[ci];
  const bool wmma = std::strncmp(cfg.name, "wmma_", 5) == 0;
  const int m = cfg.m, n = cfg.n, k = cfg.k;
  const Layout la = layoutOf(cfg.a, m * k / 32), lb = layoutOf(cfg.b, k * n / 32),
               lc = layoutOf(cfg.c, m * n / 32);
  cucpu_mma_desc d{};
  d.m = uint16_t(m), d.n = uint16_t(n), d.k = uint16_t(k);
  d.a = format(cfg.a), d.b = format(cfg.b), d.c = d.d = format(cfg.c);
  d.a_regs = uint16_t(la.regs), d.b_regs = uint16_t(lb.regs),
  d.c_regs = d.d_regs = uint16_t(lc.regs);
  d.reg_bytes[0] = uint16_t(la.regBytes), d.reg_bytes[1] = uint16_t(lb.regBytes);
  d.reg_bytes[2] = d.reg_bytes[3] = uint16_t(lc.regBytes);
  d.flags = uint16_t((wmma ? CUCPU_MMA_WMMA : 0) |
                     (std::strstr(cfg.name, "_sat") ? CUCPU_MMA_SATFINITE : 0));
  const size_t stride = 256, aOff = 0, bOff = size_t(la.regs * la.regBytes),
               cOff = bOff + size_t(lb.regs * lb.regBytes);
  const int cbytes = lc.bits / 8;
  std::vector<std::string> bad;
  for (int t = 0; t < ntests; ++t) {
    std::vector<uint8_t> pub(32 * stride, 0), res(32 * stride, 0);
    for (int lane = 0; lane < 32; ++lane) {
      uint8_t *p = pub.data() + lane * stride;
      int row, col;
      for (int i = 0; i < la.elements; ++i) {
        if (wmma)
          row = (i * 32 + lane) / k, col = (i * 32 + lane) % k;
        else
          mmaPosA(i, la.perReg, lane, row, col);
        put(p + aOff, la, i, mmaInput(cfg, ci, t, 0, row, col));
      }
      for (int i = 0; i < lb.elements; ++i) {
        if (wmma)
          row = (i * 32 + lane) / n, col = (i * 32 + lane) % n;
        else
          mmaPosB(i, lb.perReg, lane, row, col);
        put(p + bOff, lb, i, mmaInput(cfg, ci, t, 1, row, col));
      }
      for (int i = 0; i < lc.elements; ++i) {
        if (wmma)
          row = (i * 32 + lane) / n, col = (i * 32 + lane) % n;
        else
          mmaPosC(i, lane, row, col);
        put(p + cOff, lc, i, mmaInput(cfg, ci, t, 2, row, col));
      }
    }
    cucpu_mma(&d, pub.data(), stride, res.data(), stride, 32);
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < lc.elements; ++i) {
        int row, col;
        if (wmma)
          row = (i * 32 + lane) / n, col = (i * 32 + lane) % n;
        else
          mmaPosC(i, lane, row, col);
        const uint64_t got = get(res.data() + lane * stride, lc, i);
        uint64_t expected = 0;
        std::memcpy(&expected, &want[(size_t(t) * m * n + size_t(row * n + col)) * cbytes],
                    size_t(cbytes));
        if (got != expected && bad.size() < 8)
          bad.push_back("test " + std::to_string(t) + " (mode " + std::to_string(t % kMmaModes) +
                        ") D[" + std::to_string(row) + "][" + std::to_string(col) +
                        "] = " + std::to_string(got) + ", the GPU's " + std::to_string(expected));
      }
  }
  return bad;
}

class Mma : public ::testing::TestWithParam<int> {};

TEST_P(Mma, MatchesTheGpuBitForBit) {
  const MmaConfig &cfg = kMmaConfigs[GetParam()];
  const char *dir = std::getenv("CUCPU_MMA_ANSWERS");
  const std::string path =
      std::string(dir ? dir : CUCPU_SOURCE_DIR "/tests/gpu/answers/mma") + "/" + cfg.name + ".bin";
  const std::vector<char> want = readAll(path);
  const size_t perTest = size_t(cfg.m) * cfg.n * (mmaElementBits(cfg.c) / 8);
  ASSERT_GT(want.size(), 0u) << path;
  int ntests = int(want.size() / perTest);
  if (const char *n = std::getenv("CUCPU_MMA_TESTS"))
    ntests = std::min(ntests, std::atoi(n));
  const std::vector<std::string> bad = run(GetParam(), ntests, want);
  for (const auto &b : bad)
    ADD_FAILURE() << cfg.name << ": " << b;
}

std::string nameOf(const ::testing::TestParamInfo<int> &info) {
  return kMmaConfigs[info.param].name;
}

INSTANTIATE_TEST_SUITE_P(Configurations, Mma, ::testing::Range(0, kMmaConfigCount), nameOf);

} // namespace
