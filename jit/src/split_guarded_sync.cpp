// PTX pass: guarded calls and synchronisation points become branches around unguarded ones;
// the classifications of instructions the passes and the lowering share.
#include "ptx_build.h"
#include "ptx_passes.h"

#include <string>
#include <vector>

namespace cucpu::jit::passes {

using Op = ptx::Op;

bool isWarpSync(const ptx::Instruction &in) {
  const Op op = in.op;
  if (op == Op::bar || op == Op::barrier)
    return in.has(ptx::Mod::warp);
  return op == Op::shfl || op == Op::vote || op == Op::match || op == Op::redux ||
         op == Op::activemask || op == Op::elect || isMatrixSync(in);
}

bool isYieldPoint(const ptx::Instruction &in) {
  return in.op == Op::nanosleep ||
         (in.op == Op::mbarrier && (in.has(ptx::Mod::test_wait) || in.has(ptx::Mod::try_wait)));
}

bool writesNoRegister(Op op) {
  static constexpr Op kOps[] = {Op::st,         Op::red,       Op::bar,       Op::barrier,
                                Op::bra,        Op::ret,       Op::exit,      Op::membar,
                                Op::fence,      Op::prefetch,  Op::prefetchu, Op::trap,
                                Op::brkpt,      Op::nanosleep, Op::call,      Op::pmevent,
                                Op::discard,    Op::stmatrix,  Op::cp,        Op::griddepcontrol,
                                Op::setmaxnreg, Op::sust,      Op::sured};
  for (Op k : kOps)
    if (op == k)
      return true;
  return false;
}

bool isMatrixSync(const ptx::Instruction &in) {
  const Op op = in.op;
  return op == Op::mma || (op == Op::wmma && in.has(ptx::Mod::mma)) || op == Op::ldmatrix ||
         op == Op::stmatrix || op == Op::movmatrix;
}

void splitGuardedSync(ptx::Function &f) {
  std::vector<ptx::Statement> out;
  out.reserve(f.body.size());
  int skips = 0;
  for (auto &st : f.body) {
    auto *in = std::get_if<ptx::Instruction>(&st);
    const bool split = in && in->guard &&
                       (in->op == Op::call || in->op == Op::bar || in->op == Op::barrier ||
                        isWarpSync(*in) || isYieldPoint(*in));
    if (!split) {
      out.push_back(std::move(st));
      continue;
    }
    const std::string skip = "$guard.skip" + std::to_string(skips++);
    out.push_back(build::branch(in->loc, skip, ptx::Guard{in->guard->reg, !in->guard->negate}));
    in->guard.reset();
    const ptx::SourceLoc loc = in->loc;
    out.push_back(std::move(st));
    out.push_back(ptx::Label{loc, skip});
  }
  f.body = std::move(out);
}

} // namespace cucpu::jit::passes
