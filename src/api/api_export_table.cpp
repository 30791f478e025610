// Entry point cuGetExportTable: the CUDA runtime's private tables (logging, primary context,
// tools buffers, context-local storage, context setup, integrity check, the tools interface's
// context and module tables) as cudart 13 and NVIDIA's libraries use them.
#include "entry.h"
#include "entry_points.h"
#include "export_tables.h"

#include "cucpu/driver/context.h"
#include "cucpu/support/log.h"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace cucpu::api::exports {
namespace {

CUresult unsupported() { return CUDA_ERROR_NOT_SUPPORTED; }

// Table 1, slot 1: cudart's own error messages, routed to the api logger.
CUresult runtimeLog(const char *component, int level, const char *fmt, va_list *args) {
  char text[1024] = {};
  if (fmt && args)
    std::vsnprintf(text, sizeof text, fmt, *args);
  log::debug(log::Component::Api, "cudart {} ({}): {}", component ? component : "?", level, text);
  return CUDA_SUCCESS;
}

// Table 2, slot 2: retain the device's primary context.
CUresult retainPrimaryContext(CUcontext *out, CUdevice dev) {
  return impl::cuDevicePrimaryCtxRetain(out, dev);
}

// Table 3, slots 2 and 6: zeroed buffers the runtime reads tools flags from.
CUresult toolsBuffer(void **buf, size_t *size) {
  alignas(64) static unsigned char zeros[1024] = {};
  if (!buf || !size)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "buf or size is NULL");
  *buf = zeros;
  *size = sizeof zeros;
  return CUDA_SUCCESS;
}

// Table 5: context-local storage, keyed by (context id, key); null context = current.
struct Slot {
  void *value;
  void *dtor; // recorded; cudart deletes its keys itself at exit
};
std::mutex clsMutex;
std::map<std::pair<unsigned long long, void *>, Slot> &cls() {
  static auto *m = new std::map<std::pair<unsigned long long, void *>, Slot>();
  return *m;
}

CUresult contextId(CUcontext ctx, unsigned long long *id) {
  driver::Context *c;
  if (CUresult r = resolveContext(ctx, &c); r != CUDA_SUCCESS)
    return r;
  *id = c->id();
  return CUDA_SUCCESS;
}

CUresult clsPut(CUcontext ctx, void *key, void *value, void *dtor) {
  unsigned long long id;
  if (CUresult r = contextId(ctx, &id); r != CUDA_SUCCESS)
    return r;
  std::lock_guard lk(clsMutex);
  cls()[{id, key}] = {value, dtor};
  return CUDA_SUCCESS;
}

CUresult clsDelete(CUcontext ctx, void *key) {
  unsigned long long id;
  if (CUresult r = contextId(ctx, &id); r != CUDA_SUCCESS)
    return r;
  std::lock_guard lk(clsMutex);
  return cls().erase({id, key})
             ? CUDA_SUCCESS
             : driver::fail(CUDA_ERROR_NOT_FOUND, "no context-local value for the key");
}

CUresult clsGet(void **value, CUcontext ctx, void *key) {
  unsigned long long id;
  if (!value)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "value is NULL");
  if (CUresult r = contextId(ctx, &id); r != CUDA_SUCCESS)
    return r;
  std::lock_guard lk(clsMutex);
  auto it = cls().find({id, key});
  if (it == cls().end())
    return driver::fail(CUDA_ERROR_NOT_FOUND, "no context-local value for the key");
  *value = it->second.value;
  return CUDA_SUCCESS;
}

// Table 6: runtime initialisation and per-context setup; nothing to report on a CPU.
CUresult contextSetup(CUcontext, uint32_t *out1, void **out2) {
  if (out1)
    *out1 = 0;
  if (out2)
    *out2 = nullptr;
  return CUDA_SUCCESS;
}
CUresult runtimeInit() { return CUDA_SUCCESS; }

template <typename F> void *fn(F *f) { return reinterpret_cast<void *>(f); }
void *size(size_t slots) { return reinterpret_cast<void *>(slots * sizeof(void *)); }

