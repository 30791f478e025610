// Preloaded beneath a program on a machine with NVIDIA's driver, prints every call the program's
// CUDA runtimes and libraries make into the driver's private tables: which table and slot, the
// first four arguments, the result, and what each argument that is an address holds afterwards,
// next to the current context and its id. This is how cucpu learns what a slot means and what it
// must answer (src/api/api_export_table.cpp). Runtimes reach the driver through dlsym of
// cuGetProcAddress, so dlsym is what this library replaces.
//
//   g++ -std=c++17 -O1 -shared -fPIC -I/usr/local/cuda/include trace_export_tables.cpp
//       -o libtrace_export_tables.so -ldl
//   LD_PRELOAD=./libtrace_export_tables.so program args...   (the trace goes to stderr)
#include <cuda.h>

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

namespace {

using Dlsym = void *(*)(void *, const char *);
using GetProcAddress = CUresult (*)(const char *, void **, int, cuuint64_t,
                                    CUdriverProcAddressQueryResult *);
using GetProcAddressV1 = CUresult (*)(const char *, void **, int, cuuint64_t);
using GetExportTable = CUresult (*)(const void **, const CUuuid *);
// Six register arguments and ten stack slots, passed on unchanged: a slot's own stack arguments
// (if it has more than six) arrive where it expects them. Floating-point registers are not
// touched before the call.
#define XT_ARGS uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5, \
    uintptr_t s0, uintptr_t s1, uintptr_t s2, uintptr_t s3, uintptr_t s4, uintptr_t s5,            \
    uintptr_t s6, uintptr_t s7, uintptr_t s8, uintptr_t s9
#define XT_PASS a0, a1, a2, a3, a4, a5, s0, s1, s2, s3, s4, s5, s6, s7, s8, s9
using Slot = uintptr_t (*)(XT_ARGS);

constexpr int kTables = 16;
constexpr int kSlots = 128;

Dlsym realDlsym() {
  static Dlsym f = [] {
    void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p)
      p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    return reinterpret_cast<Dlsym>(p);
  }();
  return f;
}

GetProcAddress realGetProcAddress = nullptr;
GetProcAddressV1 realGetProcAddressV1 = nullptr;
GetExportTable realGetExportTable = nullptr;
CUresult (*realCtxGetCurrent)(CUcontext *) = nullptr;
CUresult (*realCtxGetId)(CUcontext, unsigned long long *) = nullptr;

struct Table {
  unsigned char uuid[16];
  const void *const *real = nullptr;
  std::array<const void *, kSlots> copy{};
  std::array<Slot, kSlots> original{};
  std::array<std::atomic<unsigned>, kSlots> calls{};
};
Table tables[kTables];
int tableCount = 0;
std::mutex tablesMutex;

bool readable(uintptr_t p) {
  if (p < 4096)
    return false;
  uintptr_t page = p & ~uintptr_t(4095);
  return msync(reinterpret_cast<void *>(page), 4096, MS_ASYNC) == 0 &&
         msync(reinterpret_cast<void *>((p + 15) & ~uintptr_t(4095)), 4096, MS_ASYNC) == 0;
}

void uuidText(const unsigned char *u, char *out) {
  std::sprintf(out, "%02x%02x%02x%02x", u[0], u[1], u[2], u[3]);
}

template <int T, int S> uintptr_t traced(XT_ARGS) {
  Table &t = tables[T];
  char name[16];
  uuidText(t.uuid, name);
  if (std::getenv("XT_BEFORE"))
    std::fprintf(stderr, "xt %s[%d] enter\n", name, S);
  uintptr_t r = t.original[S](XT_PASS);
  unsigned n = t.calls[S]++;
  if (n >= 4)
    return r;
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  if (realCtxGetCurrent && realCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx && realCtxGetId)
    realCtxGetId(ctx, &id);
  std::fprintf(stderr,
               "xt %s[%d] call %u: args %#lx %#lx %#lx %#lx -> %d (ctx %p id %llu)", name, S,
               n, (unsigned long)a0, (unsigned long)a1, (unsigned long)a2, (unsigned long)a3,
               int(r), static_cast<void *>(ctx), id);
  const uintptr_t args[4] = {a0, a1, a2, a3};
  for (int i = 0; i < 4; ++i)
    if (readable(args[i])) {
      uint64_t v[2];
      std::memcpy(v, reinterpret_cast<const void *>(args[i]), sizeof v);
      std::fprintf(stderr, " [a%d]=%#lx,%#lx", i, (unsigned long)v[0], (unsigned long)v[1]);
    }
  std::fprintf(stderr, "\n");
  return r;
}

template <int T, size_t... S>
constexpr std::array<Slot, kSlots> tracedSlots(std::index_sequence<S...>) {
  return {&traced<T, S>...};
}
template <size_t... T>
constexpr std::array<std::array<Slot, kSlots>, kTables> allTraced(std::index_sequence<T...>) {
  return {tracedSlots<T>(std::make_index_sequence<kSlots>{})...};
}
const auto kTraced = allTraced(std::make_index_sequence<kTables>{});

bool isCode(const void *p) {
  Dl_info info;
  return p && dladdr(p, &info) && info.dli_fname;
}

