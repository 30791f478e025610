// The misuse matrix: driver API calls given what a wrong program gives them (no cuInit, no
// current context, null outputs, destroyed and other contexts' handles, values out of range,
// junk images), each case in a process of its own with a time limit. Prints one line per case:
// its name and the CUresult, or "signal N" / "timeout" when the driver crashed or hung; each
// case's name goes to stderr first, so a driver's log can be read case by case.
// tests/gpu/answers/misuse.txt holds an H200's lines; tests/gpu/compare_misuse.py checks cucpu's
// against them (test api_misuse_matrix).
#include <cuda.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

const char *kPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.global .align 4 .u32 g;
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 7;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

// Setup that must work for a case to mean anything; a failure ends the case as "setup N".
void need(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    std::printf("setup %d (%s)\n", static_cast<int>(r), what);
    std::fflush(stdout);
    _exit(3);
  }
}
#define NEED(x) need((x), #x)

CUcontext ctx() {
  NEED(cuInit(0));
  CUdevice d;
  NEED(cuDeviceGet(&d, 0));
  CUcontext c;
  NEED(cuCtxCreate(&c, nullptr, 0, d));
  return c;
}
CUmodule mod() {
  CUmodule m;
  NEED(cuModuleLoadData(&m, kPtx));
  return m;
}
CUfunction fn(CUmodule m) {
  CUfunction f;
  NEED(cuModuleGetFunction(&f, m, "k"));
  return f;
}
CUstream stream() {
  CUstream s;
  NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  return s;
}
CUevent event() {
  CUevent e;
  NEED(cuEventCreate(&e, 0));
  return e;
}
CUdeviceptr mem(size_t bytes = 256) {
  CUdeviceptr p;
  NEED(cuMemAlloc(&p, bytes));
  return p;
}
CUarray array() {
  CUDA_ARRAY_DESCRIPTOR d{};
  d.Width = 16;
  d.Height = 16;
  d.Format = CU_AD_FORMAT_FLOAT;
  d.NumChannels = 1;
  CUarray a;
  NEED(cuArrayCreate(&a, &d));
  return a;
}
CUtexObject texobj(CUarray a) {
  CUDA_RESOURCE_DESC r{};
  r.resType = CU_RESOURCE_TYPE_ARRAY;
  r.res.array.hArray = a;
  CUDA_TEXTURE_DESC t{};
  CUtexObject o;
  NEED(cuTexObjectCreate(&o, &r, &t, nullptr));
  return o;
}
CUgraph graph() {
  CUgraph g;
  NEED(cuGraphCreate(&g, 0));
  CUgraphNode n;
  NEED(cuGraphAddEmptyNode(&n, g, nullptr, 0));
  return g;
}
CUgraphExec gexec(CUgraph g) {
  CUgraphExec e;
  NEED(cuGraphInstantiate(&e, g, 0));
  return e;
}
CUmemoryPool pool() {
  CUmemPoolProps p{};
  p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = 0;
  CUmemoryPool mp;
  NEED(cuMemPoolCreate(&mp, &p));
  return mp;
}
CUlibrary library() {
  CUlibrary l;
  NEED(cuLibraryLoadData(&l, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  return l;
}
// Handles of things already unloaded or destroyed, for the cases about dead handles.
CUfunction unloadedFunction() {
  CUmodule m = mod();
  CUfunction f = fn(m);
  NEED(cuModuleUnload(m));
  return f;
}
CUlibrary unloadedLibrary() {
  CUlibrary l = library();
  NEED(cuLibraryUnload(l));
  return l;
}
CUgraph destroyedGraph() {
  CUgraph g = graph();
  NEED(cuGraphDestroy(g));
  return g;
}
CUmemoryPool destroyedPool() {
  CUmemoryPool mp = pool();
  NEED(cuMemPoolDestroy(mp));
  return mp;
}
CUevent destroyedEvent() {
  CUevent e = event();
  NEED(cuEventDestroy(e));
  return e;
}
CUstream destroyedStream() {
  CUstream s = stream();
  NEED(cuStreamDestroy(s));
  return s;
}
CUresult launch(CUfunction f, CUstream s, CUdeviceptr out, unsigned gx = 1, unsigned bx = 1,
                unsigned by = 1, unsigned bz = 1, unsigned gy = 1, unsigned shared = 0) {
  void *args[] = {&out};
  return cuLaunchKernel(f, gx, gy, 1, bx, by, bz, shared, s, args, nullptr);
}

using Case = std::pair<std::string, std::function<CUresult()>>;
std::vector<Case> cases;
void add(std::string name, std::function<CUresult()> run) {
  cases.emplace_back(std::move(name), std::move(run));
}

// Calls made before cuInit.
void beforeInit() {
  CUdevice d;
  int n;
  CUcontext c;
  size_t free, total;
  add("no init: cuDeviceGet", [&] { return cuDeviceGet(&d, 0); });
  add("no init: cuDeviceGetCount", [&] { return cuDeviceGetCount(&n); });
  add("no init: cuDriverGetVersion", [&] { return cuDriverGetVersion(&n); });
  add("no init: cuCtxGetCurrent", [&] { return cuCtxGetCurrent(&c); });
  add("no init: cuCtxCreate", [&] { return cuCtxCreate(&c, nullptr, 0, 0); });
  add("no init: cuCtxSynchronize", [] { return cuCtxSynchronize(); });
  add("no init: cuMemGetInfo", [&] { return cuMemGetInfo(&free, &total); });
  add("no init: cuMemAlloc", [] {
    CUdeviceptr p;
    return cuMemAlloc(&p, 16);
  });
  add("no init: cuModuleLoadData", [] {
    CUmodule m;
    return cuModuleLoadData(&m, kPtx);
  });
  add("no init: cuStreamCreate", [] {
    CUstream s;
    return cuStreamCreate(&s, 0);
  });
  add("no init: cuEventCreate", [] {
    CUevent e;
    return cuEventCreate(&e, 0);
  });
  add("no init: cuDevicePrimaryCtxRetain", [&] { return cuDevicePrimaryCtxRetain(&c, 0); });
  add("no init: cuDeviceGetAttribute",
      [&] { return cuDeviceGetAttribute(&n, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0); });
  add("no init: cuGetErrorString", [] {
    const char *s;
    return cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s);
  });
  add("no init: cuStreamSynchronize(0)", [] { return cuStreamSynchronize(nullptr); });
  add("no init: cuMemFree(0)", [] { return cuMemFree(0); });
  add("no init: cuGraphCreate", [] {
    CUgraph g;
    return cuGraphCreate(&g, 0);
  });
  add("no init: cuMemGetDefaultMemPool(host)", [] {
    CUmemoryPool p;
    CUmemLocation l = {CU_MEM_LOCATION_TYPE_HOST, 0};
    return cuMemGetDefaultMemPool(&p, &l, CU_MEM_ALLOCATION_TYPE_PINNED);
  });
  add("no init: cuMemGetMemPool(managed, no location)", [] {
    CUmemoryPool p;
    CUmemLocation l = {CU_MEM_LOCATION_TYPE_NONE, 0};
    return cuMemGetMemPool(&p, &l, CU_MEM_ALLOCATION_TYPE_MANAGED);
  });
}

// Calls made after cuInit with no context current.
void noContext() {
  auto init = [] { NEED(cuInit(0)); };
  struct Call {
    const char *name;
    std::function<CUresult()> run;
  };
  std::vector<Call> calls = {
      {"cuMemAlloc",
       [] {
         CUdeviceptr p;
         return cuMemAlloc(&p, 16);
       }},
      {"cuMemFree(0)", [] { return cuMemFree(0); }},
      {"cuMemAllocHost",
       [] {
         void *p;
         return cuMemAllocHost(&p, 16);
       }},
      {"cuMemHostAlloc",
       [] {
         void *p;
         return cuMemHostAlloc(&p, 16, 0);
       }},
      {"cuMemGetInfo",
       [] {
         size_t a, b;
         return cuMemGetInfo(&a, &b);
       }},
      {"cuModuleLoadData",
       [] {
         CUmodule m;
         return cuModuleLoadData(&m, kPtx);
       }},
      {"cuLibraryLoadData",
       [] {
         CUlibrary l;
         return cuLibraryLoadData(&l, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0);
       }},
      {"cuStreamCreate",
       [] {
         CUstream s;
         return cuStreamCreate(&s, 0);
       }},
      {"cuEventCreate",
       [] {
         CUevent e;
         return cuEventCreate(&e, 0);
       }},
      {"cuCtxSynchronize", [] { return cuCtxSynchronize(); }},
      {"cuCtxGetDevice",
       [] {
         CUdevice d;
         return cuCtxGetDevice(&d);
       }},
      {"cuCtxGetFlags",
       [] {
         unsigned f;
         return cuCtxGetFlags(&f);
       }},
      {"cuCtxGetLimit",
       [] {
         size_t v;
         return cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE);
       }},
      {"cuCtxSetLimit", [] { return cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 1024); }},
      {"cuCtxGetCacheConfig",
       [] {
         CUfunc_cache c;
         return cuCtxGetCacheConfig(&c);
       }},
      {"cuCtxGetStreamPriorityRange",
       [] {
         int lo, hi;
         return cuCtxGetStreamPriorityRange(&lo, &hi);
       }},
      {"cuCtxPopCurrent",
       [] {
         CUcontext c;
         return cuCtxPopCurrent(&c);
       }},
      {"cuCtxGetApiVersion(null)",
       [] {
         unsigned v;
         return cuCtxGetApiVersion(nullptr, &v);
       }},
      {"cuCtxGetId(null)",
       [] {
         unsigned long long id;
         return cuCtxGetId(nullptr, &id);
       }},
      {"cuStreamSynchronize(0)", [] { return cuStreamSynchronize(nullptr); }},
      {"cuStreamQuery(0)", [] { return cuStreamQuery(nullptr); }},
      {"cuMemcpyHtoD",
       [] {
         int h = 0;
         return cuMemcpyHtoD(0x1000, &h, 4);
       }},
      {"cuMemsetD8", [] { return cuMemsetD8(0x1000, 0, 4); }},
      {"cuArrayCreate",
       [] {
         CUDA_ARRAY_DESCRIPTOR d{16, 16, CU_AD_FORMAT_FLOAT, 1};
         CUarray a;
         return cuArrayCreate(&a, &d);
       }},
      {"cuGraphCreate",
       [] {
         CUgraph g;
         return cuGraphCreate(&g, 0);
       }},
      {"cuLinkCreate",
       [] {
         CUlinkState l;
         return cuLinkCreate(0, nullptr, nullptr, &l);
       }},
      {"cuDeviceGetDefaultMemPool",
       [] {
         CUmemoryPool p;
         return cuDeviceGetDefaultMemPool(&p, 0);
       }},
      {"cuMemAllocAsync",
       [] {
         CUdeviceptr p;
         return cuMemAllocAsync(&p, 16, nullptr);
       }},
      {"cuPointerGetAttribute",
       [] {
         CUcontext c;
         return cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, 0x1000);
       }},
  };
  for (auto &c : calls)
    add(std::string("no context: ") + c.name, [init, run = c.run] {
      init();
      return run();
    });
}

