// The driver's error log: messages of failed calls in a bounded buffer, dumps and callbacks, with
// the argument checks NVIDIA's driver makes (an H200: tests/gpu/record_logs.cpp).
#include "cucpu/driver/error_log.h"

#include "cucpu/driver/reason.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <vector>

struct CUlogsCallbackEntry_st {
  CUlogsCallback callback;
  void *userData;
};

namespace cucpu::driver::errorlog {
namespace {

constexpr size_t kBufferBytes = 25600; // what NVIDIA's driver keeps
// NVIDIA's words for a dump that does not fit.
constexpr const char *kTooSmall =
    "The provided buffer is not large enough to hold all messages. Some messages will be missing\n";

struct Message {
  CUlogIterator seq;
  std::string line; // with its "[time][thread][CUDA][E] " prefix and '\n'
};

struct Log {
  std::mutex mutex;
  std::deque<Message> messages;
  size_t bytes = 0;
  CUlogIterator next = 0;
  std::vector<std::unique_ptr<CUlogsCallbackEntry_st>> callbacks;
};

Log &log() {
  static auto *l = new Log; // used from any thread until exit
  return *l;
}

std::string prefix() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  localtime_r(&t, &tm);
  return fmt::format("[{:02}:{:02}:{:02}.{:03}][{}][CUDA][E] ", tm.tm_hour, tm.tm_min, tm.tm_sec,
                     static_cast<int>(ms.count()), static_cast<unsigned long>(pthread_self()));
}

void add(std::string text) {
  Log &l = log();
  std::vector<CUlogsCallbackEntry_st> callbacks;
  {
    std::lock_guard lk(l.mutex);
    Message m{l.next++, prefix() + text + '\n'};
    l.bytes += m.line.size();
    l.messages.push_back(std::move(m));
    while (l.bytes > kBufferBytes && l.messages.size() > 1) {
      l.bytes -= l.messages.front().line.size();
      l.messages.pop_front();
    }
    for (const auto &c : l.callbacks)
      callbacks.push_back(*c);
  }
  // Outside the lock: a callback may call the driver, and fail.
  for (const auto &c : callbacks)
    c.callback(c.userData, CU_LOG_LEVEL_ERROR, text.data(), text.size());
}

// The kept messages from `iterator` on (all when null), and the iterator past them.
std::vector<std::string> since(CUlogIterator *iterator) {
  Log &l = log();
  std::lock_guard lk(l.mutex);
  std::vector<std::string> out;
  for (const Message &m : l.messages)
    if (!iterator || m.seq >= *iterator)
      out.push_back(m.line);
  if (iterator)
    *iterator = l.next;
  return out;
}

} // namespace

void failedCall(const char *symbol, CUresult result, const char *resultName,
                const std::string &reason) {
  if (!reason.empty())
    add(reason);
  add(fmt::format("Returning {} ({}) from {}", static_cast<int>(result), resultName, symbol));
}

CUresult registerCallback(CUlogsCallback callback, void *userData, CUlogsCallbackHandle *handle) {
  if (!callback)
    return fail(CUDA_ERROR_INVALID_VALUE, "Callback function cannot be NULL");
  Log &l = log();
  std::lock_guard lk(l.mutex);
  l.callbacks.push_back(
      std::make_unique<CUlogsCallbackEntry_st>(CUlogsCallbackEntry_st{callback, userData}));
  if (handle)
    *handle = l.callbacks.back().get();
  return CUDA_SUCCESS;
}

CUresult unregisterCallback(CUlogsCallbackHandle handle) {
  if (!handle)
    return fail(CUDA_ERROR_INVALID_VALUE, "Callback handle cannot be NULL");
  Log &l = log();
  std::lock_guard lk(l.mutex);
  auto it = std::find_if(l.callbacks.begin(), l.callbacks.end(),
                         [&](const auto &c) { return c.get() == handle; });
  if (it == l.callbacks.end()) // NVIDIA's driver crashes here
    return fail(CUDA_ERROR_INVALID_VALUE, "{} is no registered callback handle",
                static_cast<void *>(handle));
  l.callbacks.erase(it);
  return CUDA_SUCCESS;
}

// Flags are reserved; NVIDIA's driver ignores them (an H200 accepts 1), and so does cucpu.
CUresult current(CUlogIterator *iterator, unsigned) {
  if (!iterator)
    return fail(CUDA_ERROR_INVALID_VALUE, "Iterator cannot be NULL");
  Log &l = log();
  std::lock_guard lk(l.mutex);
  *iterator = l.next;
  return CUDA_SUCCESS;
}

CUresult dumpToMemory(CUlogIterator *iterator, char *buffer, size_t *size, unsigned) {
  if (!buffer)
    return fail(CUDA_ERROR_INVALID_VALUE, "Buffer cannot be NULL");
  if (!size)
    return fail(CUDA_ERROR_INVALID_VALUE, "Size cannot be NULL");
  const size_t capacity = *size;
  *size = 0;
  CUlogIterator before = iterator ? *iterator : 0;
  const std::vector<std::string> lines = since(iterator);
  std::string out;
  for (const auto &line : lines)
    out += line;
  if (out.empty()) // as NVIDIA's driver: the buffer stays as it was
    return CUDA_SUCCESS;
  if (out.size() + 1 > capacity) {
    // The newest messages that fit after the notice, the last one always.
    std::string tail;
    const size_t notice = std::strlen(kTooSmall);
    const size_t room = capacity > notice + 1 ? capacity - notice - 1 : 0;
    for (auto it = lines.rbegin(); it != lines.rend() && tail.size() + it->size() <= room; ++it)
      tail.insert(0, *it);
    if (tail.empty()) {
      if (iterator)
        *iterator = before; // nothing was read
      return fail(CUDA_ERROR_INVALID_VALUE, "The provided buffer of {} bytes cannot hold a message",
                  capacity);
    }
    out = kTooSmall + tail;
  }
  std::copy(out.begin(), out.end(), buffer);
  buffer[out.size()] = 0;
  *size = out.size();
  return CUDA_SUCCESS;
}

CUresult dumpToFile(CUlogIterator *iterator, const char *path, unsigned) {
  if (!path)
    return fail(CUDA_ERROR_INVALID_VALUE, "Path cannot be NULL");
  std::FILE *f = std::fopen(path, "w");
  if (!f)
    return fail(CUDA_ERROR_INVALID_VALUE, "cannot open '{}' for writing", path);
  for (const auto &line : since(iterator))
    std::fwrite(line.data(), 1, line.size(), f);
  return std::fclose(f) == 0 ? CUDA_SUCCESS
                             : fail(CUDA_ERROR_INVALID_VALUE, "cannot write '{}'", path);
}

} // namespace cucpu::driver::errorlog
