// Conformance harness: reads the cases declared in tests/conformance/cases/*.cu, runs them
// through the CUDA driver API and compares the outputs with recorded GPU results.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace conformance {

// One case: a kernel of one .cu file, the value sets its inputs are the cross product of, and
// how its output is compared.
struct Case {
  std::string name;   // "<file stem>.<kernel>" or "<file stem>.<name=...>"
  std::string stem;   // file stem: "int" for cases/int.cu (the module is cases/int.ptx)
  std::string kernel;
  std::string outType;               // u8..u64, s8..s64, f16, bf16, f16x2, bf16x2, f32, f64
  std::vector<std::string> sets;     // 0..3 input value sets (0..2 with res; see harness.cpp)
  unsigned outPer = 1;               // output elements per thread
  unsigned nOut = 0;                 // total output elements (0: threads * outPer)
  unsigned threads = 0;              // thread count when there are no inputs
  unsigned block[3] = {0, 1, 1};     // 0: min(threads, 128)
  unsigned grid[3] = {0, 1, 1};      // 0: enough blocks for all threads
  unsigned shmem = 0;                // dynamic shared memory bytes
  std::string init;                  // value set that initialises the output buffer
  std::string tol;                   // "" bitwise; "ulp=N", "abs=X" or "rel=X" for .approx
  std::string res;                   // texture or surface object passed as C (see harness.cpp)
  bool expectError = false;          // the GPU run fails (a trap): cucpu's must fail the same way
  int line = 0;                      // where the case is declared
};

// Every case of every cases/*.cu file under dir, in file order.
std::vector<Case> loadCases(const std::string &dir);

// Runs one case on the current context; returns the output bytes (for a surface resource followed
// by its array's final contents) or throws std::runtime_error.
std::vector<uint8_t> runCase(const std::string &dir, const Case &c);

// "" when got matches want under the case's comparison rule, else a description of the first
// mismatches (element index, inputs, got, want).
std::string compare(const Case &c, const std::vector<uint8_t> &got,
                    const std::vector<uint8_t> &want);

// expected/<stem>.txt: one line per case "<name> <hex bytes>" (or "<name> ERROR <message>").
std::map<std::string, std::string> loadExpected(const std::string &file);
std::string toHex(const std::vector<uint8_t> &v);
std::vector<uint8_t> fromHex(const std::string &s);

// Makes the primary context of device 0 current (throws on failure); `reset` first discards it
// (after a kernel fault left it unusable).
void initDevice(bool reset = false);

} // namespace conformance
