// Lockstep for warp-synchronous code: a converged warp's lanes run each instruction together, so
// code written for it (the reduction samples' last-warp unrolling over `volatile` shared memory,
// padded warp scans, bitonic steps by a warp's lanes over plain memory between warp votes, as in
// CuPy's partition kernel) reads what every lane stored one step before. cucpu runs a region lane
// after lane, so an access that would see a neighbour's store (or let a neighbour's load see its
// own) starts a warp-level step: every lane finishes the accesses before it first.
#include "lockstep_addresses.h"
#include "lowering.h"
#include "ptx_build.h"
#include "ptx_passes.h"

#include <optional>
#include <unordered_map>

namespace cucpu::jit {

namespace {

// What lanes may have accessed since their region started, as bits: loads and stores of global
// and shared memory (a generic access may be either), volatile stores also on their own.
enum : uint8_t {
  LoadGlobal = 1,
  StoreGlobal = 2,
  VolatileStoreGlobal = 4,
  LoadShared = 8,
  StoreShared = 16,
  VolatileStoreShared = 32,
  GlobalBits = LoadGlobal | StoreGlobal | VolatileStoreGlobal,
  SharedBits = LoadShared | StoreShared | VolatileStoreShared,
};

// A load or store other lanes can see: not read-only (`.nc`), per-thread or constant memory.
bool visibleAccess(const ptx::Instruction &in) {
  return (in.op == Op::ld || in.op == Op::st) && !in.has(Mod::local) && !in.has(Mod::param) &&
         !in.has(Mod::const_) && !in.has(Mod::nc);
}

// The bits of `in` if it is a volatile or non-cached access other lanes can see.
uint8_t volatileBits(const ptx::Instruction &in) {
  // Non-cached accesses (`ld.cv`, `st.wt`, `.mmio`) bypass cached copies as volatile ones do.
  const bool isVolatile = in.has(Mod::volatile_) || in.has(Mod::mmio) ||
                          (in.op == Op::ld && in.has(Mod::cv)) ||
                          (in.op == Op::st && in.has(Mod::wt));
  if (!isVolatile || !visibleAccess(in))
    return 0;
  const bool shared = in.has(Mod::shared) || in.has(Mod::shared_cta) || in.has(Mod::shared_cluster);
  const bool global = in.has(Mod::global);
  uint8_t bits = in.op == Op::ld
                     ? LoadGlobal | LoadShared
                     : StoreGlobal | StoreShared | VolatileStoreGlobal | VolatileStoreShared;
  if (global && !shared)
    bits &= GlobalBits;
  if (shared && !global)
    bits &= SharedBits;
  return bits;
}

// Whether an access with `bits` after accesses `before` (same lanes' region) would observe the
// lane order: a load after a store of the same memory would see another lane's store of the same
// step, a store after a load would change what another lane's load of the same step sees. Loads
// after loads commute; so do stores after stores, unless both are volatile (a volatile store is
// seen by the next volatile access in lockstep code such as padded scans).
bool conflicts(uint8_t before, uint8_t bits) {
  uint8_t seen = 0;
  if (bits & (LoadGlobal | LoadShared))
    seen = StoreGlobal | StoreShared;
  else
    seen = LoadGlobal | LoadShared |
           ((bits & (VolatileStoreGlobal | VolatileStoreShared))
                ? VolatileStoreGlobal | VolatileStoreShared
                : 0);
  const uint8_t spaces =
      ((bits & GlobalBits) ? GlobalBits : 0) | ((bits & SharedBits) ? SharedBits : 0);
  return before & seen & spaces;
}

// What may have run since the region started: volatile accesses as bits (above); plain ones as
// the roots they touched (lockstep_addresses.h), all of them and the open ones.
struct Reach {
  uint8_t volatiles = 0;
  uint64_t loads = 0, stores = 0, openLoads = 0, openStores = 0;
  bool operator==(const Reach &) const = default;
  Reach &operator|=(const Reach &o) {
    volatiles |= o.volatiles;
    loads |= o.loads;
    stores |= o.stores;
    openLoads |= o.openLoads;
    openStores |= o.openStores;
    return *this;
  }
};

// A plain access conflicts with an earlier one of another lane when both may touch the same
// memory, one stores, the other loads (stores after stores commute: lanes store different values
// only in racy code), and one of the two is open: other lanes' accesses may meet it.
bool plainConflict(const Reach &r, const AddressAnalysis::Access &a, bool load) {
  const uint64_t other = load ? r.stores : r.loads, otherOpen = load ? r.openStores : r.openLoads;
  return (otherOpen & a.aliases) || (a.open && (other & a.aliases));
}

void notePlain(Reach &r, const AddressAnalysis::Access &a, bool load) {
  (load ? r.loads : r.stores) |= a.roots;
  if (a.open)
    (load ? r.openLoads : r.openStores) |= a.roots;
}

// The flattened body as basic blocks for the reconvergence analysis: a block starts at statement 0,
// at each label and after each branch, return or exit; `exit` is the extra node every return
// reaches.
struct FlatCfg {
  std::vector<size_t> start;           // each block's first statement
  std::vector<std::vector<int>> succs; // block successors (exit: start.size())
  std::vector<int> blockOf;            // statement -> block
  int exit() const { return static_cast<int>(start.size()); }
};

FlatCfg flatCfg(const std::vector<ptx::Statement> &flat,
                const std::unordered_map<std::string, size_t> &labelAt) {
  FlatCfg g;
  const size_t n = flat.size();
  g.blockOf.assign(n + 1, 0);
  bool startNext = true;
  for (size_t i = 0; i < n; ++i) {
    const auto *in = std::get_if<ptx::Instruction>(&flat[i]);
    if (startNext || std::holds_alternative<ptx::Label>(flat[i]))
      g.start.push_back(i);
    g.blockOf[i] = static_cast<int>(g.start.size()) - 1;
    startNext = in && isTerminatorOp(in->op);
  }
  g.blockOf[n] = g.exit();
  g.succs.resize(g.start.size());
  for (size_t b = 0; b < g.start.size(); ++b) {
    const size_t last = b + 1 < g.start.size() ? g.start[b + 1] - 1 : n - 1;
    const auto *in = std::get_if<ptx::Instruction>(&flat[last]);
    bool fallsThrough = true;
    if (in && in->op == Op::bra && !in->operands.empty()) {
      if (auto it = labelAt.find(in->operands[0].name); it != labelAt.end())
        g.succs[b].push_back(g.blockOf[it->second]);
      fallsThrough = in->guard.has_value();
    } else if (in && (in->op == Op::ret || in->op == Op::exit)) {
      g.succs[b].push_back(g.exit());
      fallsThrough = in->guard.has_value();
    }
    if (fallsThrough)
      g.succs[b].push_back(b + 1 < g.start.size() ? static_cast<int>(b) + 1 : g.exit());
  }
  return g;
}

// Immediate post-dominators (Cooper, Harvey and Kennedy's iteration over the reversed graph) of
// the statements' blocks, before formBlocks has made its own (divergence.cpp works on those);
// -1 where a block never reaches the exit.
std::vector<int> immediatePostDominators(const FlatCfg &g) {
  const int nodes = g.exit() + 1;
  std::vector<std::vector<int>> preds(nodes);
  for (int b = 0; b < g.exit(); ++b)
    for (int s : g.succs[b])
      preds[s].push_back(b);
  std::vector<int> order, number(nodes, -1); // post-order of the reversed graph from the exit
  std::vector<std::pair<int, size_t>> stack{{g.exit(), 0}};
  std::vector<bool> seen(nodes, false);
  seen[g.exit()] = true;
  while (!stack.empty()) {
    auto &[node, next] = stack.back();
    if (next < preds[node].size()) {
      const int p = preds[node][next++];
      if (!seen[p]) {
        seen[p] = true;
        stack.push_back({p, 0});
      }
      continue;
    }
    number[node] = static_cast<int>(order.size());
    order.push_back(node);
    stack.pop_back();
  }
  std::vector<int> ipdom(nodes, -1);
  ipdom[g.exit()] = g.exit();
  auto meet = [&](int a, int b) {
    while (a != b) {
      while (number[a] < number[b])
        a = ipdom[a];
      while (number[b] < number[a])
        b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int b = *it;
      if (b == g.exit())
        continue;
      int d = -1;
      for (int s : g.succs[b])
        if (ipdom[s] >= 0)
          d = d < 0 ? s : meet(s, d);
      if (d != ipdom[b]) {
        ipdom[b] = d;
        changed = true;
      }
    }
  }
  return ipdom;
}

} // namespace

// A forward data flow over the flattened body: the accesses since the region started reach each
// statement along every path (a loop's back edge carries its stores to its head); sync points,
// implicit barriers and the steps themselves start regions. The steps go where an access
// conflicts with what reaches it.
std::set<size_t> KernelLowering::lockstepSteps(const std::set<std::string> &loopHeads,
                                               const std::set<size_t> &splitBefore) {
  const size_t n = flat_.size();
  // Plain accesses count in kernels with no barrier of any kind: their lanes can exchange data
  // through memory only by relying on lockstep. A kernel that synchronises explicitly
  // (`__syncwarp`, `__syncthreads`, named or asynchronous barriers) was written for independent
  // thread scheduling and orders its accesses itself, as CUB's kernels do. In a kernel with
  // warp-level instructions (written for warps) every plain access counts; in others only those
  // whose addresses other lanes may meet, so that elementwise kernels keep block mode.
  bool warpLevel = false, barriers = false;
  std::unordered_map<std::string, size_t> labelAt;
  for (size_t i = 0; i < n; ++i) {
    if (auto *l = std::get_if<ptx::Label>(&flat_[i])) {
      labelAt[l->name] = i;
    } else if (auto *in = std::get_if<ptx::Instruction>(&flat_[i])) {
      barriers = barriers || in->op == Op::bar || in->op == Op::barrier || in->op == Op::mbarrier;
      warpLevel = warpLevel || passes::isWarpSync(*in);
    }
  }
  std::optional<AddressAnalysis> addresses;
  if (!barriers)
    addresses.emplace(flat_, [this](const std::string &v) {
      return localSizes_.count(v) || localOffsets_.count(v) || recursionStacks_.count(v);
    });
  auto plainAccess = [&](const ptx::Instruction &in) {
    auto a = addresses->access(in);
    a.open = a.open || warpLevel;
    return a;
  };
  std::vector<Reach> reaching(n + 1);
  std::set<size_t> steps;
  for (bool changed = true; changed;) {
    changed = false;
    steps.clear();
    auto flow = [&](size_t to, const Reach &state) {
      Reach joined = reaching[to];
      joined |= state;
      if (!(joined == reaching[to])) {
        reaching[to] = joined;
        changed = true;
      }
    };
    for (size_t i = 0; i < n; ++i) {
      Reach state = reaching[i];
      const ptx::Instruction *in = std::get_if<ptx::Instruction>(&flat_[i]);
      if (auto *l = std::get_if<ptx::Label>(&flat_[i]); l && loopHeads.count(l->name))
        state = {}; // an implicit barrier
      bool fallsThrough = true;
      if (in) {
        if (splitBefore.count(i))
          state = {};
        const uint8_t bits = volatileBits(*in);
        const bool plain = addresses && visibleAccess(*in);
        const bool load = in->op == Op::ld;
        const auto access = plain ? plainAccess(*in) : AddressAnalysis::Access{};
        if ((bits && conflicts(state.volatiles, bits)) ||
            (plain && plainConflict(state, access, load))) {
          steps.insert(i);
          state = {};
        }
        state.volatiles |= bits;
        if (plain)
          notePlain(state, access, load);
        if (passes::isWarpSync(*in) || passes::isYieldPoint(*in) || isBarrier(*in))
          state = {};
        if (in->op == Op::bra && !in->operands.empty()) {
          if (auto it = labelAt.find(in->operands[0].name); it != labelAt.end())
            flow(it->second, state);
          fallsThrough = in->guard.has_value();
        } else if (in->op == Op::ret || in->op == Op::exit) {
          fallsThrough = in->guard.has_value();
        }
      }
      if (fallsThrough)
        flow(i + 1, state);
    }
  }
  if (!steps.empty())
    addReconvergenceSteps(labelAt, loopHeads, splitBefore, steps);
  return steps;
}

// A warp's lanes that part at a branch run one side, then the other, and go on together from
// where the sides meet (the branch's immediate post-dominator). The warp scheduler runs the
// smallest region its lanes wait at first, so lanes that skip a step (an `if` around a store, a
// loop some lanes leave early) would run ahead into a later step, or around a loop into an earlier
// one, before the others finish theirs. A step where the sides meet holds them back: one goes
// wherever a branch's sides hold a step, until no branch needs one.
void KernelLowering::addReconvergenceSteps(const std::unordered_map<std::string, size_t> &labelAt,
                                           const std::set<std::string> &loopHeads,
                                           const std::set<size_t> &splitBefore,
                                           std::set<size_t> &steps) const {
  const size_t n = flat_.size();
  const FlatCfg g = flatCfg(flat_, labelAt);
  const std::vector<int> ipdom = immediatePostDominators(g);
  const int blocks = g.exit();
  std::vector<bool> stepIn(blocks + 1, false);
  for (size_t i : steps)
    stepIn[g.blockOf[i]] = true;
  // Where a step at block b's start would go, or n if its region already starts there.
  auto meetingPoint = [&](int b) -> size_t {
    if (auto *l = std::get_if<ptx::Label>(&flat_[g.start[b]]); l && loopHeads.count(l->name))
      return n;
    for (size_t i = g.start[b]; i < n; ++i)
      if (auto *in = std::get_if<ptx::Instruction>(&flat_[i]))
        return splitBefore.count(i) || passes::isWarpSync(*in) || passes::isYieldPoint(*in) ||
                       isBarrier(*in)
                   ? n
                   : i;
    return n;
  };
  std::vector<int> seen(blocks + 1, -1);
  int search = 0; // marks the blocks one branch's search has seen
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 0; b < blocks; ++b) {
      const auto &out = g.succs[b];
      const int join = ipdom[b];
      if (out.size() != 2 || out[0] == out[1] || join < 0 || join == g.exit())
        continue;
      const size_t at = meetingPoint(join);
      if (at == n || steps.count(at))
        continue;
      bool holdsStep = false;
      std::vector<int> work;
      ++search;
      for (int s : out)
        if (s != join && seen[s] != search) {
          seen[s] = search;
          work.push_back(s);
        }
      while (!work.empty() && !holdsStep) {
        const int x = work.back();
        work.pop_back();
        holdsStep = stepIn[x];
        if (x != g.exit())
          for (int s : g.succs[x])
            if (s != join && seen[s] != search) {
              seen[s] = search;
              work.push_back(s);
            }
      }
      if (holdsStep) {
        steps.insert(at);
        stepIn[g.blockOf[at]] = true;
        changed = true;
      }
    }
  }
}

// The step itself: `bar.warp.sync` of the lanes that reach it, which the warp scheduler runs
// as a region boundary.
ptx::Instruction KernelLowering::warpStep(const ptx::SourceLoc &loc) {
  return build::instruction(loc, "bar", {"warp", "sync", kLockstepMod}, {}, {build::imm(-1, loc)});
}

} // namespace cucpu::jit