// Tables of the driver's tools interface that newer runtimes and libraries ask for (cudart
// 13.4+, cuFFT 13.0) and take as a sign of a current driver, without calling them on the paths
// that run on a CPU. Each has the size an H100 with driver 580 reports and a function in every
// slot NVIDIA fills (tests/gpu/record_python_stack.cpp); a call says which slot and fails.
constexpr const char *kSlotTables[] = {"6bd5fb6c (cudart)", "21318c60 (tools context)",
                                       "6e163fbe (tools module)", "42d85a81 (current context)"};
template <int Table, int Slot> CUresult toolsSlot() {
  return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                      "cuGetExportTable: slot {} of table {} is not implemented", Slot,
                      kSlotTables[Table]);
}
template <int Table, size_t Slots, int... I>
std::array<void *, Slots> toolsInterface(std::integer_sequence<int, I...>, size_t emptySlot) {
  std::array<void *, Slots> t{fn(toolsSlot<Table, I>)...};
  t[0] = size(Slots);
  t[emptySlot] = nullptr;
  return t;
}
// Tools module table, slot 7 (what cuFFT calls for each module it loads, one kernel per module,
// before its first launch; on an H200 it returns 1 and hands the kernel to the callback): calls
// `each(user, function)` for every function of the module and returns how many there were, or
// -1 for a module that is not the context's.
int forEachFunction(CUcontext ctx, CUmodule mod, void (*each)(void *, CUfunction), void *user) {
  driver::Context *c;
  unsigned count = 0;
  if (!each || resolveContext(ctx, &c) != CUDA_SUCCESS ||
      impl::cuModuleGetFunctionCount(&count, mod) != CUDA_SUCCESS)
    return -1;
  std::vector<CUfunction> functions(count);
  if (count && impl::cuModuleEnumerateFunctions(functions.data(), count, mod) != CUDA_SUCCESS)
    return -1;
  for (CUfunction f : functions)
    each(user, f);
  return static_cast<int>(count);
}

std::array<void *, 99> toolsModuleSlots() {
  auto t = toolsInterface<2, 99>(std::make_integer_sequence<int, 99>{}, 93);
  t[7] = fn(forEachFunction);
  return t;
}
auto toolsModuleTable = toolsModuleSlots();

// The slots cuBLASLt calls (tests/gpu/trace_export_tables.cpp on an H200, driver 580): it takes
// the current context (42d85a81 slot 2), its id (21318c60 slot 4), and for its heuristics cache a
// per-context handle (slot 51: context, kind, out, flag) and that handle's key (slot 39); the
// H200 answers a heap object and a small number. A context's own id serves as both here: the
// cache needs one stable key per context, which the id is.
CUresult contextHandle(CUcontext ctx, unsigned long long, void **out, int) {
  unsigned long long id;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  if (CUresult r = contextId(ctx, &id); r != CUDA_SUCCESS)
    return r;
  *out = reinterpret_cast<void *>(static_cast<uintptr_t>(id));
  return CUDA_SUCCESS;
}
CUresult handleKey(CUcontext ctx, void *handle, unsigned long long *out) {
  unsigned long long id;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  if (CUresult r = contextId(ctx, &id); r != CUDA_SUCCESS)
    return r;
  if (reinterpret_cast<uintptr_t>(handle) != id)
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "the handle is not the context's");
  *out = id;
  return CUDA_SUCCESS;
}

std::array<void *, 93> toolsContextSlots() {
  auto t = toolsInterface<1, 93>(std::make_integer_sequence<int, 93>{}, 91);
  t[4] = fn(impl::cuCtxGetId);
  t[39] = fn(handleKey);
  t[51] = fn(contextHandle);
  return t;
}
auto toolsContextTable = toolsContextSlots();

void *logTable[4] = {size(4), fn(runtimeLog), fn(unsupported), fn(unsupported)};
void *toolsTable[8] = {size(8),         fn(unsupported), fn(toolsBuffer), fn(unsupported),
                       fn(unsupported), fn(unsupported), fn(toolsBuffer), fn(unsupported)};
