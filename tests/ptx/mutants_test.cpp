// Accept/reject agreement with NVIDIA's ptxas on the mutation corpus (tests/ptx/mutants): every
// mutant is a real PTX file with one instruction changed; ptxas's verdict was recorded by
// make_mutants.py. cucpu must agree on at least 99% and never accept what the table rejects.
#include "cucpu/ptx/ast.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#ifndef CUCPU_SOURCE_DIR
#define CUCPU_SOURCE_DIR "."
#endif

namespace {

struct Mutant {
  std::string file;
  size_t line = 0;
  std::string kind, text, verdict, message;
};

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    out.push_back(cur);
  return out;
}

std::vector<Mutant> loadCorpus() {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/ptx/mutants/mutants.tsv");
  std::vector<Mutant> out;
  std::string row;
  while (std::getline(in, row)) {
    if (row.empty() || row[0] == '#')
      continue;
    auto f = split(row, '\t');
    if (f.size() < 5)
      continue;
    out.push_back({f[0], std::stoul(f[1]), f[2], f[3], f[4], f.size() > 5 ? f[5] : ""});
  }
  return out;
}

TEST(PtxasAgreement, MutationCorpus) {
  const auto corpus = loadCorpus();
  ASSERT_GT(corpus.size(), 1000u);
  std::map<std::string, std::vector<std::string>> files;
  size_t agree = 0;
  std::map<std::string, std::vector<std::string>> disagreements; // by kind of disagreement
  for (const auto &m : corpus) {
    auto &lines = files[m.file];
    if (lines.empty()) {
      std::ifstream src(std::string(CUCPU_SOURCE_DIR) + "/" + m.file);
      std::string l;
      while (std::getline(src, l))
        lines.push_back(l);
      auto original = cucpu::ptx::parse([&] {
        std::string t;
        for (const auto &x : lines)
          t += x + "\n";
        return t;
      }());
      EXPECT_TRUE(original.ok()) << m.file << ": " << original.errors[0].format();
    }
    ASSERT_LE(m.line, lines.size()) << m.file;
    std::string text;
    for (size_t i = 0; i < lines.size(); ++i)
      text += (i + 1 == m.line ? m.text : lines[i]) + "\n";
    auto r = cucpu::ptx::parse(text);
    const bool accepted = r.ok();
    if (accepted == (m.verdict == "ok")) {
      ++agree;
      continue;
    }
    std::string why = accepted ? "accepted, ptxas: " + m.message : r.errors[0].format();
    disagreements[accepted ? "accepted what ptxas rejects" : "rejected what ptxas accepts"]
        .push_back(m.file + ":" + std::to_string(m.line) + " [" + m.kind + "] " + m.text + "  -- " +
                   why);
  }
  const double rate = 100.0 * static_cast<double>(agree) / static_cast<double>(corpus.size());
  std::printf("agreement with ptxas: %zu of %zu mutants (%.2f%%)\n", agree, corpus.size(), rate);
  for (const auto &[kind, list] : disagreements) {
    std::printf("%s: %zu\n", kind.c_str(), list.size());
    for (const auto &d : list)
      std::printf("  %s\n", d.c_str());
  }
  EXPECT_GE(rate, 99.0);
}

} // namespace
