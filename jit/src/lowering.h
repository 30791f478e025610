// Internal interface of the PTX -> LLVM IR lowering: module state and the per-kernel lowering.
#pragma once

#include "cucpu/jit/program.h"
#include "cucpu/ptx/ast.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace cucpu::jit {

// The instruction table's opcodes and modifiers (cucpu/ptx/ast.h): emitters compare these, never
// strings.
using Mod = ptx::Mod;
using Op = ptx::Op;

// Modifier of an internal `trap` that ends an indirect call whose pointer names no function it
// can reach (operand: the pointer): reported as CUDA_ERROR_INVALID_PC.
inline constexpr const char *kBadCallMod = "cucpu.badcall";
// Modifier of the `bar.warp.sync` the lowering puts where a warp's lanes must run in lockstep
// (lockstep.cpp): not a synchronisation of the program's (racecheck tells them apart).
inline constexpr const char *kLockstepMod = "cucpu.lockstep";

// Thrown inside the lowering, caught by Program::load and turned into a CUresult + log line.
struct LowerError {
  int code; // CUresult
  ptx::SourceLoc loc;
  std::string message;
};

// The process's switches that, besides the PTX and the host CPU, decide the lowered IR: read from
// the environment once (CUCPU_SCHEDULE, CUCPU_LOOP_BARRIERS, CUCPU_DIRECTED_ROUNDING) and part of
// the key under which a lowered module is cached.
struct LoweringSwitches {
  bool forceWarp = false;     // CUCPU_SCHEDULE=warp: every kernel runs with the warp scheduler
  bool loopBarriers = true;   // CUCPU_LOOP_BARRIERS (default 1)
  bool nativeRounding = true; // directed f32 rounding through AVX-512 (directed_rounding.h)
  bool memcheck = false;      // CUCPU_SANITIZER=memcheck: every access checked (memcheck.cpp)
  bool racecheck = false;     // CUCPU_SANITIZER=racecheck: shared accesses logged (racecheck.cpp)
};
const LoweringSwitches &loweringSwitches();
// The switches as text, for cache keys.
std::string loweringSwitchesText();

[[noreturn]] void throwUnsupported(ptx::SourceLoc loc, const std::string &what);
[[noreturn]] void throwInvalid(ptx::SourceLoc loc, const std::string &what);

// "ld.global.v4.f32": an instruction as written, for messages.
std::string spellingOf(const ptx::Instruction &in);
// Bit i of a bit set kept in 64-bit words (register sets of the liveness analyses).
inline void setBit(std::vector<uint64_t> &v, int i) { v[i / 64] |= uint64_t(1) << (i % 64); }
inline bool getBit(const std::vector<uint64_t> &v, int i) { return (v[i / 64] >> (i % 64)) & 1; }
// An instruction that ends its block: bra, ret, exit.
inline bool isTerminatorOp(ptx::Op op) {
  return op == ptx::Op::bra || op == ptx::Op::ret || op == ptx::Op::exit;
}
// Bytes a lane publishes at a matrix sync point and gets back (lower_matrix.cpp).
std::pair<unsigned, unsigned> matrixSyncSlotBytes(const ptx::Instruction &in);

// The LLVM type that holds a PTX type in a register.
llvm::Type *llvmType(llvm::LLVMContext &ctx, ptx::Type t);

// The CUDA source place of a PTX line, from the .loc before it: file and line, and for code
// inlined into its caller the caller's place (memcheck's reports).
struct SourcePlace {
  const std::string *file = nullptr; // a .file name of the module, or null (no .loc)
  uint32_t line = 0;
  const std::string *callerFile = nullptr;
  uint32_t callerLine = 0;
};
using SourcePlaces = std::unordered_map<uint32_t, SourcePlace>; // by PTX line

// Module-wide state shared by the lowering of every kernel of one PTX module.
struct ModuleState {
  ModuleState(llvm::LLVMContext &c, llvm::Module *m, const ptx::Module &a, std::string prefix)
      : ctx(c), mod(m), ast(a), symbolPrefix(std::move(prefix)) {}