// Null output or input pointers, with a context current.
void nullPointers() {
  struct Call {
    const char *name;
    std::function<CUresult()> run;
  };
  std::vector<Call> calls = {
      {"cuDeviceGet(null)", [] { return cuDeviceGet(nullptr, 0); }},
      {"cuDeviceGetCount(null)", [] { return cuDeviceGetCount(nullptr); }},
      {"cuDeviceGetName(null)", [] { return cuDeviceGetName(nullptr, 16, 0); }},
      {"cuDeviceGetAttribute(null)",
       [] { return cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0); }},
      {"cuDeviceTotalMem(null)", [] { return cuDeviceTotalMem(nullptr, 0); }},
      {"cuDeviceGetUuid(null)", [] { return cuDeviceGetUuid(nullptr, 0); }},
      {"cuMemGetDefaultMemPool(null, host)",
       [] {
         CUmemLocation l = {CU_MEM_LOCATION_TYPE_HOST, 0};
         return cuMemGetDefaultMemPool(nullptr, &l, CU_MEM_ALLOCATION_TYPE_PINNED);
       }},
      {"cuMemGetMemPool(null, device 0)",
       [] {
         CUmemLocation l = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
         return cuMemGetMemPool(nullptr, &l, CU_MEM_ALLOCATION_TYPE_PINNED);
       }},
      {"cuDriverGetVersion(null)", [] { return cuDriverGetVersion(nullptr); }},
      {"cuCtxGetCurrent(null)", [] { return cuCtxGetCurrent(nullptr); }},
      {"cuCtxCreate(null)", [] { return cuCtxCreate(nullptr, nullptr, 0, 0); }},
      {"cuCtxGetDevice(null)", [] { return cuCtxGetDevice(nullptr); }},
      {"cuCtxGetLimit(null)", [] { return cuCtxGetLimit(nullptr, CU_LIMIT_STACK_SIZE); }},
      {"cuCtxGetApiVersion(ctx, null)",
       [] {
         CUcontext c;
         cuCtxGetCurrent(&c);
         return cuCtxGetApiVersion(c, nullptr);
       }},
      {"cuCtxGetFlags(null)", [] { return cuCtxGetFlags(nullptr); }},
      {"cuMemAlloc(null)", [] { return cuMemAlloc(nullptr, 16); }},
      {"cuMemAllocHost(null)", [] { return cuMemAllocHost(nullptr, 16); }},
      {"cuMemGetInfo(null, null)", [] { return cuMemGetInfo(nullptr, nullptr); }},
      {"cuMemAllocPitch(null pitch)",
       [] {
         CUdeviceptr p;
         return cuMemAllocPitch(&p, nullptr, 64, 4, 4);
       }},
      {"cuMemGetAddressRange(null, null)",
       [] { return cuMemGetAddressRange(nullptr, nullptr, mem()); }},
      {"cuMemcpyHtoD(null src)", [] { return cuMemcpyHtoD(mem(), nullptr, 4); }},
      {"cuMemcpyDtoH(null dst)", [] { return cuMemcpyDtoH(nullptr, mem(), 4); }},
      {"cuModuleLoadData(null module)", [] { return cuModuleLoadData(nullptr, kPtx); }},
      {"cuModuleLoadData(null image)",
       [] {
         CUmodule m;
         return cuModuleLoadData(&m, nullptr);
       }},
      {"cuModuleGetFunction(null)", [] { return cuModuleGetFunction(nullptr, mod(), "k"); }},
      {"cuModuleGetFunction(null name)",
       [] {
         CUfunction f;
         return cuModuleGetFunction(&f, mod(), nullptr);
       }},
      {"cuModuleGetGlobal(null, null)",
       [] { return cuModuleGetGlobal(nullptr, nullptr, mod(), "g"); }},
      {"cuModuleGetGlobal(null name)",
       [] {
         CUdeviceptr p;
         size_t n;
         return cuModuleGetGlobal(&p, &n, mod(), nullptr);
       }},
      {"cuFuncGetAttribute(null)",
       [] { return cuFuncGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_NUM_REGS, fn(mod())); }},
      {"cuLaunchKernel(null function)", [] { return launch(nullptr, nullptr, mem()); }},
      {"cuLaunchKernel(null params)",
       [] { return cuLaunchKernel(fn(mod()), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr); }},
      {"cuStreamCreate(null)", [] { return cuStreamCreate(nullptr, 0); }},
      {"cuStreamGetFlags(null)", [] { return cuStreamGetFlags(stream(), nullptr); }},
      {"cuStreamGetPriority(null)", [] { return cuStreamGetPriority(stream(), nullptr); }},
      {"cuStreamGetCtx(null)", [] { return cuStreamGetCtx(stream(), nullptr); }},
      {"cuStreamWaitEvent(null event)", [] { return cuStreamWaitEvent(stream(), nullptr, 0); }},
      {"cuStreamAddCallback(null callback)",
       [] { return cuStreamAddCallback(stream(), nullptr, nullptr, 0); }},
      {"cuLaunchHostFunc(null function)",
       [] { return cuLaunchHostFunc(stream(), nullptr, nullptr); }},
      {"cuEventCreate(null)", [] { return cuEventCreate(nullptr, 0); }},
      {"cuEventRecord(null)", [] { return cuEventRecord(nullptr, nullptr); }},
      {"cuEventQuery(null)", [] { return cuEventQuery(nullptr); }},
      {"cuEventSynchronize(null)", [] { return cuEventSynchronize(nullptr); }},
      {"cuEventDestroy(null)", [] { return cuEventDestroy(nullptr); }},
      {"cuEventElapsedTime(null)",
       [] {
         CUevent a = event(), b = event();
         cuEventRecord(a, nullptr);
         cuEventRecord(b, nullptr);
         cuEventSynchronize(b);
         return cuEventElapsedTime(nullptr, a, b);
       }},
      {"cuArrayCreate(null)",
       [] {
         CUDA_ARRAY_DESCRIPTOR d{16, 16, CU_AD_FORMAT_FLOAT, 1};
         return cuArrayCreate(nullptr, &d);
       }},
      {"cuArrayCreate(null descriptor)",
       [] {
         CUarray a;
         return cuArrayCreate(&a, nullptr);
       }},
      {"cuArrayGetDescriptor(null)", [] { return cuArrayGetDescriptor(nullptr, array()); }},
      {"cuTexObjectCreate(null)",
       [] {
         CUDA_RESOURCE_DESC r{};
         r.resType = CU_RESOURCE_TYPE_ARRAY;
         r.res.array.hArray = array();
         CUDA_TEXTURE_DESC t{};
         return cuTexObjectCreate(nullptr, &r, &t, nullptr);
       }},
      {"cuTexObjectCreate(null resource)",
       [] {
         CUDA_TEXTURE_DESC t{};
         CUtexObject o;
         return cuTexObjectCreate(&o, nullptr, &t, nullptr);
       }},
      {"cuGraphCreate(null)", [] { return cuGraphCreate(nullptr, 0); }},
      {"cuGraphInstantiate(null)", [] { return cuGraphInstantiate(nullptr, graph(), 0); }},
      {"cuGraphAddEmptyNode(null)",
       [] { return cuGraphAddEmptyNode(nullptr, graph(), nullptr, 0); }},
      {"cuGraphGetNodes(null, null)", [] { return cuGraphGetNodes(graph(), nullptr, nullptr); }},
      {"cuMemPoolCreate(null)",
       [] {
         CUmemPoolProps p{};
         p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
         p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
         return cuMemPoolCreate(nullptr, &p);
       }},
      {"cuMemPoolCreate(null props)",
       [] {
         CUmemoryPool mp;
         return cuMemPoolCreate(&mp, nullptr);
       }},
      {"cuDeviceGetDefaultMemPool(null)", [] { return cuDeviceGetDefaultMemPool(nullptr, 0); }},
      {"cuMemAllocAsync(null)", [] { return cuMemAllocAsync(nullptr, 16, stream()); }},
      {"cuLibraryLoadData(null library)",
       [] { return cuLibraryLoadData(nullptr, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0); }},
      {"cuLibraryGetKernel(null)", [] { return cuLibraryGetKernel(nullptr, library(), "k"); }},
      {"cuLinkCreate(null)", [] { return cuLinkCreate(0, nullptr, nullptr, nullptr); }},
      {"cuOccupancyMaxActiveBlocksPerMultiprocessor(null)",
       [] { return cuOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, fn(mod()), 128, 0); }},
      {"cuPointerGetAttribute(null)",
       [] { return cuPointerGetAttribute(nullptr, CU_POINTER_ATTRIBUTE_CONTEXT, mem()); }},
      {"cuGetErrorString(null)",
       [] { return cuGetErrorString(CUDA_ERROR_INVALID_VALUE, nullptr); }},
      {"cuGetErrorName(null)", [] { return cuGetErrorName(CUDA_ERROR_INVALID_VALUE, nullptr); }},
      {"cuGetProcAddress(null symbol)",
       [] {
         void *p;
         return cuGetProcAddress(nullptr, &p, 12000, 0, nullptr);
       }},
      {"cuGetProcAddress(null pfn)",
       [] { return cuGetProcAddress("cuInit", nullptr, 12000, 0, nullptr); }},
      {"cuIpcGetMemHandle(null)", [] { return cuIpcGetMemHandle(nullptr, mem()); }},
      {"cuFuncGetName(null)", [] { return cuFuncGetName(nullptr, fn(mod())); }},
  };
  for (auto &c : calls)
    add(std::string("null: ") + c.name, [run = c.run] {
      ctx();
      return run();
    });
}

