// Recorder: runs every conformance case on a real GPU and writes expected/<stem>.txt files.
#include "harness.h"

#include <cstdio>
#include <fstream>
#include <map>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <cases dir> <output dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1], outDir = argv[2];
  conformance::initDevice();
  std::map<std::string, std::ofstream> files;
  int ok = 0, failed = 0;
  for (const auto &c : conformance::loadCases(dir)) {
    auto &f = files[c.stem];
    if (!f.is_open())
      f.open(outDir + "/" + c.stem + ".txt");
    try {
      f << c.name << " " << conformance::toHex(conformance::runCase(dir, c)) << std::endl;
      ++ok;
    } catch (const std::exception &e) {
      std::string msg = e.what();
      for (auto &ch : msg)
        if (ch == '\n') ch = ' ';
      f << c.name << " ERROR " << msg << "\n";
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), msg.c_str());
      ++failed;
      if (msg.find("cuModuleLoadDataEx") == std::string::npos)
        conformance::initDevice(true); // a fault leaves the context unusable
      f.flush();
    }
  }
  std::printf("recorded %d cases, %d failed\n", ok, failed);
  return 0;
}
