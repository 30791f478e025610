// Recorder: runs every conformance case on a real GPU and writes expected/<stem>.txt files.
#include "harness.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

int main(int argc, char **argv) {
  if (argc != 3 && argc != 6) {
    std::fprintf(stderr, "usage: %s <cases dir> <output dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1], outDir = argv[2];
  // A fault leaves the process unable to use the GPU again (sticky errors), so after a failed
  // case the recorder starts itself anew with: first case to run, cases recorded, failed.
  const size_t first = argc == 6 ? std::stoul(argv[3]) : 0;
  int ok = argc == 6 ? std::stoi(argv[4]) : 0, failed = argc == 6 ? std::stoi(argv[5]) : 0;
  conformance::initDevice();
  const auto cases = conformance::loadCases(dir);
  std::map<std::string, std::ofstream> files;
  for (size_t k = first; k < cases.size(); ++k) {
    const auto &c = cases[k];
    auto &f = files[c.stem];
    if (!f.is_open()) {
      // continued: append to a file an earlier run of this recording began
      bool begun = std::any_of(cases.begin(), cases.begin() + long(first),
                               [&](const conformance::Case &x) { return x.stem == c.stem; });
      f.open(outDir + "/" + c.stem + ".txt", begun ? std::ios::app : std::ios::trunc);
    }
    try {
      // run before writing anything: a failing case must leave only its ERROR line
      const std::string hex = conformance::toHex(conformance::runCase(dir, c));
      f << c.name << " " << hex << std::endl;
      ++ok;
    } catch (const std::exception &e) {
      std::string msg = e.what();
      for (auto &ch : msg)
        if (ch == '\n') ch = ' ';
      f << c.name << " ERROR " << msg << "\n";
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), msg.c_str());
      ++failed;
      if (msg.find("cuModuleLoadDataEx") != std::string::npos)
        continue;
      for (auto &kv : files)
        kv.second.flush();
      const std::string next = std::to_string(k + 1), o = std::to_string(ok),
                        x = std::to_string(failed);
      char *args[] = {argv[0], argv[1], argv[2], const_cast<char *>(next.c_str()),
                      const_cast<char *>(o.c_str()), const_cast<char *>(x.c_str()), nullptr};
      execv("/proc/self/exe", args);
      std::perror("execv");
      return 1;
    }
  }
  std::printf("recorded %d cases, %d failed\n", ok, failed);
  return 0;
}
