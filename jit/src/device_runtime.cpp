// The cooperative-groups syscalls of NVIDIA's device runtime, cudaGraphSetConditional and the
// dynamic-parallelism functions (__cudaCDP2*), written in PTX. The grid's handle is the cooperative
// launch's workspace (%envreg1:%envreg2, zero in other launches); a handle that is not ends the
// grid with CUDA_ERROR_ILLEGAL_ADDRESS, as on a GPU. A grid barrier is one thread per block calling
// cucpu_services.grid_sync between two block barriers.
#include "device_runtime.h"

#include "cucpu/support/log.h"

#include <string_view>
#include <utility>

namespace cucpu::jit {
namespace {

// Syscall flag bit 0: the caller is the only thread of its block that calls, between barriers it
// executes itself (cudaCGSynchronizeGrid); without it every thread of the block calls.
constexpr std::string_view kDeviceRuntime = R"(.version 7.0
.target sm_80
.address_size 64

.extern .func (.param .b32 status) __cucpu_grid_sync(.param .b64 handle, .param .b32 op);

// One of the grid_sync service's operations (CUCPU_GRID_CHECK 0, CUCPU_GRID_ARRIVE 1).
.func __cucpu_grid(.reg .b64 handle, .reg .b32 op)
{
  {
    .param .b64 h;
    .param .b32 o;
    .param .b32 s;
    st.param.b64 [h], handle;
    st.param.b32 [o], op;
    call.uni (s), __cucpu_grid_sync, (h, o);
  }
  ret;
}

// *where = value, unless where is null.
.func __cucpu_put(.reg .b64 where, .reg .b32 value)
{
  .reg .pred %p1;
  setp.eq.u64 %p1, where, 0;
  @%p1 bra $null;
  st.u32 [where], value;
$null:
  ret;
}

.func (.param .b64 handle) __cuda_syscall_CGS_get_intrinsic_handle(.param .b32 scope)
{
  .reg .pred %p1;
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  ld.param.b32 %r1, [scope];
  mov.u32 %r2, %envreg1;
  mov.u32 %r3, %envreg2;
  cvt.u64.u32 %rd1, %r2;
  shl.b64 %rd2, %rd1, 32;
  cvt.u64.u32 %rd3, %r3;
  or.b64 %rd3, %rd2, %rd3;
  setp.ne.s32 %p1, %r1, 1;
  selp.b64 %rd4, 0, %rd3, %p1;
  st.param.b64 [handle], %rd4;
  ret;
}

.func (.param .b32 status) __cuda_syscall_CGS_sync(.param .b64 handle, .param .b32 flags)
{
  .reg .pred %p<3>;
  .reg .b32 %r<7>;
  .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [handle];
  ld.param.b32 %r1, [flags];
  call.uni __cucpu_grid, (%rd1, 0);
  and.b32 %r2, %r1, 1;
  setp.ne.b32 %p1, %r2, 0;
  @%p1 bra $one_caller;
  bar.sync 0;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %tid.y;
  mov.u32 %r5, %tid.z;
  or.b32 %r6, %r3, %r4;
  or.b32 %r6, %r6, %r5;
  setp.ne.b32 %p2, %r6, 0;
  @%p2 bra $arrived;
  call.uni __cucpu_grid, (%rd1, 1);
$arrived:
  bar.sync 0;
  bra.uni $done;
$one_caller:
  call.uni __cucpu_grid, (%rd1, 1);
$done:
  st.param.b32 [status], 0;
  ret;
}

// A conditional graph node's value, set from device code: the handle is the address of the
// value (cuGraphConditionalHandleCreate).
.func cudaGraphSetConditional(.param .b64 handle, .param .b32 value)
{
  .reg .b32 %r1;
  .reg .b64 %rd1;
  ld.param.b64 %rd1, [handle];
  ld.param.b32 %r1, [value];
  st.u32 [%rd1], %r1;
  ret;
}

.func (.param .b32 status) __cuda_syscall_CGS_get_size(.param .b64 threads, .param .b64 grids, .param .b64 handle)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [threads];
  ld.param.b64 %rd2, [grids];
  ld.param.b64 %rd3, [handle];
  call.uni __cucpu_grid, (%rd3, 0);
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %ntid.y;
  mov.u32 %r3, %ntid.z;
  mul.lo.u32 %r4, %r1, %r2;
  mul.lo.u32 %r4, %r4, %r3;
  mov.u32 %r5, %nctaid.x;
  mov.u32 %r6, %nctaid.y;
  mov.u32 %r7, %nctaid.z;
  mul.lo.u32 %r4, %r4, %r5;
  mul.lo.u32 %r4, %r4, %r6;
  mul.lo.u32 %r4, %r4, %r7;
  call.uni __cucpu_put, (%rd1, %r4);
  call.uni __cucpu_put, (%rd2, 1);
  st.param.b32 [status], 0;
  ret;
}

.func (.param .b32 status) __cuda_syscall_CGS_get_rank(.param .b64 rank, .param .b64 grid, .param .b64 handle)
{
  .reg .b32 %r<11>;
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [rank];
  ld.param.b64 %rd2, [grid];
  ld.param.b64 %rd3, [handle];
  call.uni __cucpu_grid, (%rd3, 0);
  mov.u32 %r1, %nctaid.x;
  mov.u32 %r2, %nctaid.y;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ctaid.y;
  mov.u32 %r5, %ctaid.z;
  mad.lo.u32 %r6, %r5, %r2, %r4;
  mad.lo.u32 %r6, %r6, %r1, %r3;
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %ntid.y;
  mov.u32 %r7, %ntid.z;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %tid.y;
  mov.u32 %r5, %tid.z;
  mad.lo.u32 %r8, %r5, %r2, %r4;
  mad.lo.u32 %r8, %r8, %r1, %r3;
  mul.lo.u32 %r9, %r1, %r2;
  mul.lo.u32 %r9, %r9, %r7;
  mad.lo.u32 %r10, %r6, %r9, %r8;
  call.uni __cucpu_put, (%rd1, %r10);
  call.uni __cucpu_put, (%rd2, 0);
  st.param.b32 [status], 0;
  ret;
}

// Dynamic parallelism (CDP2): the __cudaCDP2* functions nvcc's -rdc=true code calls, each packing
// its arguments into 64-bit slots for the device_runtime service (CUCPU_CDP_* of kernel_abi.h).
// The _ptsz variants and the programming guide's PTX-level names are the same functions
// (kAliases below).
.extern .func (.param .b64 result) __cucpu_cdp(.param .b32 op, .param .b64 args);

.func (.reg .b64 result) __cucpu_cdp_call(.reg .b32 op, .reg .b64 args)
{
  .param .b32 o;
  .param .b64 a;
  .param .b64 r;
  st.param.b32 [o], op;
  st.param.b64 [a], args;
  call.uni (r), __cucpu_cdp, (o, a);
  ld.param.b64 result, [r];
  ret;
}

.func (.param .b64 buffer) __cudaCDP2GetParameterBufferV2(.param .b64 func, .param .align 4 .b8 grid[12], .param .align 4 .b8 block[12], .param .b32 smem)
{
  .local .align 8 .b8 args[64];
  .reg .b32 %r1;
  .reg .b64 %rd<3>;
  mov.u64 %rd1, args;
  cvta.local.u64 %rd1, %rd1;
  ld.param.b64 %rd2, [func];
  st.u64 [%rd1], %rd2;
  ld.param.b32 %r1, [grid];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+8], %rd2;
  ld.param.b32 %r1, [grid+4];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+16], %rd2;
  ld.param.b32 %r1, [grid+8];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+24], %rd2;
  ld.param.b32 %r1, [block];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+32], %rd2;
  ld.param.b32 %r1, [block+4];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+40], %rd2;
  ld.param.b32 %r1, [block+8];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+48], %rd2;
  ld.param.b32 %r1, [smem];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+56], %rd2;
  call.uni (%rd2), __cucpu_cdp_call, (0, %rd1);
  st.param.b64 [buffer], %rd2;
  ret;
}

