// The PTX abstract syntax tree: modules, declarations, functions and instructions with locations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cucpu::ptx {

struct SourceLoc {
  uint32_t line = 0; // 1-based; 0 = unknown
  uint32_t col = 0;  // 1-based
};

// State spaces of variables and memory instructions.
enum class Space : uint8_t { None, Reg, Sreg, Const, Global, Local, Param, Shared, Tex };

// Fundamental PTX types (the dot-suffixes .b32, .f32, .pred, ...).
enum class Type : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  F16x2,
  BF16,
  BF16x2,
  TF32,
  F32,
  F64,
};

// Size of a type in bytes (Pred counts as 1); 0 for None.
unsigned typeSize(Type t);
bool isFloat(Type t);    // f16, f16x2, bf16, bf16x2, tf32, f32, f64
bool isSigned(Type t);   // s8..s64
bool isUnsigned(Type t); // u8..u64
bool isBits(Type t);     // b8..b128
// Parses a type suffix without its dot ("f32" -> F32); nullopt when it is not a type.
std::optional<Type> parseType(std::string_view s);
std::string_view typeName(Type t); // "f32"

enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };

// Op and Mod: every opcode and modifier of the instruction table (ptx/isa/instructions.def),
// "and" as Op::and_, "shared::cta" as Mod::shared_cta, "2d" as Mod::_2d; Unknown for others.
#include "ptx_names.inc"

// An operand of an instruction.
struct Operand {
  enum class Kind : uint8_t {
    Reg,     // %r1, %tid (component 0..3 for .x/.y/.z/.w), or a pair %p|%q (name2 set)
    Imm,     // integer literal (decimal, hex 0x, octal 0, binary 0b; optional U suffix)
    FImm,    // float literal: 0fXXXXXXXX (f32 bits), 0dXXXXXXXXXXXXXXXX (f64 bits) or decimal
    Symbol,  // a variable, function or label name, with optional +offset (name+4)
    Address, // [base], [base+imm], [base+-imm], [imm]; base is Reg, Symbol, or absent (imm only)
    Vector,  // {a, b, c, d}: registers, immediates, or '_' (a Sink) for vector ld/st/mov/tex
    List,    // (a, b, ...): argument and return lists of call
    Sink,    // '_'
  };
  Kind kind = Kind::Reg;
  SourceLoc loc;
  std::string name;   // Reg: register name incl. '%' (for %tid.x: "%tid"); Symbol/Address base name
  std::string name2;  // Reg: second register of a %p|%q pair; Vector: p of {..}|p; else empty
  std::string select; // Reg: a video instruction's selector or mask without the dot ("b0", "h10",
                      // "b3210"), else empty
  int component = -1; // Reg: .x=0 .y=1 .z=2 .w=3, -1 none
  bool negate = false;        // Reg: a '!' before a predicate operand (e.g. in selp/and.pred)
  bool minus = false;         // Reg: a '-' before a register operand (negation in some forms)
  int64_t imm = 0;            // Imm value; Symbol/Address offset
  double fval = 0;            // FImm value as double
  uint64_t fbits = 0;         // FImm raw bits as written (0f: 32 bits, 0d: 64 bits)
  uint8_t fwidth = 0;         // FImm: 32 for 0f, 64 for 0d, 0 for decimal
  bool addrIsReg = false;     // Address: base is a register (name) rather than a symbol
  bool generic = false;       // Symbol in an initializer written as generic(name)
  uint64_t mask = 0;          // Symbol in an initializer written as 0xFF00(name): the byte
                              // mask to apply to the address (0 = none)
  std::vector<Operand> elems; // Vector/List elements
};

// @%p or @!%p in front of an instruction.
struct Guard {
  std::string reg;
  bool negate = false;
};

// One instruction: the opcode, then its dot-modifiers split into types and the rest, in order,
// as written and as the instruction table's enumerators (op, modIds).
// `ld.global.nc.v4.f32` -> opcode "ld", mods {"global","nc","v4"}, types {F32}.
// `cvt.rn.f32.s32` -> opcode "cvt", mods {"rn"}, types {F32, S32}.
// `setp.lt.and.s32` -> opcode "setp", mods {"lt","and"}, types {S32}.
struct Instruction {
  SourceLoc loc;
  std::string opcode;
  std::vector<std::string> mods;
  std::vector<Type> types;
  std::optional<Guard> guard;
  std::vector<Operand> operands;
  Op op = Op::Unknown;
  std::vector<Mod> modIds;    // parallel to mods
  uint8_t modsBeforeType = 0; // how many of `mods` were written before the first type suffix
  int16_t form = -1;          // the instruction table's form validation matched (cucpu/ptx/isa.h)

  bool hasMod(std::string_view m) const;
  bool has(Mod m) const;
};

// Sets an instruction's op and modIds from its opcode and mods.
void identify(Instruction &in);
// The state space an instruction's modifiers name (.shared::cta and .shared::cluster are .shared:
// a cluster is one block on cucpu); None for a generic access.
Space spaceOf(const Instruction &in);
// The state space of address operand i: spaceOf(in), but for copies between spaces (cp.async,
// cp.async.bulk: destination, source, then the mbarrier in shared memory) each its own.
Space operandSpace(const Instruction &in, size_t i);
// The count of a .v2/.v4/.v8 modifier; 1 without one.
unsigned vectorWidth(const Instruction &in);
// The name of an opcode or modifier as PTX writes it ("and", "shared::cta"); "" for Unknown.
std::string_view opName(Op op);
std::string_view modName(Mod mod);

