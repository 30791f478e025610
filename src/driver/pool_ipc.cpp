// Memory pools shared between processes: an exportable pool's blocks live in memory files of
// their own (mapped where the pool handed them out); the pool's descriptor is a small memory file
// naming the exporting process and the pool; a pointer's export data names its block's file,
// which the importing process opens through /proc and maps.
#include "cucpu/driver/mem_pool.h"

#include "cucpu/driver/device.h"
#include "cucpu/driver/ipc.h"
#include "cucpu/driver/memory.h"
#include "cucpu/driver/reason.h"
#include "cucpu/support/log.h"
#include "device_arena.h"

#include <atomic>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace cucpu::driver {
namespace {

constexpr char kMagic[8] = {'c', 'u', 'c', 'p', 'u', 'P', 'L', 'X'};
std::atomic<uint64_t> nextKey{1};

// The pool descriptor's file: who exported which pool.
struct Identity {
  char magic[8];
  int32_t pid;
  int32_t reserved;
  uint64_t key;
};

// CUmemPoolPtrExportData's contents.
struct PointerData {
  char magic[8];
  int32_t pid;
  int32_t fd;        // the block's memory file in the exporting process
  uint64_t key;      // the pool's
  uint64_t size;     // the allocation's
  uint64_t mapBytes; // the file's
  uint64_t reserved[2];
};
static_assert(sizeof(PointerData) <= sizeof(CUmemPoolPtrExportData));

} // namespace

MemPool::~MemPool() {
  if (identity_ >= 0)
    close(identity_);
}

void MemPool::share(uintptr_t base, size_t block) {
  const int fd = shareInPlace(base, block);
  if (fd < 0) {
    log::warn(log::Component::Mem, "an exportable pool's block at {:#x} could not be shared: {}",
              base, std::strerror(errno));
    return;
  }
  std::lock_guard lk(mutex_);
  shared_[base] = fd;
}

CUresult MemPool::exportHandle(int *fd) {
  std::lock_guard lk(mutex_);
  if (identity_ < 0) {
    const int file = memfd_create("cucpu-pool", MFD_CLOEXEC);
    Identity id{};
    std::memcpy(id.magic, kMagic, sizeof kMagic);
    id.pid = getpid();
    id.key = key_ = nextKey++;
    if (file < 0 || pwrite(file, &id, sizeof id, 0) != ssize_t(sizeof id)) {
      if (file >= 0)
        close(file);
      return fail(CUDA_ERROR_OUT_OF_MEMORY, "no memory file for an exportable pool");
    }
    identity_ = file;
  }
  *fd = fcntl(identity_, F_DUPFD_CLOEXEC, 0);
  return *fd < 0 ? fail(CUDA_ERROR_OUT_OF_MEMORY, "cannot duplicate the pool's file")
                 : CUDA_SUCCESS;
}

CUresult MemPool::importHandle(Device *device, int fd, MemPool **out) {
  Identity id;
  if (fd < 0 || pread(fd, &id, sizeof id, 0) != ssize_t(sizeof id) ||
      std::memcmp(id.magic, kMagic, sizeof kMagic) != 0) {
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemPoolImportFromShareableHandle: {} names no pool",
                fd);
  }
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device->ordinal();
  MemPool *p = createPool(device, props);
  p->imported_ = true;
  p->sourcePid_ = id.pid;
  p->key_ = id.key;
  *out = p;
  return CUDA_SUCCESS;
}

CUresult MemPool::exportPointer(const Allocation &a, CUmemPoolPtrExportData *out) {
  std::lock_guard lk(mutex_);
  auto it = shared_.find(a.base);
  if (it == shared_.end())
    return fail(CUDA_ERROR_INVALID_VALUE, "the pointer is not a block of an exportable pool");
  if (key_ == 0)
    key_ = nextKey++; // the pool's name, also before its descriptor was asked for
  PointerData d{};
  std::memcpy(d.magic, kMagic, sizeof kMagic);
  d.pid = getpid();
  d.fd = it->second;
  d.key = key_;
  d.size = a.size;
  d.mapBytes = a.block;
  std::memset(out, 0, sizeof *out);
  std::memcpy(out, &d, sizeof d);
  return CUDA_SUCCESS;
}

CUresult MemPool::importPointer(Context *ctx, const CUmemPoolPtrExportData &data,
                                CUdeviceptr *out) {
  PointerData d;
  std::memcpy(&d, &data, sizeof d);
  if (!imported_ || std::memcmp(d.magic, kMagic, sizeof kMagic) != 0 || d.key != key_ ||
      d.pid != sourcePid_ || d.size > d.mapBytes)
    return fail(CUDA_ERROR_INVALID_VALUE, "the export data is not of this imported pool");
  uintptr_t start;
  if (CUresult r = mapFromProcess(d.pid, d.fd, d.mapBytes, &start); r != CUDA_SUCCESS)
    return r;
  {
    std::lock_guard lk(mutex_);
    imports_[start] = {start, d.mapBytes};
    used_ += d.size;
    usedHigh_ = std::max(usedHigh_, used_);
    ++live_;
  }
  memory().trackPoolBlock(ctx, start, d.size, d.mapBytes, this);
  *out = start;
  return CUDA_SUCCESS;
}

void MemPool::unmapImport(uintptr_t base) {
  std::pair<uintptr_t, size_t> mapping;
  {
    std::lock_guard lk(mutex_);
    auto it = imports_.find(base);
    if (it == imports_.end())
      return;
    mapping = it->second;
    imports_.erase(it);
    --live_;
  }
  unmapFromProcess(mapping.first, mapping.second);
}

} // namespace cucpu::driver