// Handles used after they were destroyed.
void destroyed() {
  struct Kind {
    const char *name;
    std::vector<std::pair<const char *, std::function<CUresult()>>> uses;
  };
  std::vector<Kind> kinds = {
      {"stream",
       {{"cuStreamQuery",
         [] {
           CUstream s = stream();
           cuStreamDestroy(s);
           return cuStreamQuery(s);
         }},
        {"cuStreamSynchronize",
         [] {
           CUstream s = stream();
           cuStreamDestroy(s);
           return cuStreamSynchronize(s);
         }},
        {"cuStreamDestroy",
         [] {
           CUstream s = stream();
           cuStreamDestroy(s);
           return cuStreamDestroy(s);
         }},
        {"cuStreamGetFlags",
         [] {
           CUstream s = stream();
           cuStreamDestroy(s);
           unsigned f;
           return cuStreamGetFlags(s, &f);
         }},
        {"cuStreamGetPriority",
         [] {
           CUstream s = stream();
           cuStreamDestroy(s);
           int p;
           return cuStreamGetPriority(s, &p);
         }},
        {"cuLaunchKernel",
         [] {
           CUfunction f = fn(mod());
           CUdeviceptr o = mem();
           CUstream s = stream();
           cuStreamDestroy(s);
           return launch(f, s, o);
         }},
        {"cuMemsetD8Async",
         [] {
           CUdeviceptr p = mem();
           CUstream s = stream();
           cuStreamDestroy(s);
           return cuMemsetD8Async(p, 0, 4, s);
         }},
        {"cuEventRecord",
         [] {
           CUevent e = event();
           CUstream s = stream();
           cuStreamDestroy(s);
           return cuEventRecord(e, s);
         }},
        {"cuStreamWaitEvent",
         [] {
           CUevent e = event();
           CUstream s = stream();
           cuStreamDestroy(s);
           return cuStreamWaitEvent(s, e, 0);
         }},
        {"cuStreamBeginCapture",
         [] {
           CUstream s = stream();
           cuStreamDestroy(s);
           return cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
         }}}},
      {"event",
       {{"cuEventQuery",
         [] {
           CUevent e = event();
           cuEventDestroy(e);
           return cuEventQuery(e);
         }},
        {"cuEventSynchronize",
         [] {
           CUevent e = event();
           cuEventDestroy(e);
           return cuEventSynchronize(e);
         }},
        {"cuEventRecord",
         [] {
           CUevent e = event();
           cuEventDestroy(e);
           return cuEventRecord(e, nullptr);
         }},
        {"cuEventDestroy",
         [] {
           CUevent e = event();
           cuEventDestroy(e);
           return cuEventDestroy(e);
         }},
        {"cuStreamWaitEvent",
         [] {
           CUevent e = event();
           cuEventDestroy(e);
           return cuStreamWaitEvent(nullptr, e, 0);
         }},
        {"cuEventElapsedTime",
         [] {
           CUevent a = event(), b = event();
           cuEventRecord(a, nullptr);
           cuEventRecord(b, nullptr);
           cuCtxSynchronize();
           cuEventDestroy(a);
           float ms;
           return cuEventElapsedTime(&ms, a, b);
         }}}},
      {"module",
       {{"cuModuleGetFunction",
         [] {
           CUmodule m = mod();
           cuModuleUnload(m);
           CUfunction f;
           return cuModuleGetFunction(&f, m, "k");
         }},
        {"cuModuleGetGlobal",
         [] {
           CUmodule m = mod();
           cuModuleUnload(m);
           CUdeviceptr p;
           size_t n;
           return cuModuleGetGlobal(&p, &n, m, "g");
         }},
        {"cuModuleUnload",
         [] {
           CUmodule m = mod();
           cuModuleUnload(m);
           return cuModuleUnload(m);
         }}}},
      {"function of an unloaded module",
       {{"cuLaunchKernel",
         [] {
           CUmodule m = mod();
           CUfunction f = fn(m);
           CUdeviceptr o = mem();
           cuModuleUnload(m);
           return launch(f, nullptr, o);
         }},
        {"cuFuncGetAttribute",
         [] {
           CUmodule m = mod();
           CUfunction f = fn(m);
           cuModuleUnload(m);
           int v;
           return cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
         }},
        {"cuFuncSetAttribute",
         [] {
           CUmodule m = mod();
           CUfunction f = fn(m);
           cuModuleUnload(m);
           return cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024);
         }},
        {"cuFuncGetModule",
         [] {
           CUmodule m = mod();
           CUfunction f = fn(m);
           cuModuleUnload(m);
           CUmodule out;
           return cuFuncGetModule(&out, f);
         }}}},
      {"memory",
       {{"cuMemFree",
         [] {
           CUdeviceptr p = mem();
           cuMemFree(p);
           return cuMemFree(p);
         }},
        {"cuMemcpyHtoD",
         [] {
           CUdeviceptr p = mem();
           cuMemFree(p);
           int h = 1;
           return cuMemcpyHtoD(p, &h, 4);
         }},
        {"cuMemcpyDtoH",
         [] {
           CUdeviceptr p = mem();
           cuMemFree(p);
           int h;
           return cuMemcpyDtoH(&h, p, 4);
         }},
        {"cuMemsetD32",
         [] {
           CUdeviceptr p = mem();
           cuMemFree(p);
           return cuMemsetD32(p, 1, 1);
         }},
        {"cuMemGetAddressRange",
         [] {
           CUdeviceptr p = mem();
           cuMemFree(p);
           CUdeviceptr b;
           size_t n;
           return cuMemGetAddressRange(&b, &n, p);
         }},
        {"cuPointerGetAttribute",
         [] {
           CUdeviceptr p = mem();
           cuMemFree(p);
           CUcontext c;
           return cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p);
         }},
        {"cuMemFreeHost",
         [] {
           void *h;
           NEED(cuMemAllocHost(&h, 64));
           cuMemFreeHost(h);
           return cuMemFreeHost(h);
         }},
        {"cuMemHostGetDevicePointer",
         [] {
           void *h;
           NEED(cuMemHostAlloc(&h, 64, CU_MEMHOSTALLOC_DEVICEMAP));
           cuMemFreeHost(h);
           CUdeviceptr d;
           return cuMemHostGetDevicePointer(&d, h, 0);
         }}}},
      {"array",
       {{"cuArrayGetDescriptor",
         [] {
           CUarray a = array();
           cuArrayDestroy(a);
           CUDA_ARRAY_DESCRIPTOR d;
           return cuArrayGetDescriptor(&d, a);
         }},
        {"cuArrayDestroy",
         [] {
           CUarray a = array();
           cuArrayDestroy(a);
           return cuArrayDestroy(a);
         }}}},
      {"texture object",
       {{"cuTexObjectGetResourceDesc",
         [] {
           CUtexObject o = texobj(array());
           cuTexObjectDestroy(o);
           CUDA_RESOURCE_DESC r;
           return cuTexObjectGetResourceDesc(&r, o);
         }},
        {"cuTexObjectDestroy",
         [] {
           CUtexObject o = texobj(array());
           cuTexObjectDestroy(o);
           return cuTexObjectDestroy(o);
         }}}},
      {"graph",
       {{"cuGraphAddEmptyNode",
         [] {
           CUgraph g = graph();
           cuGraphDestroy(g);
           CUgraphNode n;
           return cuGraphAddEmptyNode(&n, g, nullptr, 0);
         }},
        {"cuGraphInstantiate",
         [] {
           CUgraph g = graph();
           cuGraphDestroy(g);
           CUgraphExec e;
           return cuGraphInstantiate(&e, g, 0);
         }},
        {"cuGraphDestroy",
         [] {
           CUgraph g = graph();
           cuGraphDestroy(g);
           return cuGraphDestroy(g);
         }}}},
      {"graph exec",
       {{"cuGraphLaunch",
         [] {
           CUgraphExec e = gexec(graph());
           cuGraphExecDestroy(e);
           return cuGraphLaunch(e, nullptr);
         }},
        {"cuGraphExecDestroy",
         [] {
           CUgraphExec e = gexec(graph());
           cuGraphExecDestroy(e);
           return cuGraphExecDestroy(e);
         }}}},
      {"memory pool",
       {{"cuMemPoolGetAttribute",
         [] {
           CUmemoryPool p = pool();
           cuMemPoolDestroy(p);
           cuuint64_t v;
           return cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v);
         }},
        {"cuMemAllocFromPoolAsync",
         [] {
           CUmemoryPool p = pool();
           cuMemPoolDestroy(p);
           CUdeviceptr d;
           return cuMemAllocFromPoolAsync(&d, 16, p, nullptr);
         }},
        {"cuMemPoolDestroy",
         [] {
           CUmemoryPool p = pool();
           cuMemPoolDestroy(p);
           return cuMemPoolDestroy(p);
         }}}},
      {"library",
       {{"cuLibraryGetKernel",
         [] {
           CUlibrary l = library();
           cuLibraryUnload(l);
           CUkernel k;
           return cuLibraryGetKernel(&k, l, "k");
         }},
        {"cuLibraryGetModule",
         [] {
           CUlibrary l = library();
           cuLibraryUnload(l);
           CUmodule m;
           return cuLibraryGetModule(&m, l);
         }},
        {"cuLibraryUnload",
         [] {
           CUlibrary l = library();
           cuLibraryUnload(l);
           return cuLibraryUnload(l);
         }}}},
      {"context",
       {{"cuCtxSetCurrent",
         [] {
           CUcontext c = ctx();
           cuCtxDestroy(c);
           return cuCtxSetCurrent(c);
         }},
        {"cuCtxPushCurrent",
         [] {
           CUcontext c = ctx();
           cuCtxDestroy(c);
           return cuCtxPushCurrent(c);
         }},
        {"cuCtxDestroy",
         [] {
           CUcontext c = ctx();
           cuCtxDestroy(c);
           return cuCtxDestroy(c);
         }},
        {"cuCtxGetApiVersion",
         [] {
           CUcontext c = ctx();
           cuCtxDestroy(c);
           unsigned v;
           return cuCtxGetApiVersion(c, &v);
         }},
        {"cuCtxSynchronize after destroying the current one",
         [] {
           CUcontext c = ctx();
           cuCtxDestroy(c);
           return cuCtxSynchronize();
         }},
        {"cuMemAlloc after destroying the current one",
         [] {
           CUcontext c = ctx();
           cuCtxDestroy(c);
           CUdeviceptr p;
           return cuMemAlloc(&p, 16);
         }},
        {"its stream's cuStreamSynchronize",
         [] {
           CUcontext c = ctx();
           CUstream s = stream();
           cuCtxDestroy(c);
           return cuStreamSynchronize(s);
         }}}},
  };
  for (auto &k : kinds) {
    const bool ownContext = std::strcmp(k.name, "context") == 0; // those cases make their own
    for (auto &u : k.uses)
      add(std::string("destroyed ") + k.name + ": " + u.first, [ownContext, run = u.second] {
        if (ownContext)
          NEED(cuInit(0));
        else
          ctx();
        return run();
      });
  }
}