// A traced copy of a table: slot 0 is the table's size in bytes where NVIDIA puts one; tables
// without it (context-local storage) are taken slot by slot while slots point at code.
const void *traceTable(const CUuuid *id, const void *const *real) {
  std::lock_guard lk(tablesMutex);
  for (int i = 0; i < tableCount; ++i)
    if (std::memcmp(tables[i].uuid, id->bytes, 16) == 0)
      return tables[i].copy.data();
  if (tableCount == kTables)
    return real;
  Table &t = tables[tableCount];
  std::memcpy(t.uuid, id->bytes, 16);
  t.real = real;
  uintptr_t head = reinterpret_cast<uintptr_t>(real[0]);
  bool sized = head > 0 && head < 8 * kSlots && head % 8 == 0;
  size_t count = sized ? head / 8 : 0;
  if (!sized)
    while (count < 16 && isCode(real[count]))
      ++count;
  char name[16];
  uuidText(t.uuid, name);
  std::fprintf(stderr, "xt table %s: %s, %zu slots\n", name, sized ? "sized" : "unsized", count);
  for (size_t s = 0; s < count; ++s) {
    t.copy[s] = real[s];
    if ((sized && s == 0) || !isCode(real[s]))
      continue;
    t.original[s] = reinterpret_cast<Slot>(const_cast<void *>(real[s]));
    t.copy[s] = reinterpret_cast<const void *>(kTraced[tableCount][s]);
  }
  ++tableCount;
  return t.copy.data();
}

// XT_TABLES names the tables to trace (comma-separated first eight hex digits). By default all
// but two: the runtime refuses the driver (cudaErrorSoftwareValidityNotEstablished) when the
// integrity table or the primary-context table is not the driver's own.
bool wanted(const char *name) {
  const char *only = std::getenv("XT_TABLES");
  if (only)
    return std::strstr(only, name);
  return std::strcmp(name, "d4082055") != 0 && std::strcmp(name, "6bd5fb6c") != 0;
}

CUresult tracedGetExportTable(const void **table, const CUuuid *id) {
  CUresult r = realGetExportTable(table, id);
  char name[16] = "?";
  if (id)
    uuidText(reinterpret_cast<const unsigned char *>(id->bytes), name);
  std::fprintf(stderr, "xt cuGetExportTable %s -> %d\n", name, int(r));
  if (r == CUDA_SUCCESS && table && *table && wanted(name))
    *table = traceTable(id, static_cast<const void *const *>(*table));
  return r;
}

CUresult tracedGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags,
                              CUdriverProcAddressQueryResult *status);
CUresult tracedGetProcAddressV1(const char *symbol, void **pfn, int version, cuuint64_t flags);

// `v2`: the entry point has cuGetProcAddress_v2's signature (what the driver hands out for
// "cuGetProcAddress" to runtimes of CUDA 12 and later).
void *substitute(const char *name, void *real, bool v2) {
  if (!real)
    return real;
  if (!std::strcmp(name, "cuGetExportTable")) {
    realGetExportTable = reinterpret_cast<GetExportTable>(real);
    return reinterpret_cast<void *>(tracedGetExportTable);
  }
  if (!std::strcmp(name, "cuGetProcAddress_v2") || (v2 && !std::strcmp(name, "cuGetProcAddress"))) {
    realGetProcAddress = reinterpret_cast<GetProcAddress>(real);
    return reinterpret_cast<void *>(tracedGetProcAddress);
  }
  if (!std::strcmp(name, "cuGetProcAddress")) {
    realGetProcAddressV1 = reinterpret_cast<GetProcAddressV1>(real);
    return reinterpret_cast<void *>(tracedGetProcAddressV1);
  }
  return real;
}

CUresult tracedGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags,
                              CUdriverProcAddressQueryResult *status) {
  CUresult r = realGetProcAddress(symbol, pfn, version, flags, status);
  if (symbol && std::getenv("XT_SYMBOLS"))
    std::fprintf(stderr, "xt proc %s %d -> %d\n", symbol, version, int(r));
  if (r == CUDA_SUCCESS && symbol && pfn)
    *pfn = substitute(symbol, *pfn, version >= 12000);
  return r;
}

CUresult tracedGetProcAddressV1(const char *symbol, void **pfn, int version, cuuint64_t flags) {
  CUresult r = realGetProcAddressV1(symbol, pfn, version, flags);
  if (r == CUDA_SUCCESS && symbol && pfn)
    *pfn = substitute(symbol, *pfn, version >= 12000);
  return r;
}

void bindContextQueries(void *handle) {
  if (!realCtxGetCurrent)
    realCtxGetCurrent =
        reinterpret_cast<CUresult (*)(CUcontext *)>(realDlsym()(handle, "cuCtxGetCurrent"));
  if (!realCtxGetId)
    realCtxGetId = reinterpret_cast<CUresult (*)(CUcontext, unsigned long long *)>(
        realDlsym()(handle, "cuCtxGetId"));
}

} // namespace

extern "C" void *dlsym(void *handle, const char *name) {
  void *real = realDlsym()(handle, name);
  if (real && !std::strncmp(name, "cu", 2)) {
    bindContextQueries(handle);
    return substitute(name, real, false);
  }
  return real;
}
