// The cooperative-groups syscalls of NVIDIA's device runtime, cudaGraphSetConditional and the
// dynamic-parallelism functions (__cudaCDP2*), written in PTX. The grid's handle is the cooperative
// launch's workspace (%envreg1:%envreg2, zero in other launches); a handle that is not ends the
// grid with CUDA_ERROR_ILLEGAL_ADDRESS, as on a GPU. A grid barrier is one thread per block calling
// cucpu_services.grid_sync between two block barriers.
#include "device_runtime.h"

#include "cucpu/support/log.h"

#include <string_view>

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
.extern .func (.param .b64 result) __cucpu_cdp(.param .b32 op, .param .b64 args);

.func (.reg .b64 result) __cucpu_cdp_call(.reg .b32 op, .reg .b64 args)
{
  .reg .b64 %rd<2>;
  {
    .param .b32 o;
    .param .b64 a;
    .param .b64 r;
    st.param.b32 [o], op;
    st.param.b64 [a], args;
    call.uni (r), __cucpu_cdp, (o, a);
    ld.param.b64 %rd1, [r];
  }
  mov.b64 result, %rd1;
  ret;
}

// Slots k..k+2 of `args` = the dim3 at `dims`.
.func __cucpu_cdp_dim3(.reg .b64 args, .reg .b64 dims)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.u32 %r1, [dims];
  ld.u32 %r2, [dims+4];
  ld.u32 %r3, [dims+8];
  cvt.u64.u32 %rd1, %r1;
  cvt.u64.u32 %rd2, %r2;
  cvt.u64.u32 %rd3, %r3;
  st.u64 [args], %rd1;
  st.u64 [args+8], %rd2;
  st.u64 [args+16], %rd3;
  ret;
}

.func (.param .b64 buffer) __cudaCDP2GetParameterBufferV2(.param .b64 func, .param .align 4 .b8 grid[12], .param .align 4 .b8 block[12], .param .b32 smem)
{
  .reg .b32 %cdpop;
  .local .align 8 .b8 args[64];
  .local .align 4 .b8 dims[24];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.b64 %rd1, [func];
  mov.u64 %rd2, args;
  cvta.local.u64 %rd2, %rd2;
  st.u64 [%rd2], %rd1;
  ld.param.b32 %r1, [grid];
  ld.param.b32 %r2, [grid+4];
  ld.param.b32 %r3, [grid+8];
  ld.param.b32 %r4, [block];
  ld.param.b32 %r5, [block+4];
  ld.param.b32 %r6, [block+8];
  ld.param.b32 %r7, [smem];
  mov.u64 %rd3, dims;
  cvta.local.u64 %rd3, %rd3;
  st.u32 [%rd3], %r1;
  st.u32 [%rd3+4], %r2;
  st.u32 [%rd3+8], %r3;
  st.u32 [%rd3+12], %r4;
  st.u32 [%rd3+16], %r5;
  st.u32 [%rd3+20], %r6;
  add.u64 %rd4, %rd2, 8;
  call.uni __cucpu_cdp_dim3, (%rd4, %rd3);
  add.u64 %rd4, %rd2, 32;
  add.u64 %rd5, %rd3, 12;
  call.uni __cucpu_cdp_dim3, (%rd4, %rd5);
  cvt.u64.u32 %rd6, %r7;
  st.u64 [%rd2+56], %rd6;
  mov.u32 %cdpop, 0;
  call.uni (%rd7), __cucpu_cdp_call, (%cdpop, %rd2);
  st.param.b64 [buffer], %rd7;
  ret;
}

