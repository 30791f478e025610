// Directives and instructions nvcc rarely or never emits from CUDA C++: early exit, fences,
// nanosleep, .weak and .noreturn functions, .calltargets, .attribute(.managed),
// .maxntid/.minnctapersm/.maxnreg/.reqntid, .pragma "nounroll", .loc/.file and .section;
// vector registers, .reg parameters, guarded bar.sync/shfl.sync, named-barrier ids in registers,
// .param addresses in registers (a device function's aggregate parameter, a kernel parameter).
// ptx: hand-written (directives.ptx holds the kernels; make_ptx.sh leaves it alone)
// The envreg kernel has no case: %envreg values are the driver's (an H100 gives envreg0 ^
// envreg31 = 0x38432c8); cucpu's are 0 but for the cooperative-launch workspace.
//@ exit_early u32 threads=64 init=u32.q
//@ fences u32 threads=64
//@ sleep u32 threads=64
//@ calls u32 threads=64
//@ bounds u32 threads=100 block=100
//@ required u32 threads=128 block=64
//@ vecregs u32 threads=96
//@ guarded_sync u32 threads=256 block=128
//@ named_regs u32 threads=256 block=128
//@ param_addr u32 threads=96