void *currentContextTable[8] = {size(8),
                                fn(toolsSlot<3, 1>),
                                fn(impl::cuCtxGetCurrent),
                                fn(toolsSlot<3, 3>),
                                fn(toolsSlot<3, 4>),
                                fn(toolsSlot<3, 5>),
                                fn(toolsSlot<3, 6>),
                                fn(toolsSlot<3, 7>)};
void *clsTable[4] = {fn(clsPut), fn(clsDelete), fn(clsGet), fn(unsupported)}; // slot 0: put
void *setupTable[8] = {size(8),         fn(unsupported), fn(contextSetup), fn(runtimeInit),
                       fn(unsupported), fn(unsupported), fn(unsupported),  fn(unsupported)};

struct Known {
  unsigned char uuid[16];
  void **table;
};
const Known kTables[] = {
    {{0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d,
      0xd9},
     logTable},
    {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d,
      0xf9},
     primaryContextTable},
    {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a,
      0x66},
     toolsTable},
    {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec,
      0xdc},
     currentContextTable},
    {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95,
      0x93},
     clsTable},
    {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa,
      0x7e},
     setupTable},
    {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1,
      0xf2},
     integrityTable},
    {{0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8,
      0xf2},
     toolsContextTable.data()},
    {{0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d, 0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99,
      0x1e},
     toolsModuleTable.data()},
};

// Tables cucpu knows and answers as a driver without them would (INVALID_VALUE), with the reason.
struct Refused {
  unsigned char uuid[16];
  const char *why;
};
const Refused kRefused[] = {
    // NVRTC and nvJitLink (13.0) ask at start: an H200 traced with trace_export_tables.cpp
    // compiles a small LLVM bitcode module to PTX and to a cubin through it (slots 1-4), the
    // driver's own compiler. Without it both compile for themselves, as with older drivers.
    {{0xda, 0x91, 0x51, 0xd3, 0x3a, 0xe6, 0xcc, 0x41, 0xa5, 0xc0, 0x4f, 0x26, 0xd5, 0x33, 0xe3,
      0x28},
     "the driver's compiler of LLVM bitcode, which NVRTC and nvJitLink do without"},
};

} // namespace

// 13 slots as an H100 with driver 580 has them (slot 10 empty): with the tools tables served,
// cudart 13.4+ takes the driver for a current one and reads slots beyond the first eight.
void *primaryContextTable[13] = {size(13),
                                 fn(toolsSlot<0, 1>),
                                 fn(retainPrimaryContext),
                                 fn(toolsSlot<0, 3>),
                                 fn(toolsSlot<0, 4>),
                                 fn(toolsSlot<0, 5>),
                                 fn(toolsSlot<0, 6>),
                                 fn(toolsSlot<0, 7>),
                                 fn(toolsSlot<0, 8>),
                                 fn(toolsSlot<0, 9>),
                                 nullptr,
                                 fn(toolsSlot<0, 11>),
                                 fn(toolsSlot<0, 12>)};
void *integrityTable[4] = {size(4), fn(integrityCheck), fn(unsupported), fn(unsupported)};

} // namespace cucpu::api::exports

namespace cucpu::api::impl {

CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId) {
  if (!ppExportTable || !pExportTableId)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "ppExportTable or pExportTableId is NULL");
  const auto &u = pExportTableId->bytes;
  // Byte by byte, as the tables are named elsewhere ({6bd5fb6c-5bf4-e74a-...}).
  std::string id;
  for (int i = 0; i < 16; ++i)
    id += fmt::format("{}{:02x}", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
                      static_cast<uint8_t>(u[i]));
  for (const auto &t : exports::kTables) {
    if (std::memcmp(t.uuid, u, 16) == 0) {
      *ppExportTable = t.table;
      log::debug(log::Component::Api, "cuGetExportTable: table {{{}}} served", id);
      return CUDA_SUCCESS;
    }
  }
  *ppExportTable = nullptr;
  for (const auto &t : exports::kRefused)
    if (std::memcmp(t.uuid, u, 16) == 0)
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "cuGetExportTable: table {{{}}} refused: {}",
                          id, t.why);
  return driver::fail(CUDA_ERROR_INVALID_VALUE,
                      "cuGetExportTable: table {{{}}} unknown, not served", id);
}

} // namespace cucpu::api::impl