.func (.param .b64 buffer) __cudaCDP2GetParameterBuffer(.param .b64 alignment, .param .b64 size)
{
  .reg .b32 %cdpop;
  .local .align 8 .b8 args[16];
  .reg .b64 %rd<5>;
  ld.param.b64 %rd1, [alignment];
  ld.param.b64 %rd2, [size];
  mov.u64 %rd3, args;
  cvta.local.u64 %rd3, %rd3;
  st.u64 [%rd3], %rd1;
  st.u64 [%rd3+8], %rd2;
  mov.u32 %cdpop, 5;
  call.uni (%rd4), __cucpu_cdp_call, (%cdpop, %rd3);
  st.param.b64 [buffer], %rd4;
  ret;
}

.func (.param .b32 status) __cudaCDP2LaunchDeviceV2(.param .b64 buffer, .param .b64 stream)
{
  .reg .b32 %cdpop;
  .reg .b32 %cdpstatus;
  .local .align 8 .b8 args[16];
  .reg .b64 %rd<5>;
  ld.param.b64 %rd1, [buffer];
  ld.param.b64 %rd2, [stream];
  mov.u64 %rd3, args;
  cvta.local.u64 %rd3, %rd3;
  st.u64 [%rd3], %rd1;
  st.u64 [%rd3+8], %rd2;
  mov.u32 %cdpop, 1;
  call.uni (%rd4), __cucpu_cdp_call, (%cdpop, %rd3);
  cvt.u32.u64 %cdpstatus, %rd4;
  st.param.b32 [status], %cdpstatus;
  ret;
}

.func (.param .b32 status) __cudaCDP2LaunchDeviceV2_ptsz(.param .b64 buffer, .param .b64 stream)
{
  .reg .b32 %r1;
  .reg .b64 %rd<3>;
  ld.param.b64 %rd1, [buffer];
  ld.param.b64 %rd2, [stream];
  {
    .param .b64 b;
    .param .b64 s;
    .param .b32 r;
    st.param.b64 [b], %rd1;
    st.param.b64 [s], %rd2;
    call.uni (r), __cudaCDP2LaunchDeviceV2, (b, s);
    ld.param.b32 %r1, [r];
  }
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2LaunchDevice(.param .b64 func, .param .b64 buffer, .param .align 4 .b8 grid[12], .param .align 4 .b8 block[12], .param .b32 smem, .param .b64 stream)
{
  .reg .b32 %cdpop;
  .reg .b32 %cdpstatus;
  .local .align 8 .b8 args[80];
  .local .align 4 .b8 dims[24];
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  mov.u64 %rd2, args;
  cvta.local.u64 %rd2, %rd2;
  ld.param.b64 %rd1, [func];
  st.u64 [%rd2], %rd1;
  ld.param.b64 %rd1, [buffer];
  st.u64 [%rd2+8], %rd1;
  ld.param.b32 %r1, [grid];
  ld.param.b32 %r2, [grid+4];
  ld.param.b32 %r3, [grid+8];
  ld.param.b32 %r4, [block];
  ld.param.b32 %r5, [block+4];
  ld.param.b32 %r6, [block+8];
  ld.param.b32 %r7, [smem];
  mov.u64 %rd3, dims;
  cvta.local.u64 %rd3, %rd3;
  st.u32 [%rd3], %r1;
  st.u32 [%rd3+4], %r2;
  st.u32 [%rd3+8], %r3;
  st.u32 [%rd3+12], %r4;
  st.u32 [%rd3+16], %r5;
  st.u32 [%rd3+20], %r6;
  add.u64 %rd4, %rd2, 16;
  call.uni __cucpu_cdp_dim3, (%rd4, %rd3);
  add.u64 %rd4, %rd2, 40;
  add.u64 %rd5, %rd3, 12;
  call.uni __cucpu_cdp_dim3, (%rd4, %rd5);
  cvt.u64.u32 %rd6, %r7;
  st.u64 [%rd2+64], %rd6;
  ld.param.b64 %rd7, [stream];
  st.u64 [%rd2+72], %rd7;
  mov.u32 %cdpop, 6;
  call.uni (%rd8), __cucpu_cdp_call, (%cdpop, %rd2);
  cvt.u32.u64 %cdpstatus, %rd8;
  st.param.b32 [status], %cdpstatus;
  ret;
}

.func (.param .b32 status) __cudaCDP2LaunchDevice_ptsz(.param .b64 func, .param .b64 buffer, .param .align 4 .b8 grid[12], .param .align 4 .b8 block[12], .param .b32 smem, .param .b64 stream)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [func];
  ld.param.b64 %rd2, [buffer];
  ld.param.b64 %rd3, [stream];
  ld.param.b32 %r1, [grid];
  ld.param.b32 %r2, [grid+4];
  ld.param.b32 %r3, [grid+8];
  ld.param.b32 %r4, [block];
  ld.param.b32 %r5, [block+4];
  ld.param.b32 %r6, [block+8];
  ld.param.b32 %r7, [smem];
  {
    .param .b64 f;
    .param .b64 b;
    .param .align 4 .b8 g[12];
    .param .align 4 .b8 k[12];
    .param .b32 m;
    .param .b64 s;
    .param .b32 r;
    st.param.b64 [f], %rd1;
    st.param.b64 [b], %rd2;
    st.param.b32 [g], %r1;
    st.param.b32 [g+4], %r2;
    st.param.b32 [g+8], %r3;
    st.param.b32 [k], %r4;
    st.param.b32 [k+4], %r5;
    st.param.b32 [k+8], %r6;
    st.param.b32 [m], %r7;
    st.param.b64 [s], %rd3;
    call.uni (r), __cudaCDP2LaunchDevice, (f, b, g, k, m, s);
    ld.param.b32 %r1, [r];
  }
  st.param.b32 [status], %r1;
  ret;
}