// A handle of context A used while context B is current.
void crossContext() {
  struct Use {
    const char *name;
    std::function<CUresult(CUcontext a, CUcontext b)> run;
  };
  auto other = [](CUcontext b) { NEED(cuCtxSetCurrent(b)); };
  std::vector<Use> uses = {
      {"cuLaunchKernel of A's function",
       [&](CUcontext, CUcontext b) {
         CUfunction f = fn(mod());
         other(b);
         return launch(f, nullptr, mem());
       }},
      {"cuLaunchKernel on A's stream",
       [&](CUcontext, CUcontext b) {
         CUstream s = stream();
         other(b);
         return launch(fn(mod()), s, mem());
       }},
      {"cuEventRecord of A's event on B's stream",
       [&](CUcontext, CUcontext b) {
         CUevent e = event();
         other(b);
         return cuEventRecord(e, stream());
       }},
      {"cuEventRecord of A's event on the null stream",
       [&](CUcontext, CUcontext b) {
         CUevent e = event();
         other(b);
         return cuEventRecord(e, nullptr);
       }},
      {"cuStreamWaitEvent of B's stream on A's event",
       [&](CUcontext, CUcontext b) {
         CUevent e = event();
         cuEventRecord(e, nullptr);
         other(b);
         return cuStreamWaitEvent(stream(), e, 0);
       }},
      {"cuStreamSynchronize of A's stream",
       [&](CUcontext, CUcontext b) {
         CUstream s = stream();
         other(b);
         return cuStreamSynchronize(s);
       }},
      {"cuStreamQuery of A's stream",
       [&](CUcontext, CUcontext b) {
         CUstream s = stream();
         other(b);
         return cuStreamQuery(s);
       }},
      {"cuStreamDestroy of A's stream",
       [&](CUcontext, CUcontext b) {
         CUstream s = stream();
         other(b);
         return cuStreamDestroy(s);
       }},
      {"cuEventSynchronize of A's event",
       [&](CUcontext, CUcontext b) {
         CUevent e = event();
         cuEventRecord(e, nullptr);
         other(b);
         return cuEventSynchronize(e);
       }},
      {"cuEventDestroy of A's event",
       [&](CUcontext, CUcontext b) {
         CUevent e = event();
         other(b);
         return cuEventDestroy(e);
       }},
      {"cuModuleGetFunction of A's module",
       [&](CUcontext, CUcontext b) {
         CUmodule m = mod();
         other(b);
         CUfunction f;
         return cuModuleGetFunction(&f, m, "k");
       }},
      {"cuModuleUnload of A's module",
       [&](CUcontext, CUcontext b) {
         CUmodule m = mod();
         other(b);
         return cuModuleUnload(m);
       }},
      {"cuFuncGetAttribute of A's function",
       [&](CUcontext, CUcontext b) {
         CUfunction f = fn(mod());
         other(b);
         int v;
         return cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
       }},
      {"cuMemFree of A's memory",
       [&](CUcontext, CUcontext b) {
         CUdeviceptr p = mem();
         other(b);
         return cuMemFree(p);
       }},
      {"cuMemcpyHtoD into A's memory",
       [&](CUcontext, CUcontext b) {
         CUdeviceptr p = mem();
         other(b);
         int h = 1;
         return cuMemcpyHtoD(p, &h, 4);
       }},
      {"cuMemsetD8 of A's memory",
       [&](CUcontext, CUcontext b) {
         CUdeviceptr p = mem();
         other(b);
         return cuMemsetD8(p, 1, 4);
       }},
      {"cuMemcpyDtoD from A's memory to B's",
       [&](CUcontext, CUcontext b) {
         CUdeviceptr p = mem();
         other(b);
         return cuMemcpyDtoD(mem(), p, 4);
       }},
      {"cuArrayDestroy of A's array",
       [&](CUcontext, CUcontext b) {
         CUarray a = array();
         other(b);
         return cuArrayDestroy(a);
       }},
      {"cuGraphLaunch of A's executable graph on B's stream",
       [&](CUcontext, CUcontext b) {
         CUgraphExec e = gexec(graph());
         other(b);
         return cuGraphLaunch(e, stream());
       }},
      {"cuCtxGetApiVersion of A",
       [&](CUcontext a, CUcontext b) {
         other(b);
         unsigned v;
         return cuCtxGetApiVersion(a, &v);
       }},
      {"cuCtxDestroy of A while B is current",
       [&](CUcontext a, CUcontext b) {
         other(b);
         return cuCtxDestroy(a);
       }},
      {"cuPointerGetAttribute context of A's memory",
       [&](CUcontext a, CUcontext b) {
         CUdeviceptr p = mem();
         other(b);
         CUcontext c;
         CUresult r = cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p);
         return r == CUDA_SUCCESS && c != a ? CUDA_ERROR_UNKNOWN : r;
       }},
  };
  for (auto &u : uses)
    add(std::string("other context: ") + u.name, [run = u.run] {
      CUcontext b = ctx(); // B first, then A current
      CUcontext a = ctx();
      return run(a, b);
    });
}