.func (.param .b32 status) __cudaCDP2LaunchDevice(.param .b64 func, .param .b64 buffer, .param .align 4 .b8 grid[12], .param .align 4 .b8 block[12], .param .b32 smem, .param .b64 stream)
{
  .local .align 8 .b8 args[80];
  .reg .b32 %r1;
  .reg .b64 %rd<3>;
  mov.u64 %rd1, args;
  cvta.local.u64 %rd1, %rd1;
  ld.param.b64 %rd2, [func];
  st.u64 [%rd1], %rd2;
  ld.param.b64 %rd2, [buffer];
  st.u64 [%rd1+8], %rd2;
  ld.param.b32 %r1, [grid];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+16], %rd2;
  ld.param.b32 %r1, [grid+4];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+24], %rd2;
  ld.param.b32 %r1, [grid+8];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+32], %rd2;
  ld.param.b32 %r1, [block];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+40], %rd2;
  ld.param.b32 %r1, [block+4];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+48], %rd2;
  ld.param.b32 %r1, [block+8];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+56], %rd2;
  ld.param.b32 %r1, [smem];
  cvt.u64.u32 %rd2, %r1;
  st.u64 [%rd1+64], %rd2;
  ld.param.b64 %rd2, [stream];
  st.u64 [%rd1+72], %rd2;
  call.uni (%rd2), __cucpu_cdp_call, (6, %rd1);
  cvt.u32.u64 %r1, %rd2;
  st.param.b32 [status], %r1;
  ret;
}

// The two-slot operations: `op` with a and b -> the service's result.
.func (.reg .b64 result) __cucpu_cdp_two(.reg .b32 op, .reg .b64 a, .reg .b64 b)
{
  .local .align 8 .b8 args[16];
  .reg .b64 %rd1;
  mov.u64 %rd1, args;
  cvta.local.u64 %rd1, %rd1;
  st.u64 [%rd1], a;
  st.u64 [%rd1+8], b;
  call.uni (result), __cucpu_cdp_call, (op, %rd1);
  ret;
}