// The interface the CUDA programming guide gives PTX writers: cudaGetParameterBuffer and
// cudaLaunchDevice, the same as the __cudaCDP2 functions nvcc calls.
.func (.param .b64 buffer) cudaGetParameterBuffer(.param .b64 alignment, .param .b64 size)
{
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [alignment];
  ld.param.b64 %rd2, [size];
  {
    .param .b64 a;
    .param .b64 s;
    .param .b64 r;
    st.param.b64 [a], %rd1;
    st.param.b64 [s], %rd2;
    call.uni (r), __cudaCDP2GetParameterBuffer, (a, s);
    ld.param.b64 %rd3, [r];
  }
  st.param.b64 [buffer], %rd3;
  ret;
}

.func (.param .b32 status) cudaLaunchDevice(.param .b64 func, .param .b64 buffer, .param .align 4 .b8 grid[12], .param .align 4 .b8 block[12], .param .b32 smem, .param .b64 stream)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [func];
  ld.param.b64 %rd2, [buffer];
  ld.param.b64 %rd3, [stream];
  ld.param.b32 %r1, [grid];
  ld.param.b32 %r2, [grid+4];
  ld.param.b32 %r3, [grid+8];
  ld.param.b32 %r4, [block];
  ld.param.b32 %r5, [block+4];
  ld.param.b32 %r6, [block+8];
  ld.param.b32 %r7, [smem];
  {
    .param .b64 f;
    .param .b64 b;
    .param .align 4 .b8 g[12];
    .param .align 4 .b8 k[12];
    .param .b32 m;
    .param .b64 s;
    .param .b32 r;
    st.param.b64 [f], %rd1;
    st.param.b64 [b], %rd2;
    st.param.b32 [g], %r1;
    st.param.b32 [g+4], %r2;
    st.param.b32 [g+8], %r3;
    st.param.b32 [k], %r4;
    st.param.b32 [k+4], %r5;
    st.param.b32 [k+8], %r6;
    st.param.b32 [m], %r7;
    st.param.b64 [s], %rd3;
    call.uni (r), __cudaCDP2LaunchDevice, (f, b, g, k, m, s);
    ld.param.b32 %r1, [r];
  }
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2StreamCreateWithFlags(.param .b64 stream, .param .b32 flags)
{
  .reg .b32 %cdpop;
  .reg .b64 %rd<3>;
  ld.param.b64 %rd1, [stream];
  mov.u32 %cdpop, 2;
  call.uni (%rd2), __cucpu_cdp_call, (%cdpop, 0);
  st.u64 [%rd1], %rd2;
  st.param.b32 [status], 0;
  ret;
}