// Values out of range: devices, attributes, limits, flags, sizes, launch shapes.
void outOfRange() {
  struct Call {
    const char *name;
    std::function<CUresult()> run;
  };
  std::vector<Call> calls = {
      {"cuDeviceGet(99)",
       [] {
         CUdevice d;
         return cuDeviceGet(&d, 99);
       }},
      {"cuDeviceGet(-1)",
       [] {
         CUdevice d;
         return cuDeviceGet(&d, -1);
       }},
      {"cuDeviceGetAttribute(9999)",
       [] {
         int v;
         return cuDeviceGetAttribute(&v, CUdevice_attribute(9999), 0);
       }},
      {"cuDeviceGetAttribute(device 99)",
       [] {
         int v;
         return cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 99);
       }},
      {"cuDeviceGetName(length 0)",
       [] {
         char n[8];
         return cuDeviceGetName(n, 0, 0);
       }},
      {"cuDeviceGetName(length -1)",
       [] {
         char n[8];
         return cuDeviceGetName(n, -1, 0);
       }},
      {"cuDeviceTotalMem(device 99)",
       [] {
         size_t b;
         return cuDeviceTotalMem(&b, 99);
       }},
      {"cuDevicePrimaryCtxRetain(device 99)",
       [] {
         CUcontext c;
         return cuDevicePrimaryCtxRetain(&c, 99);
       }},
      {"cuDevicePrimaryCtxSetFlags(0xff)", [] { return cuDevicePrimaryCtxSetFlags(0, 0xff); }},
      {"cuCtxCreate(flags 0xffff)",
       [] {
         CUcontext c;
         return cuCtxCreate(&c, nullptr, 0xffff, 0);
       }},
      {"cuCtxCreate(device 99)",
       [] {
         CUcontext c;
         return cuCtxCreate(&c, nullptr, 0, 99);
       }},
      {"cuCtxSetLimit(99)", [] { return cuCtxSetLimit(CUlimit(99), 0); }},
      {"cuCtxGetLimit(99)",
       [] {
         size_t v;
         return cuCtxGetLimit(&v, CUlimit(99));
       }},
      {"cuCtxSetLimit(stack 0)", [] { return cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 0); }},
      {"cuCtxSetLimit(printf fifo 0)", [] { return cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 0); }},
      {"cuCtxSetLimit(heap 1 TiB)",
       [] { return cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, size_t(1) << 40); }},
      {"cuCtxSetCacheConfig(9)", [] { return cuCtxSetCacheConfig(CUfunc_cache(9)); }},
      {"cuCtxEnablePeerAccess(itself)",
       [] {
         CUcontext c;
         cuCtxGetCurrent(&c);
         return cuCtxEnablePeerAccess(c, 0);
       }},
      {"cuCtxEnablePeerAccess(flags 1)",
       [] {
         CUcontext c;
         cuCtxGetCurrent(&c);
         return cuCtxEnablePeerAccess(c, 1);
       }},
      {"cuStreamCreate(flags 8)",
       [] {
         CUstream s;
         return cuStreamCreate(&s, 8);
       }},
      {"cuStreamCreateWithPriority(-100)",
       [] {
         CUstream s;
         return cuStreamCreateWithPriority(&s, 0, -100);
       }},
      {"cuStreamCreateWithPriority(100)",
       [] {
         CUstream s;
         return cuStreamCreateWithPriority(&s, 0, 100);
       }},
      {"cuStreamWaitEvent(flags 2)",
       [] {
         CUevent e = event();
         return cuStreamWaitEvent(nullptr, e, 2);
       }},
      {"cuStreamBeginCapture(mode 9)",
       [] { return cuStreamBeginCapture(stream(), CUstreamCaptureMode(9)); }},
      {"cuStreamBeginCapture(null stream)",
       [] { return cuStreamBeginCapture(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL); }},
      {"cuEventCreate(flags 0xff)",
       [] {
         CUevent e;
         return cuEventCreate(&e, 0xff);
       }},
      {"cuEventElapsedTime(unrecorded)",
       [] {
         CUevent a = event(), b = event();
         float ms;
         return cuEventElapsedTime(&ms, a, b);
       }},
      {"cuEventElapsedTime(disable timing)",
       [] {
         CUevent a, b;
         NEED(cuEventCreate(&a, CU_EVENT_DISABLE_TIMING));
         NEED(cuEventCreate(&b, CU_EVENT_DISABLE_TIMING));
         cuEventRecord(a, nullptr);
         cuEventRecord(b, nullptr);
         cuCtxSynchronize();
         float ms;
         return cuEventElapsedTime(&ms, a, b);
       }},
      {"cuMemAlloc(0)",
       [] {
         CUdeviceptr p;
         return cuMemAlloc(&p, 0);
       }},
      {"cuMemAlloc(1 PiB)",
       [] {
         CUdeviceptr p;
         return cuMemAlloc(&p, size_t(1) << 50);
       }},
      {"cuMemAllocHost(0)",
       [] {
         void *p;
         return cuMemAllocHost(&p, 0);
       }},
      {"cuMemHostAlloc(flags 0xff)",
       [] {
         void *p;
         return cuMemHostAlloc(&p, 16, 0xff);
       }},
      {"cuMemFreeHost(null)", [] { return cuMemFreeHost(nullptr); }},
      {"cuMemFreeHost(a malloc pointer)",
       [] {
         void *h = std::malloc(64);
         CUresult r = cuMemFreeHost(h);
         return r;
       }},
      {"cuMemFree(a host address)",
       [] {
         int h;
         return cuMemFree(reinterpret_cast<CUdeviceptr>(&h));
       }},
      {"cuMemFree(inside an allocation)", [] { return cuMemFree(mem() + 16); }},
      {"cuMemAllocPitch(element size 3)",
       [] {
         CUdeviceptr p;
         size_t pitch;
         return cuMemAllocPitch(&p, &pitch, 64, 4, 3);
       }},
      {"cuMemAllocPitch(width 0)",
       [] {
         CUdeviceptr p;
         size_t pitch;
         return cuMemAllocPitch(&p, &pitch, 0, 4, 4);
       }},
      {"cuMemcpyHtoD(beyond the allocation)",
       [] {
         std::vector<char> h(512);
         return cuMemcpyHtoD(mem(256), h.data(), 512);
       }},
      {"cuMemcpyDtoH(beyond the allocation)",
       [] {
         std::vector<char> h(512);
         return cuMemcpyDtoH(h.data(), mem(256), 512);
       }},
      {"cuMemcpyHtoD(0 bytes)",
       [] {
         int h;
         return cuMemcpyHtoD(mem(), &h, 0);
       }},
      {"cuMemcpyHtoD(to an unallocated address)",
       [] {
         int h = 1;
         return cuMemcpyHtoD(0x10, &h, 4);
       }},
      {"cuMemsetD8(beyond the allocation)", [] { return cuMemsetD8(mem(256), 0, 512); }},
      {"cuMemsetD32(misaligned)", [] { return cuMemsetD32(mem() + 1, 0, 4); }},
      {"cuMemsetD16(misaligned)", [] { return cuMemsetD16(mem() + 1, 0, 4); }},
      {"cuMemGetAddressRange(a host address)",
       [] {
         int h;
         CUdeviceptr b;
         size_t n;
         return cuMemGetAddressRange(&b, &n, reinterpret_cast<CUdeviceptr>(&h));
       }},
      {"cuPointerGetAttribute(attribute 99)",
       [] {
         int v;
         return cuPointerGetAttribute(&v, CUpointer_attribute(99), mem());
       }},
      {"cuPointerGetAttribute(a host address)",
       [] {
         int h;
         CUcontext c;
         return cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT,
                                      reinterpret_cast<CUdeviceptr>(&h));
       }},
      {"cuPointerGetAttribute(memory type of a host address)",
       [] {
         int h;
         unsigned t;
         return cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      reinterpret_cast<CUdeviceptr>(&h));
       }},
      {"cuFuncGetAttribute(99)",
       [] {
         int v;
         return cuFuncGetAttribute(&v, CUfunction_attribute(99), fn(mod()));
       }},
      {"cuFuncSetAttribute(max dynamic shared 1 GiB)",
       [] {
         return cuFuncSetAttribute(fn(mod()), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   1 << 30);
       }},
      {"cuFuncSetAttribute(read-only NUM_REGS)",
       [] { return cuFuncSetAttribute(fn(mod()), CU_FUNC_ATTRIBUTE_NUM_REGS, 8); }},
      {"cuFuncSetCacheConfig(9)", [] { return cuFuncSetCacheConfig(fn(mod()), CUfunc_cache(9)); }},
      {"cuLaunchKernel(grid 0)", [] { return launch(fn(mod()), nullptr, mem(), 0); }},
      {"cuLaunchKernel(block 0)", [] { return launch(fn(mod()), nullptr, mem(), 1, 0); }},
      {"cuLaunchKernel(block 1025)", [] { return launch(fn(mod()), nullptr, mem(), 1, 1025); }},
      {"cuLaunchKernel(block 32x32x2)",
       [] { return launch(fn(mod()), nullptr, mem(), 1, 32, 32, 2); }},
      {"cuLaunchKernel(block z 65)", [] { return launch(fn(mod()), nullptr, mem(), 1, 1, 1, 65); }},
      {"cuLaunchKernel(grid y 65536)",
       [] { return launch(fn(mod()), nullptr, mem(), 1, 1, 1, 1, 65536); }},
      {"cuLaunchKernel(shared 1 MiB)",
       [] { return launch(fn(mod()), nullptr, mem(), 1, 1, 1, 1, 1, 1 << 20); }},
      {"cuLaunchKernel(shared 64 KiB without opt-in)",
       [] { return launch(fn(mod()), nullptr, mem(), 1, 1, 1, 1, 1, 64 << 10); }},
      {"cuLaunchKernel(both params and extra)",
       [] {
         CUdeviceptr o = mem();
         void *args[] = {&o};
         void *extra[] = {CU_LAUNCH_PARAM_END};
         return cuLaunchKernel(fn(mod()), 1, 1, 1, 1, 1, 1, 0, nullptr, args, extra);
       }},
      {"cuModuleGetFunction(unknown name)",
       [] {
         CUfunction f;
         return cuModuleGetFunction(&f, mod(), "nope");
       }},
      {"cuModuleGetGlobal(unknown name)",
       [] {
         CUdeviceptr p;
         size_t n;
         return cuModuleGetGlobal(&p, &n, mod(), "nope");
       }},
      {"cuModuleGetGlobal(a kernel's name)",
       [] {
         CUdeviceptr p;
         size_t n;
         return cuModuleGetGlobal(&p, &n, mod(), "k");
       }},
      {"cuLibraryGetKernel(unknown name)",
       [] {
         CUkernel k;
         return cuLibraryGetKernel(&k, library(), "nope");
       }},
      {"cuGetErrorString(9999)",
       [] {
         const char *s;
         return cuGetErrorString(CUresult(9999), &s);
       }},
      {"cuGetErrorName(9999)",
       [] {
         const char *s;
         return cuGetErrorName(CUresult(9999), &s);
       }},
      {"cuGetProcAddress(unknown symbol)",
       [] {
         void *p;
         CUdriverProcAddressQueryResult q;
         CUresult r = cuGetProcAddress("cuNope", &p, 12000, 0, &q);
         return r == CUDA_SUCCESS ? CUresult(1000 + q) : r;
       }},
      {"cuGetProcAddress(version 1000)",
       [] {
         void *p;
         CUdriverProcAddressQueryResult q;
         CUresult r = cuGetProcAddress("cuMemAllocAsync", &p, 1000, 0, &q);
         return r == CUDA_SUCCESS ? CUresult(1000 + q) : r;
       }},
      {"cuGetProcAddress(flags 9)",
       [] {
         void *p;
         return cuGetProcAddress("cuInit", &p, 12000, 9, nullptr);
       }},
      {"cuArrayCreate(format 0x99)",
       [] {
         CUDA_ARRAY_DESCRIPTOR d{16, 16, CUarray_format(0x99), 1};
         CUarray a;
         return cuArrayCreate(&a, &d);
       }},
      {"cuArrayCreate(3 channels)",
       [] {
         CUDA_ARRAY_DESCRIPTOR d{16, 16, CU_AD_FORMAT_FLOAT, 3};
         CUarray a;
         return cuArrayCreate(&a, &d);
       }},
      {"cuArrayCreate(width 0)",
       [] {
         CUDA_ARRAY_DESCRIPTOR d{0, 16, CU_AD_FORMAT_FLOAT, 1};
         CUarray a;
         return cuArrayCreate(&a, &d);
       }},
      {"cuArrayCreate(width 1M)",
       [] {
         CUDA_ARRAY_DESCRIPTOR d{1 << 20, 16, CU_AD_FORMAT_FLOAT, 1};
         CUarray a;
         return cuArrayCreate(&a, &d);
       }},
      {"cuTexObjectCreate(resource type 9)",
       [] {
         CUDA_RESOURCE_DESC r{};
         r.resType = CUresourcetype(9);
         CUDA_TEXTURE_DESC t{};
         CUtexObject o;
         return cuTexObjectCreate(&o, &r, &t, nullptr);
       }},
      {"cuTexObjectCreate(linear, misaligned)",
       [] {
         CUDA_RESOURCE_DESC r{};
         r.resType = CU_RESOURCE_TYPE_LINEAR;
         r.res.linear.devPtr = mem() + 4;
         r.res.linear.format = CU_AD_FORMAT_FLOAT;
         r.res.linear.numChannels = 1;
         r.res.linear.sizeInBytes = 64;
         CUDA_TEXTURE_DESC t{};
         CUtexObject o;
         return cuTexObjectCreate(&o, &r, &t, nullptr);
       }},
      {"cuTexObjectCreate(null array)",
       [] {
         CUDA_RESOURCE_DESC r{};
         r.resType = CU_RESOURCE_TYPE_ARRAY;
         CUDA_TEXTURE_DESC t{};
         CUtexObject o;
         return cuTexObjectCreate(&o, &r, &t, nullptr);
       }},
      {"cuOccupancyMaxActiveBlocksPerMultiprocessor(block 0)",
       [] {
         int n;
         return cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn(mod()), 0, 0);
       }},
      {"cuOccupancyMaxActiveBlocksPerMultiprocessor(block 2048)",
       [] {
         int n;
         return cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn(mod()), 2048, 0);
       }},
      {"cuMemPoolSetAttribute(99)",
       [] {
         cuuint64_t v = 0;
         return cuMemPoolSetAttribute(pool(), CUmemPool_attribute(99), &v);
       }},
      {"cuMemPoolCreate(location type 9)",
       [] {
         CUmemPoolProps p{};
         p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
         p.location.type = CUmemLocationType(9);
         CUmemoryPool mp;
         return cuMemPoolCreate(&mp, &p);
       }},
      {"cuMemAllocAsync(0 bytes)",
       [] {
         CUdeviceptr p;
         return cuMemAllocAsync(&p, 0, stream());
       }},
      {"cuGraphInstantiate(flags 0x100)",
       [] {
         CUgraphExec e;
         return cuGraphInstantiate(&e, graph(), 0x100);
       }},
      {"cuGraphCreate(flags 1)",
       [] {
         CUgraph g;
         return cuGraphCreate(&g, 1);
       }},
      {"cuLinkComplete(no input)",
       [] {
         CUlinkState l;
         NEED(cuLinkCreate(0, nullptr, nullptr, &l));
         void *out;
         size_t n;
         return cuLinkComplete(l, &out, &n);
       }},
      {"cuLinkAddData(type 99)",
       [] {
         CUlinkState l;
         NEED(cuLinkCreate(0, nullptr, nullptr, &l));
         return cuLinkAddData(l, CUjitInputType(99), const_cast<char *>(kPtx),
                              std::strlen(kPtx) + 1, "x", 0, nullptr, nullptr);
       }},
      {"cuIpcOpenMemHandle(zeroed handle)",
       [] {
         CUipcMemHandle h{};
         CUdeviceptr p;
         return cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
       }},
      {"cuIpcGetMemHandle(a host address)",
       [] {
         int h;
         CUipcMemHandle m;
         return cuIpcGetMemHandle(&m, reinterpret_cast<CUdeviceptr>(&h));
       }},
      {"cuKernelGetName(out, null kernel)",
       [] {
         const char *name;
         return cuKernelGetName(&name, nullptr);
       }},
      {"cuFuncGetName(out, null function)",
       [] {
         const char *name;
         return cuFuncGetName(&name, nullptr);
       }},
      {"cuMemHostRegister(a range overlapping a registered one)",
       [] {
         static char buf[8192];
         cuMemHostRegister(buf, 2048, 0);
         return cuMemHostRegister(buf + 1024, 2048, 0);
       }},
      {"cuMemHostUnregister(inside a registered range)",
       [] {
         static char buf[8192];
         cuMemHostRegister(buf, 2048, 0);
         return cuMemHostUnregister(buf + 1024);
       }},
      {"cuMemHostUnregister(never registered)",
       [] {
         static char buf[64];
         return cuMemHostUnregister(buf);
       }},
  };
  for (auto &c : calls)
    add(std::string("out of range: ") + c.name, [run = c.run] {
      ctx();
      return run();
    });
}

