// The nvJitLink front end's input reader on real nvcc output (a host object and a static library
// of objects with and without -rdc) and on nested archives, whose depth is bounded.
#include "cucpu/rtc/link_inputs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace {

using cucpu::rtc::collectUnits;
using cucpu::rtc::kInputAny;
using cucpu::rtc::LinkUnits;

std::string corpusFile(const char *name) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/fuzz/corpus-link/" + name,
                   std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An ar archive holding `member` once.
std::string archiveOf(const std::string &member) {
  char header[61];
  std::snprintf(header, sizeof header, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", "m.o/", "0", "0", "0",
                "644", member.size());
  std::string a = "!<arch>\n" + std::string(header, 60) + member;
  if (member.size() % 2)
    a += '\n';
  return a;
}

TEST(LinkInputs, HostObjectsAndLibrariesGiveTheirPtx) {
  for (const char *file : {"host_object.o", "host_object_rdc.o"}) {
    const std::string bytes = corpusFile(file);
    ASSERT_FALSE(bytes.empty()) << file;
    LinkUnits units;
    std::string log;
    ASSERT_TRUE(collectUnits(kInputAny, bytes.data(), bytes.size(), file, 80, &units, &log)) << log;
    ASSERT_EQ(units.ptx.size(), 1u) << file;
    EXPECT_NE(units.ptx[0].find(".entry _Z1kPi"), std::string::npos) << file;
  }
  const std::string lib = corpusFile("library.a");
  LinkUnits units;
  std::string log;
  ASSERT_TRUE(collectUnits(kInputAny, lib.data(), lib.size(), "library.a", 80, &units, &log))
      << log;
  EXPECT_EQ(units.ptx.size(), 2u);
}

// Found while fuzzing the reader (tests/fuzz/link_fuzz.cpp): every nesting level is a stack
// frame, so a large input of nested archive headers could exhaust the stack.
TEST(LinkInputs, ArchivesNestedBeyondEightLevelsAreRefused) {
  std::string nested = corpusFile("host_object.o");
  for (int depth = 1; depth <= 9; ++depth) {
    nested = archiveOf(nested);
    LinkUnits units;
    std::string log;
    const bool ok =
        collectUnits(kInputAny, nested.data(), nested.size(), "nested.a", 80, &units, &log);
    if (depth <= 8) {
      EXPECT_TRUE(ok) << depth << ": " << log;
      EXPECT_EQ(units.ptx.size(), 1u) << depth;
    } else {
      EXPECT_FALSE(ok);
      EXPECT_NE(log.find("nested"), std::string::npos) << log;
    }
  }
}

} // namespace
