// Shared by the recorders of this folder: print a call and the CUresult NVIDIA's driver returns,
// and read a PTX file.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

// The call as written, then its result; stdout is flushed before the call, because the real
// driver may crash on some misuse and what came before must survive.
#define SHOW(x)                                                                                    \
  do {                                                                                             \
    std::printf("%-72s ", #x);                                                                     \
    std::fflush(stdout);                                                                           \
    std::printf("%d\n", static_cast<int>(x));                                                      \
    std::fflush(stdout);                                                                           \
  } while (0)

// The call, its result and a value it wrote.
#define SHOWV(call, value)                                                                         \
  do {                                                                                             \
    std::printf("%-72s ", #call);                                                                  \
    std::fflush(stdout);                                                                           \
    CUresult r_ = call;                                                                            \
    std::printf("%d, %s = %lld\n", static_cast<int>(r_), #value, (long long)(value));              \
    std::fflush(stdout);                                                                           \
  } while (0)

inline std::string readFile(const char *path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