// Images that are not what they claim to be.
// Two faults in one call: which check the driver makes first (the order the registry's checks
// column gives).
void twoFaults() {
  add("order: cuMemAlloc(null) with no context", [] {
    NEED(cuInit(0));
    return cuMemAlloc(nullptr, 16);
  });
  add("order: cuStreamCreate(null) with no context", [] {
    NEED(cuInit(0));
    return cuStreamCreate(nullptr, 0);
  });
  add("order: cuModuleLoadData(null, null) with no context", [] {
    NEED(cuInit(0));
    return cuModuleLoadData(nullptr, nullptr);
  });
  add("order: cuCtxGetLimit(null) with no context", [] {
    NEED(cuInit(0));
    return cuCtxGetLimit(nullptr, CU_LIMIT_STACK_SIZE);
  });
  add("order: cuCtxSetCacheConfig(99) with no context", [] {
    NEED(cuInit(0));
    return cuCtxSetCacheConfig(static_cast<CUfunc_cache>(99));
  });
  add("order: cuMemGetAddressRange(null, null, 0) with no context", [] {
    NEED(cuInit(0));
    return cuMemGetAddressRange(nullptr, nullptr, 0);
  });
  add("order: cuArray3DCreate(null, null) with no context", [] {
    NEED(cuInit(0));
    return cuArray3DCreate(nullptr, nullptr);
  });
  add("order: cuDeviceGetAttribute(null, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 99);
  });
  add("order: cuDeviceGetName(null, 0, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceGetName(nullptr, 0, 99);
  });
  add("order: cuDevicePrimaryCtxGetState(device 99, null, null)", [] {
    NEED(cuInit(0));
    return cuDevicePrimaryCtxGetState(99, nullptr, nullptr);
  });
  add("order: cuDeviceCanAccessPeer(null, 0, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceCanAccessPeer(nullptr, 0, 99);
  });
  add("order: cuModuleGetFunction(null, null module, name)", [] {
    ctx();
    return cuModuleGetFunction(nullptr, nullptr, "k");
  });
  add("order: cuModuleGetGlobal(out, null, null module, null name)", [] {
    ctx();
    CUdeviceptr p;
    return cuModuleGetGlobal(&p, nullptr, nullptr, nullptr);
  });
  add("order: cuFuncGetAttribute(null, NUM_REGS, unloaded function)", [] {
    ctx();
    return cuFuncGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_NUM_REGS, unloadedFunction());
  });
  add("order: cuFuncGetName(null, unloaded function)", [] {
    ctx();
    return cuFuncGetName(nullptr, unloadedFunction());
  });
  add("order: cuFuncSetCacheConfig(unloaded function, 99)", [] {
    ctx();
    return cuFuncSetCacheConfig(unloadedFunction(), static_cast<CUfunc_cache>(99));
  });
  add("order: cuOccupancyMaxActiveBlocksPerMultiprocessor(null, unloaded fn)", [] {
    ctx();
    return cuOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, unloadedFunction(), 32, 0);
  });
  add("order: cuLibraryGetKernel(null, unloaded library, name)", [] {
    ctx();
    return cuLibraryGetKernel(nullptr, unloadedLibrary(), "k");
  });
  add("order: cuCtxEnablePeerAccess(null, flags 1)", [] {
    ctx();
    return cuCtxEnablePeerAccess(nullptr, 1);
  });
  add("order: cuIpcGetEventHandle(null, destroyed event)", [] {
    ctx();
    return cuIpcGetEventHandle(nullptr, destroyedEvent());
  });
  add("order: cuEventCreate(null, flags 0x80) with no context", [] {
    NEED(cuInit(0));
    return cuEventCreate(nullptr, 0x80);
  });
  add("order: cuStreamCreateWithPriority(null, flags 8) with no ctx", [] {
    NEED(cuInit(0));
    return cuStreamCreateWithPriority(nullptr, 8, 0);
  });
  add("order: cuMemHostAlloc(null, 16, flags 0x80) with no context", [] {
    NEED(cuInit(0));
    return cuMemHostAlloc(nullptr, 16, 0x80);
  });
  add("order: cuMemAllocPitch(null, null, 0, 0, 3) with no context", [] {
    NEED(cuInit(0));
    return cuMemAllocPitch(nullptr, nullptr, 0, 0, 3);
  });
  add("order: cuCtxGetFlags(null) with no context", [] {
    NEED(cuInit(0));
    return cuCtxGetFlags(nullptr);
  });
  add("order: cuCtxGetExecAffinity(null, type 9) with no context", [] {
    NEED(cuInit(0));
    return cuCtxGetExecAffinity(nullptr, static_cast<CUexecAffinityType>(9));
  });
  add("order: cuDeviceTotalMem(null, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceTotalMem(nullptr, 99);
  });
  add("order: cuDeviceComputeCapability(null, null, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceComputeCapability(nullptr, nullptr, 99);
  });
  add("order: cuDevicePrimaryCtxRetain(null, device 99)", [] {
    NEED(cuInit(0));
    return cuDevicePrimaryCtxRetain(nullptr, 99);
  });
  add("order: cuDeviceGetUuid(null, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceGetUuid(nullptr, 99);
  });
  add("order: cuDeviceGetPCIBusId(null, 16, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceGetPCIBusId(nullptr, 16, 99);
  });
  add("order: cuDeviceGetP2PAttribute(null, rank, 99, 0)", [] {
    NEED(cuInit(0));
    return cuDeviceGetP2PAttribute(nullptr, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 99, 0);
  });
  add("order: cuModuleGetFunctionCount(null, null module)", [] {
    ctx();
    return cuModuleGetFunctionCount(nullptr, nullptr);
  });
  add("order: cuModuleEnumerateFunctions(null, 1, null module)", [] {
    ctx();
    return cuModuleEnumerateFunctions(nullptr, 1, nullptr);
  });
  add("order: cuFuncGetModule(null, unloaded function)", [] {
    ctx();
    return cuFuncGetModule(nullptr, unloadedFunction());
  });
  add("order: cuLibraryGetModule(null, unloaded library)", [] {
    ctx();
    return cuLibraryGetModule(nullptr, unloadedLibrary());
  });
  add("order: cuLibraryGetKernelCount(null, unloaded library)", [] {
    ctx();
    return cuLibraryGetKernelCount(nullptr, unloadedLibrary());
  });
  add("order: cuKernelGetName(null, null kernel)", [] {
    ctx();
    return cuKernelGetName(nullptr, nullptr);
  });
  add("order: cuKernelSetCacheConfig(null kernel, 99, 0)", [] {
    ctx();
    return cuKernelSetCacheConfig(nullptr, static_cast<CUfunc_cache>(99), 0);
  });
  add("order: cuGraphClone(null, destroyed graph)", [] {
    NEED(cuInit(0));
    return cuGraphClone(nullptr, destroyedGraph());
  });
  add("order: cuGraphCreate(null, flags 1)", [] {
    NEED(cuInit(0));
    return cuGraphCreate(nullptr, 1);
  });
  add("order: cuMemCreate(null, 0, null, flags 1)", [] {
    NEED(cuInit(0));
    return cuMemCreate(nullptr, 0, nullptr, 1);
  });
  add("order: cuMemGetAccess(null, null, 0) with no context", [] {
    NEED(cuInit(0));
    return cuMemGetAccess(nullptr, nullptr, 0);
  });
  add("order: cuTexObjectCreate(null, null, null, null) no context", [] {
    NEED(cuInit(0));
    return cuTexObjectCreate(nullptr, nullptr, nullptr, nullptr);
  });
  add("order: cuIpcOpenEventHandle(null, zero handle) with no context", [] {
    NEED(cuInit(0));
    CUipcEventHandle h{};
    return cuIpcOpenEventHandle(nullptr, h);
  });
  add("order: cuIpcGetMemHandle(null, 0) with no context", [] {
    NEED(cuInit(0));
    return cuIpcGetMemHandle(nullptr, 0);
  });
  add("order: cuPointerGetAttribute(null, CONTEXT, 0) before cuInit",
      [] { return cuPointerGetAttribute(nullptr, CU_POINTER_ATTRIBUTE_CONTEXT, 0); });
  add("order: cuMemGetAddressRange(null, null, 0) before cuInit",
      [] { return cuMemGetAddressRange(nullptr, nullptr, 0); });
  add("order: cuOccupancyMaxPotentialBlockSize(null, null, unloaded fn)", [] {
    ctx();
    return cuOccupancyMaxPotentialBlockSize(nullptr, nullptr, unloadedFunction(), nullptr, 0, 0);
  });
  // Streams, graphs, pools and asynchronous memory: the stream resolves before other checks?
  add("order: cuStreamGetPriority(destroyed stream, null)", [] {
    ctx();
    return cuStreamGetPriority(destroyedStream(), nullptr);
  });
  add("order: cuStreamGetFlags(destroyed stream, null)", [] {
    ctx();
    return cuStreamGetFlags(destroyedStream(), nullptr);
  });
  add("order: cuStreamGetCtx(destroyed stream, null)", [] {
    ctx();
    return cuStreamGetCtx(destroyedStream(), nullptr);
  });
  add("order: cuStreamWaitEvent(destroyed stream, destroyed event, 0)", [] {
    ctx();
    CUevent e = destroyedEvent(); // before the stream, as recorded
    return cuStreamWaitEvent(destroyedStream(), e, 0);
  });
  add("order: cuStreamWaitEvent(stream, destroyed event, flags 8)", [] {
    ctx();
    return cuStreamWaitEvent(stream(), destroyedEvent(), 8);
  });
  add("order: cuStreamAddCallback(destroyed stream, null, null, flags 1)", [] {
    ctx();
    return cuStreamAddCallback(destroyedStream(), nullptr, nullptr, 1);
  });
  add("order: cuLaunchHostFunc(destroyed stream, null, null)", [] {
    ctx();
    return cuLaunchHostFunc(destroyedStream(), nullptr, nullptr);
  });
  add("order: cuStreamBeginCapture(legacy stream, mode 9)", [] {
    ctx();
    return cuStreamBeginCapture(CU_STREAM_LEGACY, static_cast<CUstreamCaptureMode>(9));
  });
  add("order: cuStreamEndCapture(destroyed stream, null)", [] {
    ctx();
    return cuStreamEndCapture(destroyedStream(), nullptr);
  });
  add("order: cuStreamIsCapturing(destroyed stream, null)", [] {
    ctx();
    return cuStreamIsCapturing(destroyedStream(), nullptr);
  });
  add("order: cuEventRecord(destroyed event, destroyed stream)", [] {
    ctx();
    CUevent e = destroyedEvent(); // before the stream, as recorded
    return cuEventRecord(e, destroyedStream());
  });
  add("order: cuEventRecordWithFlags(event, destroyed stream, flags 99)", [] {
    ctx();
    return cuEventRecordWithFlags(event(), destroyedStream(), 99);
  });
  add("order: cuMemAllocAsync(null, 16, destroyed stream)", [] {
    ctx();
    return cuMemAllocAsync(nullptr, 16, destroyedStream());
  });
  add("order: cuMemFreeAsync(a host address, destroyed stream)", [] {
    ctx();
    static int x;
    return cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(&x), destroyedStream());
  });
  add("order: cuMemsetD8Async(0, 0, 16, destroyed stream)", [] {
    ctx();
    return cuMemsetD8Async(0, 0, 16, destroyedStream());
  });
  add("order: cuMemcpyHtoDAsync(0, null, 16, destroyed stream)", [] {
    ctx();
    return cuMemcpyHtoDAsync(0, nullptr, 16, destroyedStream());
  });
  add("order: cuMemAllocFromPoolAsync(null, 16, destroyed pool, stream)", [] {
    ctx();
    return cuMemAllocFromPoolAsync(nullptr, 16, destroyedPool(), stream());
  });
  add("order: cuMemPoolGetAttribute(destroyed pool, attribute 99, null)", [] {
    ctx();
    return cuMemPoolGetAttribute(destroyedPool(), static_cast<CUmemPool_attribute>(99), nullptr);
  });
  add("order: cuMemPoolTrimTo(null pool, 0) before cuInit",
      [] { return cuMemPoolTrimTo(nullptr, 0); });
  add("order: cuDeviceGetDefaultMemPool(null, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceGetDefaultMemPool(nullptr, 99);
  });
  add("order: cuGraphAddEmptyNode(null, destroyed graph, null, 1)", [] {
    NEED(cuInit(0));
    return cuGraphAddEmptyNode(nullptr, destroyedGraph(), nullptr, 1);
  });
  add("order: cuGraphInstantiate(null, destroyed graph, 0)", [] {
    ctx();
    return cuGraphInstantiate(nullptr, destroyedGraph(), 0);
  });
  add("order: cuGraphLaunch(destroyed exec, destroyed stream)", [] {
    ctx();
    CUgraphExec e = gexec(graph());
    NEED(cuGraphExecDestroy(e));
    return cuGraphLaunch(e, destroyedStream());
  });
  add("order: cuGraphGetNodes(destroyed graph, null, null)", [] {
    NEED(cuInit(0));
    return cuGraphGetNodes(destroyedGraph(), nullptr, nullptr);
  });
  add("order: cuLaunchKernel(unloaded fn, grid 0, destroyed stream)", [] {
    ctx();
    CUfunction f = unloadedFunction(); // before the stream, as recorded
    CUdeviceptr out = 0;
    void *args[] = {&out};
    return cuLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, destroyedStream(), args, nullptr);
  });
  add("order: cuLaunchKernel(function, grid 0, destroyed stream)", [] {
    ctx();
    CUdeviceptr out = 0;
    void *args[] = {&out};
    return cuLaunchKernel(fn(mod()), 0, 1, 1, 1, 1, 1, 0, destroyedStream(), args, nullptr);
  });
  add("order: cuMemAllocManaged(null, 0, flags 99)", [] {
    ctx();
    return cuMemAllocManaged(nullptr, 0, 99);
  });
  add("order: cuFuncSetAttribute(unloaded fn, attribute 99, 0)", [] {
    ctx();
    return cuFuncSetAttribute(unloadedFunction(), static_cast<CUfunction_attribute>(99), 0);
  });
  add("order: cuCtxGetDevice(null) with no context", [] {
    NEED(cuInit(0));
    return cuCtxGetDevice(nullptr);
  });
  add("order: cuCtxGetApiVersion(destroyed context, null)", [] {
    CUcontext c = ctx();
    NEED(cuCtxDestroy(c));
    return cuCtxGetApiVersion(c, nullptr);
  });
  // Memory queries, pools, linking, kernels and attributes.
  add("order: cuMemGetInfo(null, null) with no context", [] {
    NEED(cuInit(0));
    return cuMemGetInfo(nullptr, nullptr);
  });
  add("order: cuMemAllocManaged(null, 16, flags 99) with no context", [] {
    NEED(cuInit(0));
    return cuMemAllocManaged(nullptr, 16, 99);
  });
  add("order: cuMemcpy2D(null) with no context", [] {
    NEED(cuInit(0));
    return cuMemcpy2D(nullptr);
  });
  add("order: cuMemPoolCreate(null, null) with no context", [] {
    NEED(cuInit(0));
    return cuMemPoolCreate(nullptr, nullptr);
  });
  add("order: cuMemPoolGetAttribute(null, attribute 99, null) before cuInit",
      [] { return cuMemPoolGetAttribute(nullptr, static_cast<CUmemPool_attribute>(99), nullptr); });
  add("order: cuMemPoolSetAccess(destroyed pool, null, 1)", [] {
    ctx();
    return cuMemPoolSetAccess(destroyedPool(), nullptr, 1);
  });
  add("order: cuDeviceGetMemPool(null, device 99)", [] {
    NEED(cuInit(0));
    return cuDeviceGetMemPool(nullptr, 99);
  });
  add("order: cuDeviceSetMemPool(device 99, null pool)", [] {
    NEED(cuInit(0));
    return cuDeviceSetMemPool(99, nullptr);
  });
  add("order: cuLinkCreate(0, null, null, null) with no context", [] {
    NEED(cuInit(0));
    return cuLinkCreate(0, nullptr, nullptr, nullptr);
  });
  add("order: cuLinkAddData(null state, type 99, null, 0)", [] {
    ctx();
    return cuLinkAddData(nullptr, static_cast<CUjitInputType>(99), nullptr, 0, nullptr, 0, nullptr,
                         nullptr);
  });
  add("order: cuLinkComplete(null state, null, null)", [] {
    ctx();
    return cuLinkComplete(nullptr, nullptr, nullptr);
  });
  add("order: cuModuleLoadFatBinary(null, null) with no context", [] {
    NEED(cuInit(0));
    return cuModuleLoadFatBinary(nullptr, nullptr);
  });
  add("order: cuLibraryLoadData(null, null, ...) before cuInit",
      [] { return cuLibraryLoadData(nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0); });
  add("order: cuKernelGetFunction(null, null kernel)", [] {
    ctx();
    return cuKernelGetFunction(nullptr, nullptr);
  });
  add("order: cuKernelGetAttribute(null, NUM_REGS, null kernel, 99)", [] {
    ctx();
    return cuKernelGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_NUM_REGS, nullptr, 99);
  });
  add("order: cuFuncGetParamInfo(unloaded fn, 0, null, null)", [] {
    ctx();
    return cuFuncGetParamInfo(unloadedFunction(), 0, nullptr, nullptr);
  });
  add("order: cuStreamGetAttribute(destroyed stream, PRIORITY, null)", [] {
    ctx();
    return cuStreamGetAttribute(destroyedStream(), CU_LAUNCH_ATTRIBUTE_PRIORITY, nullptr);
  });
  add("order: cuStreamSetAttribute(destroyed stream, PRIORITY, null)", [] {
    ctx();
    return cuStreamSetAttribute(destroyedStream(), CU_LAUNCH_ATTRIBUTE_PRIORITY, nullptr);
  });
  add("order: cuEventQuery(null) before cuInit", [] { return cuEventQuery(nullptr); });
  add("order: cuEventElapsedTime(null, destroyed, destroyed)", [] {
    ctx();
    CUevent a = event(), b = event();
    NEED(cuEventDestroy(a));
    NEED(cuEventDestroy(b));
    float *ms = nullptr;
    return cuEventElapsedTime(ms, a, b);
  });
  add("order: cuGraphAddKernelNode(null, destroyed graph, null, 0, null)", [] {
    NEED(cuInit(0));
    return cuGraphAddKernelNode(nullptr, destroyedGraph(), nullptr, 0, nullptr);
  });
  add("order: cuGraphAddMemsetNode(null, graph, null, 0, null, null)", [] {
    CUcontext c = ctx();
    return cuGraphAddMemsetNode(nullptr, graph(), nullptr, 0, nullptr, c);
  });
  add("order: cuGraphNodeGetDependencies(destroyed node, null, null)", [] {
    NEED(cuInit(0));
    CUgraph g = graph();
    CUgraphNode n;
    NEED(cuGraphAddEmptyNode(&n, g, nullptr, 0));
    NEED(cuGraphDestroyNode(n));
    return cuGraphNodeGetDependencies(n, nullptr, nullptr, nullptr);
  });
  add("order: cuGraphExecDestroy(null) before cuInit", [] { return cuGraphExecDestroy(nullptr); });
  add("order: cuArrayGetDescriptor(null, destroyed array)", [] {
    ctx();
    CUarray a = array();
    NEED(cuArrayDestroy(a));
    return cuArrayGetDescriptor(nullptr, a);
  });
  add("order: cuMipmappedArrayGetLevel(null, null array, 99)", [] {
    ctx();
    return cuMipmappedArrayGetLevel(nullptr, nullptr, 99);
  });
  add("order: cuTexObjectGetTextureDesc(null, 0) before cuInit",
      [] { return cuTexObjectGetTextureDesc(nullptr, 0); });
  add("order: cuPointerGetAttributes(0, null, null, 0) before cuInit",
      [] { return cuPointerGetAttributes(0, nullptr, nullptr, 0); });
  add("order: cuMemHostGetDevicePointer(null, malloc pointer, flags 1)", [] {
    ctx();
    static int x;
    CUdeviceptr *out = nullptr;
    return cuMemHostGetDevicePointer(out, &x, 1);
  });
}