.func (.param .b32 status) __cudaCDP2StreamDestroy(.param .b64 stream)
{
  st.param.b32 [status], 0;
  ret;
}

.func (.reg .b32 status) __cucpu_cdp_last_error(.reg .b64 clear)
{
  .reg .b32 %cdpop;
  .reg .b32 %cdpstatus;
  .local .align 8 .b8 args[8];
  .reg .b64 %rd<3>;
  mov.u64 %rd1, args;
  cvta.local.u64 %rd1, %rd1;
  st.u64 [%rd1], clear;
  mov.u32 %cdpop, 3;
  call.uni (%rd2), __cucpu_cdp_call, (%cdpop, %rd1);
  cvt.u32.u64 %cdpstatus, %rd2;
  mov.b32 status, %cdpstatus;
  ret;
}

.func (.param .b32 status) __cudaCDP2GetLastError()
{
  .reg .b32 %r1;
  call.uni (%r1), __cucpu_cdp_last_error, (1);
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2PeekAtLastError()
{
  .reg .b32 %r1;
  call.uni (%r1), __cucpu_cdp_last_error, (0);
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2GetDevice(.param .b64 device)
{
  .reg .b32 %cdpop;
  .reg .b32 %cdpstatus;
  .reg .b64 %rd<3>;
  ld.param.b64 %rd1, [device];
  mov.u32 %cdpop, 4;
  call.uni (%rd2), __cucpu_cdp_call, (%cdpop, 0);
  cvt.u32.u64 %cdpstatus, %rd2;
  st.u32 [%rd1], %cdpstatus;
  st.param.b32 [status], 0;
  ret;
}

// cudaMalloc in device code: the device heap (malloc's), cudaErrorMemoryAllocation when full.
.func (.param .b32 status) __cudaCDP2Malloc(.param .b64 ptr, .param .b64 size)
{
  .reg .b32 %cdpop;
  .reg .b32 %r1;
  .local .align 8 .b8 args[8];
  .reg .pred %p1;
  .reg .b64 %rd<5>;
  ld.param.b64 %rd1, [ptr];
  ld.param.b64 %rd2, [size];
  mov.u64 %rd3, args;
  cvta.local.u64 %rd3, %rd3;
  st.u64 [%rd3], %rd2;
  mov.u32 %cdpop, 7;
  call.uni (%rd4), __cucpu_cdp_call, (%cdpop, %rd3);
  st.u64 [%rd1], %rd4;
  setp.eq.u64 %p1, %rd4, 0;
  selp.b32 %r1, 2, 0, %p1;
  st.param.b32 [status], %r1;
  ret;
}

.func (.param .b32 status) __cudaCDP2Free(.param .b64 ptr)
{
  .reg .b32 %cdpop;
  .reg .b32 %cdpstatus;
  .local .align 8 .b8 args[8];
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [ptr];
  mov.u64 %rd2, args;
  cvta.local.u64 %rd2, %rd2;
  st.u64 [%rd2], %rd1;
  mov.u32 %cdpop, 8;
  call.uni (%rd3), __cucpu_cdp_call, (%cdpop, %rd2);
  cvt.u32.u64 %cdpstatus, %rd3;
  st.param.b32 [status], %cdpstatus;
  ret;
}
)";

const ptx::Module &deviceRuntime() {
  static const ptx::Module m = [] {
    ptx::ParseResult r = ptx::parse(kDeviceRuntime);
    if (!r.ok())
      log::error(log::Component::Jit, "the built-in device runtime does not parse: {}",
                 r.errors.front().format());
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