  llvm::LLVMContext &ctx;
  llvm::Module *mod; // the module being emitted: the variables' module, then each kernel's own
  const ptx::Module &ast;
  std::string symbolPrefix; // "cucpu." (each program has a JITDylib of its own: no clashes)
  std::unordered_map<std::string, llvm::GlobalVariable *> globals; // .global and .const
  std::unordered_map<std::string, uint32_t> sharedOffsets;         // module-scope static .shared
  std::unordered_map<std::string, bool> dynamicShared;             // module-scope extern .shared
  std::vector<std::string> unresolvedExterns; // extern .global/.const no input defines (defined)
  uint32_t moduleSharedBytes = 0;             // end of module-scope static shared variables
  uint32_t sharedAlign = 16;                  // the largest .align of any shared variable
  uint32_t constBytes = 0;                    // the module's .const variables, laid out as a bank
  uint32_t dynamicSharedOffset = 0;           // dynamic shared memory starts here, for every kernel
  llvm::StructType *launchTy = nullptr;
  llvm::StructType *blockTy = nullptr;
  // Device functions' and kernels' addresses: one byte in the variables' module per .func or
  // .entry with a body, so that a function pointer (`mov.u64 %rd, f;`, a table initialised with
  // `{f, g}`) is a distinct address that indirect calls compare against (a kernel's address is
  // what a device-side launch names; never called here).
  std::unordered_map<std::string, llvm::GlobalVariable *> functionMarkers;
  std::vector<const ptx::Function *> addressTaken; // .func whose address the module takes

  // A .global/.const variable as seen from the module being emitted (a declaration there when
  // it is defined in the variables' module); null when there is no such variable.
  llvm::GlobalVariable *global(const std::string &name);
  // The address marker of a device function, as seen from the module being emitted; or null.
  llvm::GlobalVariable *functionMarker(const std::string &name);
  // The source place of every instruction line of the module (made on first use).
  const SourcePlaces &sourcePlaces();

private:
  std::optional<SourcePlaces> places_;
};

// Creates the module's global variables and the shared-memory layout; throws LowerError.
void lowerModuleScope(ModuleState &ms, std::vector<KernelInfo> &kernels);

// Parameter layout of an .entry (natural alignment, in order) -- no LLVM needed.
void layoutParams(const ptx::Function &fn, KernelInfo &info);

// Bytes an array/scalar variable occupies, and its alignment.
uint64_t varBytes(const ptx::VarDecl &v);
uint32_t varAlign(const ptx::VarDecl &v);

// ---------------------------------------------------------------------------------------------
// The lowering of one kernel. Declared here so the instruction semantics (lower_instr.cpp) and
// the block formation (lower_function.cpp) can live in separate files.

// A recursive device function inlined once at an outer call site, its own calls becoming jumps
// with an explicit per-thread stack (recursion.cpp).
struct RecursionRegion {
  const ptx::Function *fn = nullptr;
  std::string id;                                // label prefix
  std::string sp, base, addr, word, index, pred; // its own registers (not saved in frames)
  std::string level, var;              // the current call's frame in the stack; an address in it
  std::string stack;                   // the .local stack variable
  size_t start = 0;                    // the region's first statement in flat_
  size_t firstReg = 0;                 // registers from here on are saved in each frame
  uint32_t firstLocal = 0;             // and .local/.param bytes from here on
  std::vector<std::string> formals;    // the outer call's argument variables (the parameters)
  std::vector<std::string> results;    // the outer call's result variables
  std::vector<size_t> saves, restores; // placeholders in flat_, one each per recursive call
};

struct RegInfo {
  ptx::Type type = ptx::Type::None;
  llvm::Type *ty = nullptr;
  llvm::AllocaInst *slot = nullptr;           // the register's value within one thread's execution
  int cross = -1;                             // index among values live across a barrier, or -1
  uint32_t crossOffset = 0;                   // bytes per thread before this register's slab
  const ptx::Instruction *rematDef = nullptr; // recomputed in each region rather than saved
  bool uniform = false; // the same in every thread of the block at every barrier
};

class KernelLowering {
public:
  KernelLowering(ModuleState &ms, const ptx::Function &fn, KernelInfo &info);
  void run(const std::string &llvmName);

