// Prints NVIDIA's driver's answers for the error log API (cuLogs*): argument checks, which calls
// leave messages, the callbacks' level, the iterator, dumps to memory (newlines, terminator, a
// buffer too small for any message) and to a file. How many messages a failure leaves and their
// words are the driver's own (NVIDIA's also logs its internal failures): printed only with
// RECORD_LOG_TEXT=1, so the rest can be compared with any driver. (Unregistering a
// handle twice crashes NVIDIA's driver; not recorded.)
#include "record.h"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Seen {
  int calls = 0;
  int level = -1;
  size_t lastLength = 0;
  bool terminated = true; // message[length] == 0 in every call
  bool newline = false;   // some message ends with '\n'
  std::string last;
};
Seen seen;

void CUDA_CB onLog(void *data, CUlogLevel level, char *message, size_t length) {
  auto *s = static_cast<Seen *>(data);
  ++s->calls;
  s->level = level;
  s->lastLength = length;
  s->terminated = s->terminated && message[length] == 0;
  s->newline = s->newline || (length && message[length - 1] == '\n');
  s->last.assign(message, length);
}

bool showText() { return std::getenv("RECORD_LOG_TEXT") != nullptr; }

int lines(const char *buf, size_t n) {
  int k = 0;
  for (size_t i = 0; i < n; ++i)
    k += buf[i] == '\n';
  return k;
}

// Dumps what follows `it` into a buffer of `capacity` bytes: result, size, lines, terminator.
void dump(CUlogIterator *it, size_t capacity, const char *label) {
  std::vector<char> buf(capacity + 16, 'x');
  size_t size = capacity;
  CUresult r = cuLogsDumpToMemory(it, buf.data(), &size, 0);
  std::printf("dump %-28s result %d, size>0 %d, lines>0 %d, terminated %d, ends with newline %d\n",
              label, int(r), size > 0, lines(buf.data(), size) > 0,
              size < buf.size() && buf[size] == 0, size > 0 && buf[size - 1] == '\n');
  if (showText())
    std::printf("  text: [%.*s]\n", int(size), buf.data());
}

void afterCall(const char *what, CUresult r, int callsBefore) {
  std::printf("%-44s result %d, callbacks %d, level %d, length>0 %d, terminated %d, "
              "trailing newline %d\n",
              what, int(r), seen.calls > callsBefore, seen.calls > callsBefore ? seen.level : -1,
              seen.lastLength > 0, seen.terminated, seen.newline);
  if (showText() && seen.calls > callsBefore)
    std::printf("  text: [%s]\n", seen.last.c_str());
}

} // namespace

int main() {
  CUlogIterator start = 0, it = 0;
  CUlogsCallbackHandle h = nullptr, h2 = nullptr;
  size_t size = 64;
  char small[64];
  SHOW(cuLogsCurrent(nullptr, 0));
  SHOW(cuLogsCurrent(&start, 1));
  SHOW(cuLogsCurrent(&start, 0));
  SHOW(cuLogsRegisterCallback(nullptr, nullptr, &h));
  SHOW(cuLogsRegisterCallback(onLog, &seen, nullptr));
  SHOW(cuLogsRegisterCallback(onLog, &seen, &h));
  std::printf("handle non-null %d\n", h != nullptr);
  SHOW(cuLogsDumpToMemory(&start, nullptr, &size, 0));
  SHOW(cuLogsDumpToMemory(&start, small, nullptr, 0));
  SHOW(cuLogsDumpToMemory(&start, small, &size, 1));
  SHOW(cuLogsDumpToFile(&start, nullptr, 0));
  SHOW(cuLogsDumpToFile(&start, "/tmp/record_logs.txt", 1));
  SHOW(cuLogsUnregisterCallback(nullptr));

  // Errors before cuInit, then with a device and a context.
  int before = seen.calls;
  CUdevice d = 0;
  afterCall("cuDeviceGet before cuInit", cuDeviceGet(&d, 0), before);
  before = seen.calls;
  afterCall("cuInit(0)", cuInit(0), before);
  before = seen.calls;
  afterCall("cuInit(1)", cuInit(1), before);
  before = seen.calls;
  afterCall("cuDeviceGet(&d, 999)", cuDeviceGet(&d, 999), before);
  before = seen.calls;
  afterCall("cuDeviceGet(&d, 0)", cuDeviceGet(&d, 0), before);
  CUcontext ctx = nullptr;
  cuCtxCreate(&ctx, nullptr, 0, d);
  CUdeviceptr p = 0;
  before = seen.calls;
  afterCall("cuMemAlloc(&p, 1 << 50)", cuMemAlloc(&p, size_t(1) << 50), before);
  before = seen.calls;
  afterCall("cuMemAlloc(&p, 0)", cuMemAlloc(&p, 0), before);
  before = seen.calls;
  afterCall("cuMemFree(0x1234)", cuMemFree(0x1234), before);
  before = seen.calls;
  CUmodule m = nullptr;
  afterCall("cuModuleLoadData(not PTX)", cuModuleLoadData(&m, "this is not ptx"), before);
  before = seen.calls;
  afterCall("cuCtxSetLimit(bad limit)", cuCtxSetLimit(static_cast<CUlimit>(999), 1), before);
  before = seen.calls;
  afterCall(
      "cuStreamCreate(&s, 0xff)",
      [&] {
        CUstream s;
        return cuStreamCreate(&s, 0xff);
      }(),
      before);

  // A status that is no error: a stream still busy.
  CUstream busy;
  cuStreamCreate(&busy, CU_STREAM_NON_BLOCKING);
  cuLaunchHostFunc(
      busy, [](void *) { usleep(300000); }, nullptr);
  before = seen.calls;
  afterCall("cuStreamQuery(busy stream)", cuStreamQuery(busy), before);
  cuStreamSynchronize(busy);

  // The buffer since `start`, in pieces.
  it = start;
  dump(&it, 65536, "since start");
  dump(&it, 65536, "again (iterator advanced)");
  it = start;
  dump(&it, 4, "4 bytes");
  it = start;
  dump(nullptr, 65536, "null iterator");
  CUlogIterator now = 0;
  SHOW(cuLogsCurrent(&now, 0));
  std::printf("current after start %d\n", now > start);
  it = start;
  SHOW(cuLogsDumpToFile(&it, "/tmp/record_logs.txt", 0));
  std::string file = readFile("/tmp/record_logs.txt");
  std::printf("file: lines>0 %d, ends with newline %d\n", lines(file.data(), file.size()) > 0,
              !file.empty() && file.back() == '\n');
  std::printf("iterator after file dump is current %d\n", it == now);
  if (showText())
    std::printf("  file text: [%s]\n", file.c_str());

  SHOW(cuLogsRegisterCallback(onLog, &seen, &h2));
  SHOW(cuLogsUnregisterCallback(h));
  before = seen.calls;
  afterCall("cuDeviceGet(&d, 998), one callback left", cuDeviceGet(&d, 998), before);
  SHOW(cuLogsUnregisterCallback(h2));
  before = seen.calls;
  afterCall("cuDeviceGet(&d, 997), no callback", cuDeviceGet(&d, 997), before);
  cuCtxDestroy(ctx);
  return 0;
}
