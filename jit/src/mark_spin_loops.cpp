// PTX pass: a loop that polls memory (whether it goes round again depends on a value it loads
// with ld.volatile/.relaxed/.acquire/.mmio/.cv or gets from an atomic) waits at a yield point on
// its way round, so the threads and blocks it waits for run meanwhile; nanosleep elsewhere goes.
#include "ptx_build.h"
#include "ptx_passes.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cucpu::jit::passes {

using Op = ptx::Op;
using Mod = ptx::Mod;

namespace {

// A load or atomic whose value another thread may change while this one re-reads it.
bool polls(const ptx::Instruction &in) {
  if (in.op == Op::atom)
    return true;
  return in.op == Op::ld && (in.has(Mod::volatile_) || in.has(Mod::relaxed) ||
                             in.has(Mod::acquire) || in.has(Mod::mmio) || in.has(Mod::cv));
}

void registersOf(const ptx::Operand &op, std::vector<std::string> &out) {
  switch (op.kind) {
  case ptx::Operand::Kind::Reg:
    out.push_back(op.name);
    if (!op.name2.empty())
      out.push_back(op.name2);
    break;
  case ptx::Operand::Kind::Address:
    if (op.addrIsReg)
      out.push_back(op.name);
    break;
  case ptx::Operand::Kind::Vector:
  case ptx::Operand::Kind::List:
    for (const auto &e : op.elems)
      registersOf(e, out);
    break;
  default:
    break;
  }
}

// Whether the loop from the label at `head` to the backward branch at `latch` polls: a register
// that decides whether it goes round again (the guard of its backward branch or of a branch,
// ret or exit leaving it) depends, through the loop's instructions, on a polling load's value.
bool isSpinLoop(const ptx::Function &f, size_t head, size_t latch,
                const std::map<std::string, size_t> &labels) {
  std::set<std::string> decides;
  for (size_t i = head; i <= latch; ++i) {
    const auto *in = std::get_if<ptx::Instruction>(&f.body[i]);
    if (!in || !in->guard)
      continue;
    bool leaves = in->op == Op::ret || in->op == Op::exit || i == latch;
    if (in->op == Op::bra && !in->operands.empty())
      if (auto it = labels.find(in->operands[0].name);
          it != labels.end() && (it->second < head || it->second > latch))
        leaves = true;
    if (leaves)
      decides.insert(in->guard->reg);
  }
  for (bool grew = !decides.empty(); grew;) {
    grew = false;
    for (size_t i = head; i <= latch; ++i) {
      const auto *in = std::get_if<ptx::Instruction>(&f.body[i]);
      if (!in || writesNoRegister(in->op) || in->operands.empty())
        continue;
      std::vector<std::string> defs, uses;
      registersOf(in->operands[0], defs);
      bool feeds = false;
      for (const auto &d : defs)
        feeds = feeds || decides.count(d);
      if (!feeds)
        continue;
      if (polls(*in))
        return true;
      for (size_t k = 1; k < in->operands.size(); ++k)
        registersOf(in->operands[k], uses);
      if (in->guard)
        uses.push_back(in->guard->reg);
      for (const auto &u : uses)
        grew = decides.insert(u).second || grew;
    }
  }
  return false;
}

} // namespace

void markSpinLoops(ptx::Function &f) {
  std::map<std::string, size_t> labels;
  for (size_t i = 0; i < f.body.size(); ++i)
    if (const auto *l = std::get_if<ptx::Label>(&f.body[i]))
      labels.emplace(l->name, i);
  auto backwardTarget = [&](size_t i) -> std::optional<size_t> {
    const auto *in = std::get_if<ptx::Instruction>(&f.body[i]);
    if (!in || in->op != Op::bra || in->operands.empty())
      return std::nullopt;
    auto it = labels.find(in->operands[0].name);
    if (it == labels.end() || it->second > i)
      return std::nullopt;
    return it->second;
  };
  auto isSleep = [&](size_t i) {
    const auto *in = std::get_if<ptx::Instruction>(&f.body[i]);
    return in && in->op == Op::nanosleep;
  };
  std::set<size_t> heads;                        // labels that start a spin loop
  std::vector<int> inLoop(f.body.size() + 1, 0); // +1 where a loop starts, -1 after it ends
  for (size_t i = 0; i < f.body.size(); ++i) {
    const auto head = backwardTarget(i);
    if (!head)
      continue;
    ++inLoop[*head];
    --inLoop[i + 1];
    if (heads.count(*head))
      continue;
    bool waits = false; // mbarrier waits are yield points of their own
    for (size_t k = *head; k < i && !waits; ++k)
      if (const auto *inner = std::get_if<ptx::Instruction>(&f.body[k]))
        waits = isYieldPoint(*inner) && inner->op != Op::nanosleep;
    if (!waits && isSpinLoop(f, *head, i, labels))
      heads.insert(*head);
  }
  // nanosleep delays the thread: where no loop waits it is a no-op here, and in a spin loop the
  // yield on its way round replaces it.
  std::vector<bool> drop(f.body.size(), false);
  int depth = 0;
  for (size_t i = 0; i < f.body.size(); ++i) {
    depth += inLoop[i];
    drop[i] = isSleep(i) && depth == 0;
  }
  for (size_t i = 0; i < f.body.size(); ++i)
    if (const auto head = backwardTarget(i); head && heads.count(*head))
      for (size_t k = *head; k < i; ++k)
        drop[k] = drop[k] || isSleep(k);

  std::vector<ptx::Statement> out;
  out.reserve(f.body.size() + 4 * heads.size());
  int skips = 0;
  for (size_t i = 0; i < f.body.size(); ++i) {
    if (drop[i])
      continue;
    const auto head = backwardTarget(i);
    if (!head || !heads.count(*head)) {
      out.push_back(std::move(f.body[i]));
      continue;
    }
    // The way round a spin loop waits at a yield point: `@p bra L` becomes
    // `@!p bra $spin.skip<n>; nanosleep.u32 0; bra L; $spin.skip<n>:`.
    auto &latch = std::get<ptx::Instruction>(f.body[i]);
    const ptx::SourceLoc loc = latch.loc;
    std::optional<ptx::Guard> guard = std::move(latch.guard);
    latch.guard.reset();
    const std::string skip = "$spin.skip" + std::to_string(skips++);
    if (guard)
      out.push_back(build::branch(loc, skip, ptx::Guard{guard->reg, !guard->negate}));
    out.push_back(build::instruction(loc, "nanosleep", {}, {ptx::Type::U32}, {build::imm(0, loc)}));
    out.push_back(std::move(f.body[i]));
    if (guard)
      out.push_back(ptx::Label{loc, skip});
  }
  f.body = std::move(out);
}

} // namespace cucpu::jit::passes