  // --- services for the instruction semantics
  llvm::LLVMContext &ctx;
  ModuleState &ms;
  llvm::IRBuilder<> b;

  llvm::Value *read(const ptx::Operand &op, ptx::Type want, const ptx::Instruction &in);
  void write(const ptx::Operand &op, llvm::Value *v, ptx::Type type, const ptx::Instruction &in);
  // A pointer for an address operand ([reg+imm], [sym+imm]) in a state space; *outsideScratch
  // (when given) tells whether the space can never hold the block's scratch memory (.local).
  llvm::Value *address(const ptx::Operand &op, ptx::Space space, const ptx::Instruction &in,
                       bool *outsideScratch = nullptr);
  llvm::Value *convert(llvm::Value *v, llvm::Type *to, bool isSigned);
  llvm::Value *sharedBase() const { return sharedBase_; }
  void emitInstruction(const ptx::Instruction &in); // lower_instr.cpp: instruction semantics
  bool emitMemoryInstruction(const ptx::Instruction &in);
  // ld/st.{relaxed,acquire,release} of a vector of at most 16 bytes as one atomic access: CUB's
  // tile-status pairs (st.relaxed.gpu.v2.u32) rely on it being single-copy atomic, as on a GPU.
  void emitOrderedVector(const ptx::Instruction &in, const ptx::Operand &vec, llvm::Value *p,
                         bool load, llvm::AtomicOrdering ordering, bool outside);
  // Instructions handled by the block-formation layer rather than the instruction families:
  // warp-level operations (lower_warp.cpp) and calls into runtime services (lower_runtime.cpp).
  bool emitWarpInstruction(const ptx::Instruction &in);
  bool emitMatrixInstruction(const ptx::Instruction &in); // lower_matrix.cpp: wmma.load/store
  bool emitVideoInstruction(const ptx::Instruction &in);  // lower_video.cpp
  bool emitAsyncInstruction(const ptx::Instruction &in);  // lower_async.cpp: cp.async, mbarrier
  // lower_narrow.cpp: cvt to and from e4m3x2/e5m2x2, cvt.pack.sat; an f32 rounded to tf32.
  bool emitNarrowConvert(const ptx::Instruction &in);
  llvm::Value *toTf32(const ptx::Instruction &in, llvm::Value *f32);
  bool emitRuntimeInstruction(const ptx::Instruction &in);
  // tex, tld4, txq, suld, sust, sured, suq: calls into the texture and surface services.
  bool emitImageInstruction(const ptx::Instruction &in); // lower_image.cpp
  // memcheck.cpp: checks an access of `bytes` at p in `space` (CUCPU_ACCESS_* `access`) when
  // memcheck is on.
  void checkAccess(const ptx::Instruction &in, llvm::Value *p, ptx::Space space, unsigned bytes,
                   unsigned access);
  // Bytes of the block's shared window in this launch: static, then dynamic shared memory.
  llvm::Value *sharedWindowBytes();
  // racecheck.cpp: passes a shared-memory access (`stored`: a store's value, or null) to the
  // runtime when racecheck is on.
  void raceAccess(const ptx::Instruction &in, llvm::Value *p, ptx::Space space, unsigned bytes,
                  unsigned access, llvm::Value *stored);
  // {ctaid.xyz, tid.xyz} of the calling thread in a stack array, for service messages.
  llvm::Value *threadWhere();
  // The service at `offset` in the launch record's cucpu_services table (a function pointer).
  llvm::Value *serviceFunction(unsigned offset);
  // Instruction families, each false when the instruction is not its own:
  bool emitFloatInstruction(const ptx::Instruction &in);   // lower_float.cpp
  bool emitIntInstruction(const ptx::Instruction &in);     // lower_int.cpp
  bool emitConvertInstruction(const ptx::Instruction &in); // lower_convert.cpp
  bool emitCompareInstruction(const ptx::Instruction &in); // lower_compare.cpp
  // Splits packed 2x16-bit operands into lanes (lanes = 1: no split), applies fn to each.
  llvm::Value *perLane(unsigned lanes, const std::vector<llvm::Value *> &args,
                       const std::function<llvm::Value *(std::vector<llvm::Value *> &)> &fn);
  // Parallel-access metadata for thread loops; outsideScratch marks a kernel's access to a space
  // that cannot be scratch memory, for the scratch alias scope (scratch_alias.h).
  void tagMemory(llvm::Instruction *i, bool outsideScratch = false);
  // Atomically replaces the value of type ty at p by update(old) (a compare-and-swap loop).
  llvm::Value *atomicUpdate(llvm::Value *p, llvm::Type *ty,
                            const std::function<llvm::Value *(llvm::Value *)> &update);

private:
  struct PBlock {
    std::vector<ptx::Instruction> instrs;
    std::vector<size_t> flatIndex; // each instruction's statement in flat_ (implicit: SIZE_MAX)
    std::vector<int> succs;
    int syncRegion = -1; // >= 0: a synchronisation point (its only instruction) starting it
    std::vector<uint64_t> use, def, liveIn, liveOut;
  };
  struct Region {
    int entryBlock = 0;          // the sync block that starts it (the entry block for region 0)
    bool warp = false;           // entered at a warp-level sync point rather than a block barrier
    bool implicit = false;       // a loop head's implicit barrier: masked copies run through it
    bool yield = false;          // a thread waiting for others (mbarrier.test_wait/try_wait)
    uint32_t barrierId = 0;      // bar.sync a, b: the named barrier a ...
    uint32_t count = 0;          // ... and its thread count b (0: every thread of the block)
    bool dynamicBarrier = false; // a named barrier whose id or count is computed at run time
    llvm::BasicBlock *pre = nullptr;    // entry when only some threads resume here
    llvm::BasicBlock *preAll = nullptr; // entry when every thread of the block resumes here
  };

