// Floating-point building blocks shared by the float, compare and convert lowerings.
#pragma once

#include "cucpu/ptx/ast.h"

#include <llvm/IR/IRBuilder.h>

#include <utility>

namespace cucpu::jit::fp {

using Mod = ptx::Mod;
using Op = ptx::Op;

enum class Round { RN, RZ, RM, RP, RNA };
enum class Format { F16, BF16, F32, F64 };

// The rounding modifier of an instruction (.rn .rz .rm .rp .rna and the integer-rounding
// .rni .rzi .rmi .rpi map to the same modes); `dflt` when there is none.
Round roundOf(const ptx::Instruction &in, Round dflt = Round::RN);
bool hasRound(const ptx::Instruction &in);
bool isHalfFormat(Format f);
// The format of a float type and its lane count (2 for f16x2/bf16x2); false for other types.
bool formatOf(ptx::Type t, Format *f, unsigned *lanes);
unsigned formatBits(Format f);

// Emits exact IEEE arithmetic for one scalar value at a time. Values of f16/bf16 are i16 bits,
// f32/f64 are LLVM float/double.
struct Emitter {
  llvm::IRBuilder<> &b;

  llvm::Type *dbl() { return b.getDoubleTy(); }
  // Exact conversion of a value of format f to double, and back by plain truncation.
  llvm::Value *toDouble(llvm::Value *v, Format f);
  llvm::Value *toFloat(llvm::Value *v, Format f);     // f16/bf16/f32 -> float (exact)
  llvm::Value *fromFloatRN(llvm::Value *x, Format f); // float -> f16/bf16 bits, RN
  // Subnormal -> zero of the same sign (`f` selects the threshold).
  llvm::Value *ftz(llvm::Value *x, Format f);
  // Clamp to [0, 1] with NaN -> +0.
  llvm::Value *sat(llvm::Value *x, Format f);
  // Next representable value toward +inf (up) or -inf, for a float/double value.
  llvm::Value *step(llvm::Value *x, bool up);
  // r is a round-to-nearest result; `resid` has the sign of (exact - r) (0: exact, NaN: no
  // adjustment). Returns r rounded in mode m instead.
  llvm::Value *adjust(llvm::Value *r, llvm::Value *resid, Round m);
  // The exact value hi + lo (double-double) rounded to f32/f16/bf16 in mode m (f16/bf16 as i16).
  llvm::Value *roundNarrow(llvm::Value *hi, llvm::Value *lo, Format to, Round m);
  // s = a + b and the exact error of that addition (doubles).
  std::pair<llvm::Value *, llvm::Value *> twoSum(llvm::Value *a, llvm::Value *c);
  llvm::Value *fma(llvm::Value *a, llvm::Value *c, llvm::Value *d);
  llvm::Value *isFinite(llvm::Value *x);
  llvm::Value *signBit(llvm::Value *x);                    // i1
  llvm::Value *withSign(llvm::Value *x, llvm::Value *neg); // |x| with sign bit `neg` (i1)
  // Binary operation ("add", "sub", "mul", "div") or fma / sqrt in format f with rounding m;
  // exact for every mode. args are values of format f.
  llvm::Value *arith(Op op, Format f, Round m, std::vector<llvm::Value *> args);
};

} // namespace cucpu::jit::fp