.func (.param .b64 buffer) __cudaCDP2GetParameterBuffer(.param .b64 alignment, .param .b64 size)
{
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [alignment];
  ld.param.b64 %rd2, [size];
  call.uni (%rd3), __cucpu_cdp_two, (5, %rd1, %rd2);
  st.param.b64 [buffer], %rd3;
  ret;
}

.func (.param .b32 status) __cudaCDP2LaunchDeviceV2(.param .b64 buffer, .param .b64 stream)
{
  .reg .b32 %r1;
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [buffer];
  ld.param.b64 %rd2, [stream];
  call.uni (%rd3), __cucpu_cdp_two, (1, %rd1, %rd2);
  cvt.u32.u64 %r1, %rd3;
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2StreamCreateWithFlags(.param .b64 stream, .param .b32 flags)
{
  .reg .b64 %rd<3>;
  ld.param.b64 %rd1, [stream];
  call.uni (%rd2), __cucpu_cdp_call, (2, 0);
  st.u64 [%rd1], %rd2;
  st.param.b32 [status], 0;
  ret;
}

.func (.param .b32 status) __cudaCDP2StreamDestroy(.param .b64 stream)
{
  st.param.b32 [status], 0;
  ret;
}

.func (.param .b32 status) __cudaCDP2GetLastError()
{
  .reg .b32 %r1;
  .reg .b64 %rd1;
  call.uni (%rd1), __cucpu_cdp_two, (3, 1, 0);
  cvt.u32.u64 %r1, %rd1;
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2PeekAtLastError()
{
  .reg .b32 %r1;
  .reg .b64 %rd1;
  call.uni (%rd1), __cucpu_cdp_two, (3, 0, 0);
  cvt.u32.u64 %r1, %rd1;
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2GetDevice(.param .b64 device)
{
  .reg .b32 %r1;
  .reg .b64 %rd<3>;
  ld.param.b64 %rd1, [device];
  call.uni (%rd2), __cucpu_cdp_call, (4, 0);
  cvt.u32.u64 %r1, %rd2;
  st.u32 [%rd1], %r1;
  st.param.b32 [status], 0;
  ret;
}

// cudaMalloc in device code: the device heap (malloc's), cudaErrorMemoryAllocation when full.
.func (.param .b32 status) __cudaCDP2Malloc(.param .b64 ptr, .param .b64 size)
{
  .reg .pred %p1;
  .reg .b32 %r1;
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [ptr];
  ld.param.b64 %rd2, [size];
  call.uni (%rd3), __cucpu_cdp_two, (7, %rd2, 0);
  st.u64 [%rd1], %rd3;
  setp.eq.u64 %p1, %rd3, 0;
  selp.b32 %r1, 2, 0, %p1;
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2Free(.param .b64 ptr)
{
  .reg .b32 %r1;
  .reg .b64 %rd<3>;
  ld.param.b64 %rd1, [ptr];
  call.uni (%rd2), __cucpu_cdp_two, (8, %rd1, 0);
  cvt.u32.u64 %r1, %rd2;
  st.param.b32 [status], %r1;
  ret;
}
)";

// Functions that are another one under a second name: the per-thread-default-stream variants
// (cucpu's children run in launch order whatever the stream), and the PTX-level interface the
// CUDA programming guide documents.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"__cudaCDP2LaunchDeviceV2_ptsz", "__cudaCDP2LaunchDeviceV2"},
    {"__cudaCDP2LaunchDevice_ptsz", "__cudaCDP2LaunchDevice"},
    {"cudaLaunchDevice", "__cudaCDP2LaunchDevice"},
    {"cudaGetParameterBuffer", "__cudaCDP2GetParameterBuffer"}};

const ptx::Module &deviceRuntime() {
  static const ptx::Module m = [] {
    ptx::ParseResult r = ptx::parse(kDeviceRuntime);
    if (!r.ok())
      log::error(log::Component::Jit, "the built-in device runtime does not parse: {}",
                 r.errors.front().format());
    for (const auto &[alias, name] : kAliases)
      if (const ptx::Function *f = r.module.findFunction(name)) {
        ptx::Function copy = *f;
        copy.name = alias;
        r.module.functions.push_back(std::move(copy));
      }
    return std::move(r.module);
  }();
  return m;
}

constexpr std::string_view kSetConditional = "cudaGraphSetConditional";

bool declaresUndefined(const ptx::Module &m, std::string_view name) {
  const ptx::Function *f = m.findFunction(name);
  return f && !f->hasBody;
}

} // namespace

void addDeviceRuntime(ptx::Module &m) {
  const ptx::Module &rt = deviceRuntime();
  bool wanted = false;
  for (const ptx::Function &f : rt.functions)
    wanted = wanted || ((f.name.starts_with("__cuda_syscall_") ||
                         f.name.starts_with("__cudaCDP2") || f.name == "cudaGetParameterBuffer" ||
                         f.name == "cudaLaunchDevice" || f.name == kSetConditional) &&
                        declaresUndefined(m, f.name));
  if (!wanted)
    return;
  for (const ptx::Function &f : rt.functions)
    if (!m.findFunction(f.name) || declaresUndefined(m, f.name))
      m.functions.push_back(f);
}

} // namespace cucpu::jit