  void collectRegisters();
  void markRegisterOperands();
  // Cuts the flat body into blocks; implicit barriers at the labels `loopHeads` and before the
  // statements `splitBefore` (unrolled strided loads).
  void formBlocks(const std::set<std::string> &loopHeads, const std::set<size_t> &splitBefore = {});
  // In a one-block loop with an implicit barrier, the statements before which further implicit
  // barriers make each of an unrolled strided loop's loads a row across the threads.
  void stridedLoadSplits(int loopBlock, std::set<size_t> &out) const;
  bool unrollScalarLoop(int loopBlock, std::set<size_t> &splits); // atomics: 4 per region
  void buildBlocks();
  // loop_barriers.cpp: implicit barriers at the heads of block-uniform loops, so that each
  // iteration runs as a thread loop (vectorised across threads) instead of each thread running
  // the whole loop.
  void addLoopBarriers();
  ptx::Instruction loopBarrier(const ptx::SourceLoc &loc) const;
  // lockstep.cpp: the statements of flat_ before which a warp-level step must start so that the
  // lanes of a warp run their accesses in lockstep (volatile ones; plain ones too in kernels with
  // warp-level instructions).
  std::set<size_t> lockstepSteps(const std::set<std::string> &loopHeads,
                                 const std::set<size_t> &splitBefore);
  size_t lockstepStepCount_ = 0; // of the last formBlocks, for the log
  void addReconvergenceSteps(const std::unordered_map<std::string, size_t> &labelAt,
                             const std::set<std::string> &loopHeads,
                             const std::set<size_t> &splitBefore, std::set<size_t> &steps) const;
  static ptx::Instruction warpStep(const ptx::SourceLoc &loc);
  struct RegDef { // an instruction writing a register
    const ptx::Instruction *in;
    size_t at; // its statement in flat_
    int block;
  };
  std::vector<std::vector<RegDef>> regDefs() const; // per register
  bool splitInductionVariable(int reg, const std::vector<bool> &inLoop,
                              const std::vector<std::vector<RegDef>> &defs);
  int addRegister(const std::string &name, ptx::Type type);
  // Recursion (recursion.cpp): see RecursionRegion.
  bool selfRecursive(const ptx::Function &fn, const ptx::SourceLoc &loc) const;
  RecursionRegion *activeRecursion(const ptx::Function *fn);
  void beginRecursion(const ptx::Function *fn, std::vector<std::string> formals,
                      std::vector<std::string> results, uint32_t localOff,
                      const ptx::SourceLoc &loc);
  void recursiveCall(RecursionRegion &r, const std::vector<std::string> &args,
                     const std::vector<std::string> &rets, const ptx::SourceLoc &loc);
  void endRecursion(uint32_t &localOff, const std::string &returnLabel, const ptx::SourceLoc &loc);
  void levelBase(std::vector<ptx::Statement> &out, const RecursionRegion &r,
                 const ptx::SourceLoc &loc);
  void addressInFrames(const RecursionRegion &r, const std::map<std::string, uint32_t> &inFrame);
  std::vector<RecursionRegion> recursions_; // active, innermost last
  std::set<std::string> recursionStacks_;   // the .local stack of every recursion region
  std::unordered_map<std::string, uint32_t> localSizes_; // bytes of .local/.param vars
  void computeLiveness();
  void estimateRegisters();
  // The smallest resume state of any thread; *largest (if given) receives the largest.
  llvm::Value *smallestState(llvm::Value **largest = nullptr);
  // A loop over i = 0 .. count-1 (count >= 1) at the insertion point carrying the accumulators
  // `init`: step(i, acc) gives their next values. Returns the final ones; the builder is left
  // after the loop.
  std::vector<llvm::Value *> foldLoop(llvm::Value *count, std::vector<llvm::Value *> init,
                                      const std::function<std::vector<llvm::Value *>(
                                          llvm::Value *, const std::vector<llvm::Value *> &)> &step,
                                      const char *name);
  // A loop ID that keeps LLVM from unrolling the loop (warp mode's lane loops, one per region).
  llvm::MDNode *noUnrollLoop();
  unsigned longLatencyOps(int r) const; // div/sqrt/ex2/... in region r: interleave its threads
  int regionBody(int r) const;          // the first PTX block after region r's sync block
  std::vector<int> blocksFrom(int first, bool throughImplicit) const; // up to the sync points
  // Block mode, emitting a region's unmasked copy (every thread resumed at the region).
  bool unmaskedCopy() const {
    return !warpMode_ && copyIndex_ >= static_cast<int>(regions_.size());
  }
  int straightSuccessor(int r) const;              // the region all of r's threads go on to, or -1
  llvm::Value *inLoopFirst(llvm::Value *smallest); // threads apart: loops before barriers
  // Threads waiting at yield points take turns: the next such region after the last one run.
  llvm::Value *nextYield(llvm::Value *chosen);
  llvm::Value *isYieldState(llvm::Value *st);
  void countWaits(llvm::Value *next); // reports blocks that only wait (block_waits)
  llvm::AllocaInst *lastYield_ = nullptr;
  llvm::AllocaInst *waitRounds_ = nullptr;
  llvm::GlobalVariable *yieldTable_ = nullptr;
  bool yields_ = false; // the kernel has yield points
  void findRegionDefs();
  void emitDispatch(); // block mode: picks the next region after any region's thread loop
  const ptx::Instruction *barrierReduction(int region) const;
  void emitBarrierReductions(llvm::Value *region);
  void findRematerializable();
  void findUniform(bool ignoreAllExits = false);
  std::vector<bool> exitOnlyBlocks() const;
  std::vector<std::vector<uint64_t>> // bit sets (getBit)
  postDominators(const std::vector<bool> *exitsOnly, bool ignoreAllExits,
                 const std::vector<bool> *varyingBranch = nullptr) const;
  bool threadsMayDisagree() const;
  bool readsKernelParameter(const ptx::Instruction &in) const;
  // named_barriers.cpp: bar.sync/bar.arrive with a thread count (producer/consumer barriers).
  // False when the id or the count is computed at run time.
  bool countedBarrier(const ptx::Instruction &in, uint32_t &id, uint32_t &count) const;
  // The value of a register whose only definition is an unguarded `mov` of an immediate (inline
  // assembly passes named-barrier ids and counts through "r" operands), else nullopt.
  std::optional<int64_t> constantRegister(const std::string &name) const;
  llvm::Value *barrierSlot(llvm::AllocaInst *array, llvm::Value *id); // per-barrier i32
  void countArrival(llvm::Value *id);
  llvm::Value *arriveAtNamedBarrier(const ptx::Instruction &in); // id, count at run time
  llvm::Value *waitingBarrier(llvm::Value *t); // the id thread t recorded at its arrival
  void recordWaitingBarrier(llvm::Value *id);
  // Whether thread t (resume state `state`) runs when the block moves on to region r.
  llvm::Value *resumesAt(int r, llvm::Value *t, llvm::Value *state);
  llvm::Value *pickWithNamedBarriers(llvm::Value *smallest, llvm::Value *&together);
  static constexpr uint32_t kNamedBarriers = 16;
  void rematerialize(int reg, std::vector<bool> &done);
  void planScratch();
  void emitEntry(const std::string &llvmName);
  // All threads of the block between block barriers; `all`: every thread resumes here, so the
  // thread loop has no per-thread state test (and vectorises without masking).
  void emitRegion(int r, bool all);
  void emitWarpScheduler();           // lower_warp.cpp: kernels with warp-level sync points
  void emitRegionBody(int r);         // one thread's code for region r (entry at the current point)
  llvm::BasicBlock *blockCopy(int b); // PTX block b in the current region copy (copyIndex_)
  void emitBlockBody(int b);
  void storeCross(int region);
  void loadCross(int region);
  void arriveAtSync(int region);       // lower_warp.cpp: publish this lane's operand
  void emitCollectiveStep(int region); // lower_warp.cpp: results of all lanes
  void emitCollective(int region);     // lower_warp.cpp: a lane takes its result at region entry
  // lower_warp.cpp: a counted loop over the warp's lanes, the body emitted by `body`.
  void laneLoop(const char *name, const std::function<void(llvm::Value *)> &body);
  // lower_matrix.cpp: the same three steps for mma, wmma.mma, ldmatrix, stmatrix, movmatrix.
  void arriveAtMatrixSync(const ptx::Instruction &in, llvm::Value *slot);
  void emitMatrixCollectiveStep(
      const ptx::Instruction &in,
      const std::function<llvm::Value *(llvm::Value *, unsigned, llvm::Type *)> &pub);
  void emitMatrixCollective(const ptx::Instruction &in);
  void exitThread();
  void goTo(int block);
  void arrive(int syncBlock);
  static constexpr int32_t kExited = 0x7fffffff; // warp mode: the thread has exited
  llvm::Value *threadSlot(uint32_t offsetPerThread, unsigned size, llvm::Value *tid);
  llvm::Value *special(const ptx::Operand &op, const ptx::Instruction &in);
  RegInfo &reg(const std::string &name, const ptx::Instruction &in);
  llvm::Value *symbolAddress(const std::string &name, const ptx::Instruction &in,
                             ptx::Space *spaceOut);
  std::vector<int> regOperands(const ptx::Instruction &in, bool defs) const;
  bool isBarrier(const ptx::Instruction &in) const;
  void setThreadIndex(llvm::Value *linear, llvm::Value *x, llvm::Value *y, llvm::Value *z);

