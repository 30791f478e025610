// The error log (cuLogs*) beyond what tests/gpu/answers/logs.txt pins down: each failed call's
// reason and "Returning N (NAME) from symbol" lines in NVIDIA's format, a buffer too small for all
// messages (never written past its size), the 25,600-byte bound.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> gMessages;

void CUDA_CB collect(void *, CUlogLevel level, char *message, size_t length) {
  EXPECT_EQ(level, CU_LOG_LEVEL_ERROR);
  gMessages.emplace_back(message, length);
}

// "[hh:mm:ss.mmm][thread][CUDA][E] text", as NVIDIA's driver writes a line.
bool inNvidiasFormat(const std::string &l) {
  const std::string head = "[00:00:00.000][";
  if (l.size() < head.size() + 12)
    return false;
  for (size_t i = 0; i < head.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(head[i])) ? !std::isdigit(l[i]) : l[i] != head[i])
      return false;
  size_t i = head.size();
  while (i < l.size() && std::isdigit(static_cast<unsigned char>(l[i])))
    ++i;
  return i > head.size() && l.compare(i, 11, "][CUDA][E] ") == 0 && l.size() > i + 11;
}

std::string dumpFrom(CUlogIterator it, size_t capacity, CUresult *result = nullptr) {
  std::vector<char> buf(capacity + 8, '#');
  size_t size = capacity;
  CUresult r = cuLogsDumpToMemory(&it, buf.data(), &size, 0);
  if (result)
    *result = r;
  EXPECT_EQ(buf[capacity], '#') << "written past the buffer";
  return std::string(buf.data(), size);
}

TEST(Logs, AFailedCallLogsItsReasonAndResult) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUlogIterator start = 0;
  ASSERT_EQ(cuLogsCurrent(&start, 0), CUDA_SUCCESS);
  CUlogsCallbackHandle h = nullptr;
  ASSERT_EQ(cuLogsRegisterCallback(collect, nullptr, &h), CUDA_SUCCESS);
  gMessages.clear();
  CUdevice d;
  EXPECT_EQ(cuDeviceGet(&d, 4242), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_EQ(gMessages.size(), 2u);
  EXPECT_NE(gMessages[0].find("4242"), std::string::npos) << gMessages[0]; // the reason
  EXPECT_EQ(gMessages[1], "Returning 101 (CUDA_ERROR_INVALID_DEVICE) from cuDeviceGet");
  const std::string dump = dumpFrom(start, 65536);
  std::istringstream lines(dump);
  for (std::string l; std::getline(lines, l);)
    EXPECT_TRUE(inNvidiasFormat(l)) << l;
  EXPECT_EQ(dump.back(), '\n');
  EXPECT_NE(dump.find("[E] Returning 101 (CUDA_ERROR_INVALID_DEVICE) from cuDeviceGet\n"),
            std::string::npos);
  // Succeeding calls leave nothing.
  CUlogIterator now = 0;
  ASSERT_EQ(cuLogsCurrent(&now, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuDeviceGet(&d, 0), CUDA_SUCCESS);
  EXPECT_EQ(dumpFrom(now, 65536), "");
  EXPECT_EQ(cuLogsUnregisterCallback(h), CUDA_SUCCESS);
}

TEST(Logs, ABufferTooSmallGetsTheNoticeAndTheNewestMessages) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUlogIterator start = 0;
  ASSERT_EQ(cuLogsCurrent(&start, 0), CUDA_SUCCESS);
  CUdevice d;
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(cuDeviceGet(&d, 5000 + i), CUDA_ERROR_INVALID_DEVICE);
  const std::string all = dumpFrom(start, 65536);
  CUresult r;
  const std::string part = dumpFrom(start, 600, &r);
  EXPECT_EQ(r, CUDA_SUCCESS);
  EXPECT_LT(part.size(), 600u);
  EXPECT_EQ(part.rfind("The provided buffer is not large enough to hold all messages. Some "
                       "messages will be missing\n",
                       0),
            0u)
      << part;
  // What follows the notice is the end of the whole log: the newest messages.
  const std::string tail = part.substr(part.find('\n') + 1);
  ASSERT_FALSE(tail.empty());
  EXPECT_EQ(all.substr(all.size() - tail.size()), tail);
  // Too small for any message: nothing written, INVALID_VALUE, size 0.
  std::vector<char> tiny(40, '#');
  size_t size = tiny.size();
  CUlogIterator it = start;
  EXPECT_EQ(cuLogsDumpToMemory(&it, tiny.data(), &size, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(it, start);
}

TEST(Logs, TheLogKeepsItsNewest25600Bytes) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUdevice d;
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(cuDeviceGet(&d, 10000 + i), CUDA_ERROR_INVALID_DEVICE);
  std::vector<char> buf(1 << 20);
  size_t size = buf.size();
  ASSERT_EQ(cuLogsDumpToMemory(nullptr, buf.data(), &size, 0), CUDA_SUCCESS);
  EXPECT_LE(size, 25600u);
  EXPECT_GT(size, 20000u);
  const std::string dump(buf.data(), size);
  EXPECT_NE(dump.find("10999"), std::string::npos); // the newest reason is kept
}

} // namespace