void hostileImages() {
  static const char kElf[] = "\x7f"
                             "ELF\x02\x01\x01";
  static const unsigned kFatbinHeader[4] = {0xBA55ED50u, 0x00100001u, 0xffffff00u, 0};
  static const unsigned kWrapperNull[6] = {0x466243B1u, 1, 0, 0, 0, 0};
  static const unsigned kWrapperVersion9[6] = {0x466243B1u, 9, 0, 0, 0, 0};
  struct Image {
    const char *name;
    const void *bytes;
  };
  std::vector<Image> images = {
      {"empty text", ""},
      {"text without PTX", "hello"},
      {"PTX with no .version", ".target sm_80\n.address_size 64\n"},
      {"PTX with a syntax error",
       ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k( {\n"},
      {"an ELF header only", kElf},
      {"a fat binary container with a huge size", kFatbinHeader},
      {"a fat binary wrapper pointing nowhere", kWrapperNull},
      {"a fat binary wrapper of version 9", kWrapperVersion9},
  };
  for (const auto &img : images) {
    add(std::string("image: cuModuleLoadData(") + img.name + ")", [bytes = img.bytes] {
      ctx();
      CUmodule m;
      return cuModuleLoadData(&m, bytes);
    });
    add(std::string("image: cuLibraryLoadData(") + img.name + ")", [bytes = img.bytes] {
      ctx();
      CUlibrary l;
      return cuLibraryLoadData(&l, bytes, nullptr, nullptr, 0, nullptr, nullptr, 0);
    });
  }
  add("image: cuModuleLoadFatBinary(PTX text)", [] {
    ctx();
    CUmodule m;
    return cuModuleLoadFatBinary(&m, kPtx);
  });
  add("image: cuModuleLoad(a missing file)", [] {
    ctx();
    CUmodule m;
    return cuModuleLoad(&m, "/nonexistent/cucpu-misuse.ptx");
  });
  add("image: cuModuleLoad(a directory)", [] {
    ctx();
    CUmodule m;
    return cuModuleLoad(&m, "/tmp");
  });
  add("image: cuLinkAddData(junk PTX)", [] {
    ctx();
    CUlinkState l;
    NEED(cuLinkCreate(0, nullptr, nullptr, &l));
    char junk[] = "hello";
    return cuLinkAddData(l, CU_JIT_INPUT_PTX, junk, sizeof junk, "junk", 0, nullptr, nullptr);
  });
  auto loadEx = [](const char *image, std::vector<CUjit_option> opts, std::vector<void *> vals) {
    ctx();
    CUmodule m;
    return cuModuleLoadDataEx(&m, image, static_cast<unsigned>(opts.size()),
                              opts.empty() ? nullptr : opts.data(),
                              vals.empty() ? nullptr : vals.data());
  };
  static char logBuffer[256];
  add("image: cuModuleLoadDataEx(bad PTX, error log of size 0)", [loadEx] {
    return loadEx("hello", {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES},
                  {logBuffer, reinterpret_cast<void *>(uintptr_t(0))});
  });
  add("image: cuModuleLoadDataEx(bad PTX, null error log of size 256)", [loadEx] {
    return loadEx("hello", {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES},
                  {nullptr, reinterpret_cast<void *>(uintptr_t(256))});
  });
  add("image: cuModuleLoadDataEx(one option, null arrays)", [] {
    ctx();
    CUmodule m;
    return cuModuleLoadDataEx(&m, kPtx, 1, nullptr, nullptr);
  });
  add("image: cuModuleLoadDataEx(option 999)",
      [loadEx] { return loadEx(kPtx, {CUjit_option(999)}, {nullptr}); });
  add("launch: a misaligned 4-byte store", [] {
    ctx();
    CUdeviceptr out = mem() + 1;
    CUresult r = launch(fn(mod()), nullptr, out);
    return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
  });
  add("launch: a store to an unmapped address", [] {
    ctx();
    CUresult r = launch(fn(mod()), nullptr, 0x100);
    return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
  });
  add("launch: after a faulted kernel, cuMemAlloc", [] {
    ctx();
    launch(fn(mod()), nullptr, 0x100);
    cuCtxSynchronize();
    CUdeviceptr p;
    return cuMemAlloc(&p, 16);
  });
  add("image: cuLinkAddFile(a missing file)", [] {
    ctx();
    CUlinkState l;
    NEED(cuLinkCreate(0, nullptr, nullptr, &l));
    return cuLinkAddFile(l, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, nullptr, nullptr);
  });
}

} // namespace

int main(int argc, char **argv) {
  beforeInit();
  noContext();
  nullPointers();
  destroyed();
  crossContext();
  outOfRange();
  twoFaults();
  hostileImages();
  (void)argc;
  (void)argv;
  for (const auto &c : cases) {
    std::fflush(stdout);
    std::fprintf(stderr, "misuse case: %s\n", c.first.c_str()); // what the driver logs is of it
    std::fflush(stderr);
    int fds[2];
    if (pipe(fds) != 0)
      return 1;
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      dup2(fds[1], STDOUT_FILENO);
      alarm(20);
      CUresult r = c.second();
      std::printf("%d\n", static_cast<int>(r));
      std::fflush(stdout);
      _exit(0);
    }
    close(fds[1]);
    std::string out;
    char buf[256];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
      out.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    while (!out.empty() && out.back() == '\n')
      out.pop_back();
    if (WIFSIGNALED(status))
      out = WTERMSIG(status) == SIGALRM ? "timeout" : "signal " + std::to_string(WTERMSIG(status));
    std::printf("%-72s %s\n", c.first.c_str(), out.c_str());
  }
  return 0;
}