  const ptx::Function &fn_;
  KernelInfo &info_;
  llvm::Function *f_ = nullptr;
  std::unordered_map<std::string, int> regIds_;
  std::vector<RegInfo> regs_;
  std::vector<ptx::Statement> flat_; // the body after scopes are flattened and calls inlined
  std::vector<bool> varying_;        // per register: may differ between threads (findUniform)
  std::vector<bool> divergent_;      // per block: only some threads may run it (findUniform)
  std::vector<PBlock> blocks_;
  std::vector<Region> regions_;
  std::unordered_map<std::string, int> labels_;
  uint32_t localAlign_ = 16; // the largest .align of the thread's .local variables
  std::unordered_map<std::string, uint32_t> localOffsets_;  // .local vars in the thread's area
  std::unordered_map<std::string, ptx::Type> localTypes_;   // element type of .local/.param vars
  std::unordered_map<std::string, uint32_t> sharedOffsets_; // function-scope .shared
  std::unordered_map<std::string, uint32_t> paramOffsets_;
  bool maskedCopies_ = true;   // block mode: regions also get a copy for some threads only
  bool namedBarriers_ = false; // has bar.sync with a thread count or bar.arrive
  bool warpMode_ = false;      // has warp-level sync points: per-thread resume states
  // Scratch layout, in bytes per thread: [cross-register slabs][exchange][state][local]
  uint32_t crossBytes_ = 0;  // slabs of registers live across sync points
  uint32_t stateOff_ = 0;    // i32 per thread: the region it resumes at, or kExited
  uint32_t pubOff_ = 0;      // warp mode: operands a lane publishes at a sync point
  uint32_t resultOff_ = 0;   // warp mode: a lane's result of the collective operation
  unsigned pubBytes_ = 16;   // bytes of a thread's publication slot (matrix fragments: more)
  unsigned resultBytes_ = 8; // bytes of a thread's result slot
  uint32_t localOff_ = 0;    // start of the .local area
  uint32_t localBytes_ = 0;  // .local bytes per thread