// A variable declaration: registers (.reg), .shared, .local, .global, .const, .param.
struct VarDecl {
  SourceLoc loc;
  Space space = Space::None;
  Linkage linkage = Linkage::None;
  Type type = Type::None;
  unsigned vecWidth = 1;      // .v2 / .v4 declarations
  uint32_t align = 0;         // .align N (0 = natural)
  std::string name;           // for %r<6>, the prefix "%r"
  int32_t rangeCount = -1;    // %r<6> -> 6 (names %r0..%r5); -1 for a single name
  std::vector<uint64_t> dims; // array dimensions; a 0 entry means unsized ([])
  bool hasInit = false;
  std::vector<Operand> init;    // flattened initializer values (Imm, FImm, Symbol)
  bool ptrAttr = false;         // .param .ptr ... (kernel parameter attributes)
  uint32_t ptrAlign = 0;        // .ptr .align N
  Space ptrSpace = Space::None; // .ptr .global (the space the pointer points to), if written
  bool managed = false;         // .attribute(.managed)
};

struct Label {
  SourceLoc loc;
  std::string name;
};

// A directive inside a function body that is kept: .pragma, .loc, .file. Others are errors.
// `.loc 1 12 5` -> args {Imm 1, Imm 12, Imm 5} (further words such as function_name, inlined_at
// follow as Symbol/Imm operands); `.file 1 "a.cu"` -> args {Imm 1}, text "a.cu";
// `.pragma "nounroll";` -> text "nounroll". `tbl: .branchtargets L1, L2;` and `.calltargets`
// become name "branchtargets"/"calltargets", text "tbl", args {Symbol L1, Symbol L2}.
// At module scope (Module::directives): .file, .pragma and `.alias a, b;` (args {Symbol a, b}).
struct Directive {
  SourceLoc loc;
  std::string name; // "pragma", "loc", "file"
  std::vector<Operand> args;
  std::string text; // string argument (.pragma "nounroll"; .file name)
};

struct ScopeBegin {
  SourceLoc loc;
};
struct ScopeEnd {
  SourceLoc loc;
};

// A parameter or return value of a function.
struct Param {
  VarDecl decl; // space is Param (or Reg for .func register parameters)
};

// A .callprototype declaration: `proto: .callprototype (.param .b32 _) _ (.param .b64 _);`
struct CallPrototype {
  SourceLoc loc;
  std::string label;
  std::vector<Param> returns;
  std::vector<Param> params;
};

using Statement =
    std::variant<Instruction, Label, VarDecl, Directive, ScopeBegin, ScopeEnd, CallPrototype>;

struct Function {
  SourceLoc loc;
  bool isEntry = false; // .entry (kernel) vs .func
  Linkage linkage = Linkage::None;
  std::string name;
  std::vector<Param> returns; // .func only
  std::vector<Param> params;
  bool hasBody = false;        // false for prototypes/.extern declarations
  std::vector<Statement> body; // flat; { } nesting appears as ScopeBegin/ScopeEnd
  // Performance directives (0 = absent). Dimensions not written are 1: `.maxntid 256` -> {256,1,1}.
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t minnctapersm = 0;
  uint32_t maxnreg = 0;
  bool noreturn = false;
  uint32_t reqnctapercluster[3] = {0, 0, 0};
  uint32_t maxclusterrank = 0;
  bool explicitcluster = false;
  bool blocksareclusters = false;   // PTX 9.0
  std::vector<std::string> pragmas; // entry-scope .pragma strings (between signature and body)
};

struct Module {
  uint32_t versionMajor = 0, versionMinor = 0; // .version 9.0
  SourceLoc versionLoc, targetLoc;             // where the version number and target name are
  std::string target;                          // "sm_75" (first target)
  std::vector<std::string> targetOptions; // further .target entries ("texmode_independent", ...)
  uint32_t addressSize = 64;
  SourceLoc addressSizeLoc;              // where .address_size is (line 0: absent)
  std::vector<VarDecl> globals;          // module-scope variables, in order
  std::vector<Function> functions;       // in order of appearance (declarations too)
  std::vector<CallPrototype> prototypes; // module-scope ones (rare)
  std::vector<Directive> directives;     // module-scope .file, .pragma, .alias

  const Function *findFunction(std::string_view name) const; // prefers a definition
};

struct Diagnostic {
  SourceLoc loc;
  std::string message;
  std::string format() const; // "line:col: message"
};

struct ParseResult {
  Module module;
  std::vector<Diagnostic> errors;      // invalid PTX; empty on success
  std::vector<Diagnostic> unsupported; // valid forms cucpu does not lower, each named
  bool ok() const { return errors.empty(); }
};

// Parses PTX text and validates every instruction against the instruction table (modifiers,
// types, operands, ISA version and target). Never throws and never crashes on malformed input:
// errors come back as diagnostics with line:col and the offending text quoted.
ParseResult parse(std::string_view text);

// The syntax alone: parse() without the instruction table's checks (no instruction has a form).
ParseResult parseSyntax(std::string_view text);

} // namespace cucpu::ptx
