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
  ASSERT_NE(it->second.rfind("ERROR", 0), 0u) << "the GPU run failed: " << it->second;
  std::string problem;
  try {
    problem = conformance::compare(c, conformance::runCase(kDir + "/cases", c),
                                   conformance::fromHex(it->second));
  } catch (const std::exception &e) {
    problem = e.what();
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