  // values of the current thread iteration / block
  llvm::Value *launch_ = nullptr, *blockArg_ = nullptr;
  llvm::Value *ntid_[3] = {}, *nctaid_[3] = {}, *ctaid_[3] = {}, *tid_[3] = {};
  llvm::Value *linearTid_ = nullptr, *nthreads_ = nullptr;
  // Where the current thread's index is defined, and its scratch slots computed there.
  llvm::BasicBlock *slotAnchor_ = nullptr;
  std::map<std::pair<uint32_t, unsigned>, llvm::Value *> threadSlots_;
  llvm::Value *params_ = nullptr, *sharedBase_ = nullptr, *scratch_ = nullptr;
  llvm::Value *envreg_ = nullptr, *dynShared_ = nullptr, *services_ = nullptr;
  llvm::Value *localBase_ = nullptr;           // this thread's .local area
  llvm::AllocaInst *carry_ = nullptr;          // the CC.CF flag of add.cc/addc chains
  llvm::AllocaInst *blockReduction_ = nullptr; // bar.red's result for the region being entered
  llvm::AllocaInst *barrierCounts_ = nullptr;  // arrivals at each named barrier, this phase
  llvm::AllocaInst *barrierNeeds_ = nullptr;   // the thread count of each barrier named at run time
  llvm::AllocaInst *releasedBarrier_ = nullptr; // the barrier whose threads the region runs
  llvm::BasicBlock *latch_ = nullptr;           // end of the current thread iteration
  llvm::BasicBlock *dispatch_ = nullptr;        // block mode with several regions: the scheduler
  llvm::BasicBlock *blockEnd_ = nullptr;        // the current block is done: next block or return
  llvm::MDNode *accessGroup_ = nullptr;
  llvm::Value *warpBase_ = nullptr;   // warp mode: linear tid of lane 0 of the current warp
  llvm::Value *activeMask_ = nullptr; // warp mode: lanes of the warp running this region
  llvm::Value *warpLanes_ = nullptr;  // warp mode: lanes that exist in the current warp
  std::unordered_map<int, llvm::Value *> uniformIn_; // block mode: uniform inputs of the region
  std::vector<std::vector<uint64_t>> regionDefs_;    // registers each region may write
  std::vector<std::vector<uint64_t>> unmaskedDefs_;  // ... up to its first sync point
  std::map<std::pair<int, int>, llvm::BasicBlock *> copies_; // (region copy, PTX block)
  int copyIndex_ = 0; // region copies: r for the masked (or only) copy, r + #regions for `all`
  std::vector<int> pending_;
  int curRegion_ = 0;
  // memcheck.cpp: a constant cucpu_access_site and the strings it points to.
  llvm::Constant *accessSite(const ptx::Instruction &in, unsigned space, unsigned bytes,
                             unsigned access);
  llvm::Constant *siteString(const std::string *text);
  bool raceChecked() const;
  bool startsInterval(int region) const;
  void raceBarrier(int region);            // at the entry of region `region`, once for the block
  void raceBarrierAt(llvm::Value *region); // the warp scheduler's block phase: region at run time
  void raceWarpSync(int region);           // the warp scheduler: the current warp's collective step
  void emitRaceBarrier(llvm::Value *warp); // the race_barrier call (warp ~0: the whole block)
  std::unordered_map<std::string, llvm::Constant *> siteStrings_;
  llvm::AllocaInst *where_ = nullptr; // threadWhere's array
};

} // namespace cucpu::jit
