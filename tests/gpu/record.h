// Shared by the recorders of this folder: print a call and the CUresult NVIDIA's driver returns,
// read a PTX file, and collect a child process's report.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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

// A two-process recorder's end: prints what the child wrote to `fd` until it closed it, then the
// child's exit status.
inline void printChildReport(int fd, pid_t pid) {
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
    report.append(buf, size_t(n));
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("%s", report.c_str());
  std::printf("child exit status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// Runs `body` in a forked process of its own (stdout flushed on both sides, so lines keep their
// order) and returns the process's wait status: a crash or a fault ends only that process.
template <class F> int statusOfChild(F body) {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    body();
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}
