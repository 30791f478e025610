// One gtest per conformance case: cucpu's output against the recorded GPU output.
#include "harness.h"

#include <gtest/gtest.h>

#include <fstream>
#include <ostream>
#include <map>

namespace conformance {
// gtest prints the case by name in test listings.
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }
} // namespace conformance

namespace {

const std::string kDir = CUCPU_CONFORMANCE_DIR;

// known_failures.txt: "<case name> <reason>" for cases cucpu does not pass yet.
const std::map<std::string, std::string> &knownFailures() {
  static const auto m = conformance::loadExpected(kDir + "/known_failures.txt");
  return m;
}

class Conformance : public ::testing::TestWithParam<conformance::Case> {
protected:
  static void SetUpTestSuite() { conformance::initDevice(); }
};

TEST_P(Conformance, Run) {
  const conformance::Case &c = GetParam();
  auto expected = conformance::loadExpected(kDir + "/expected/" + c.stem + ".txt");
  auto it = expected.find(c.name);
  ASSERT_NE(it, expected.end()) << "no recorded output for " << c.name;
  const bool gpuFailed = it->second.rfind("ERROR ", 0) == 0;
  ASSERT_EQ(gpuFailed, c.expectError)
      << (gpuFailed ? "the GPU run failed: " : "the GPU run did not fail (expect=error): ")
      << it->second;
  std::string problem;
  try {
    auto got = conformance::runCase(kDir + "/cases", c);
    problem = gpuFailed ? "the run did not fail as the GPU's did: " + it->second
                        : conformance::compare(c, got, conformance::fromHex(it->second));
  } catch (const std::exception &e) {
    const std::string msg = e.what();
    problem = gpuFailed && "ERROR " + msg == it->second ? "" : msg;
    if (msg.find("cuModuleLoadDataEx") == std::string::npos)
      conformance::initDevice(true); // a fault (a trap) leaves the context unusable
  }
  auto known = knownFailures().find(c.name);
  if (known != knownFailures().end()) {
    ASSERT_FALSE(problem.empty()) << c.name << " passes: remove it from known_failures.txt";
    GTEST_SKIP() << "known failure: " << known->second << "\n" << problem;
  }
  EXPECT_TRUE(problem.empty()) << c.stem << ".cu:" << c.line << " " << c.name << "\n"
                               << problem;
}

std::string caseName(const ::testing::TestParamInfo<conformance::Case> &info) {
  std::string s = info.param.name;
  for (auto &ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Case, Conformance,
                         ::testing::ValuesIn(conformance::loadCases(kDir + "/cases")), caseName);

} // namespace
