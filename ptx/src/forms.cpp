// Matching instructions to the instruction table's forms: opcode and modifier identifiers, the
// modifier slots (ordered heads, then any order) and type slots of each form.
#include "forms.h"

#include <algorithm>

namespace cucpu::ptx {
namespace {

std::optional<uint16_t> indexOf(std::span<const std::string_view> sorted, std::string_view s) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), s);
  if (it == sorted.end() || *it != s)
    return std::nullopt;
  return static_cast<uint16_t>(it - sorted.begin());
}

} // namespace

static bool inSlot(const table::ModSlot &slot, Mod mod) {
  const uint16_t *alts = table::kSlotAlternatives + slot.first;
  return std::find(alts, alts + slot.count, static_cast<uint16_t>(mod)) != alts + slot.count;
}

// Assigns every modifier of the instruction from the i-th on to a distinct slot of the form,
// each required slot filled: a small bipartite matching (forms have a handful of slots).
static bool matchSlots(const table::Form &f, const std::vector<Mod> &mods, size_t i,
                       std::vector<bool> &used) {
  const uint16_t nslots = f.slotEnd - f.slotBegin;
  if (i == mods.size()) {
    for (uint16_t s = 0; s < nslots; ++s)
      if (!used[s] && !table::kModSlots[f.slotBegin + s].optional)
        return false;
    return true;
  }
  for (uint16_t s = 0; s < nslots; ++s) {
    if (used[s])
      continue;
    if (!inSlot(table::kModSlots[f.slotBegin + s], mods[i]))
      continue;
    used[s] = true;
    if (matchSlots(f, mods, i + 1, used))
      return true;
    used[s] = false;
  }
  return false;
}

// The head slots take the first modifiers, in order, all written before the first type; the
// rest are matched in any order.
bool matchMods(const table::Form &f, const std::vector<Mod> &mods, unsigned modsBeforeType) {
  std::vector<bool> used(f.slotEnd - f.slotBegin);
  size_t head = 0;
  while (f.slotBegin + head < f.slotEnd && table::kModSlots[f.slotBegin + head].head) {
    if (head >= mods.size() || head >= modsBeforeType ||
        !inSlot(table::kModSlots[f.slotBegin + head], mods[head]))
      return false;
    used[head++] = true;
  }
  return matchSlots(f, mods, head, used);
}

bool matchTypes(const table::Form &f, const std::vector<Type> &types) {
  const size_t n = f.typeEnd - f.typeBegin;
  size_t required = n;
  if (n > 0 && (table::kTypeSlots[f.typeEnd - 1] & table::kOptionalTypeSlot))
    --required;
  if (types.size() < required || types.size() > n)
    return false;
  for (size_t i = 0; i < types.size(); ++i)
    if (!(table::kTypeSlots[f.typeBegin + i] & (1u << static_cast<unsigned>(types[i]))))
      return false;
  return true;
}

std::span<const table::Form> formsOf(Op op) {
  const auto *begin = std::lower_bound(
      std::begin(table::kForms), std::end(table::kForms), op,
      [](const table::Form &f, Op o) { return f.opcode < static_cast<uint16_t>(o); });
  const auto *end = begin;
  while (end != std::end(table::kForms) && end->opcode == static_cast<uint16_t>(op))
    ++end;
  return {begin, end};
}

void identify(Instruction &in) {
  auto op = indexOf(table::kOpcodes, in.opcode);
  in.op = op ? static_cast<Op>(*op) : Op::Unknown;
  in.modIds.clear();
  for (const auto &m : in.mods) {
    auto id = indexOf(table::kMods, m);
    in.modIds.push_back(id ? static_cast<Mod>(*id) : Mod::Unknown);
  }
}

Space spaceOf(const Instruction &in) {
  for (Mod m : in.modIds)
    switch (m) {
    case Mod::global:
      return Space::Global;
    case Mod::shared:
    case Mod::shared_cta:
    case Mod::shared_cluster:
      return Space::Shared;
    case Mod::local:
      return Space::Local;
    case Mod::const_:
      return Space::Const;
    case Mod::param:
    case Mod::param_entry:
    case Mod::param_func:
      return Space::Param;
    default:
      break;
    }
  return Space::None;
}

Space operandSpace(const Instruction &in, size_t i) {
  if (in.op != Op::cp)
    return spaceOf(in);
  if (i >= 2)
    return Space::Shared; // cp.async.bulk's mbarrier
  // The space suffixes in order: destination, then source.
  size_t seen = 0;
  for (Mod m : in.modIds) {
    const bool shared = m == Mod::shared || m == Mod::shared_cta || m == Mod::shared_cluster;
    if (!shared && m != Mod::global)
      continue;
    if (seen++ == i)
      return shared ? Space::Shared : Space::Global;
  }
  return spaceOf(in);
}

unsigned vectorWidth(const Instruction &in) {
  if (in.has(Mod::v2))
    return 2;
  if (in.has(Mod::v4))
    return 4;
  return in.has(Mod::v8) ? 8 : 1;
}

std::string_view opName(Op op) {
  const auto i = static_cast<size_t>(op);
  return i < std::size(table::kOpcodes) ? table::kOpcodes[i] : std::string_view();
}

std::string_view modName(Mod mod) {
  const auto i = static_cast<size_t>(mod);
  return i < std::size(table::kMods) ? table::kMods[i] : std::string_view();
}

bool Instruction::has(Mod m) const {
  return std::find(modIds.begin(), modIds.end(), m) != modIds.end();
}

bool assignForm(Instruction &in) {
  identify(in);
  in.form = -1;
  if (in.op == Op::Unknown || in.has(Mod::Unknown))
    return false;
  for (const auto &f : formsOf(in.op))
    if (matchTypes(f, in.types) && matchMods(f, in.modIds, in.modsBeforeType)) {
      in.form = static_cast<int16_t>(&f - std::begin(table::kForms));
      return true;
    }
  return false;
}

const FormInfo *formOf(const Instruction &in) {
  static const std::vector<FormInfo> infos = [] {
    std::vector<FormInfo> v;
    for (const auto &f : table::kForms) {
      const auto &fam = table::kFamilies[f.family];
      v.push_back({fam.name, f.text, fam.emitter, !f.todo});
    }
    return v;
  }();
  if (in.form < 0 || static_cast<size_t>(in.form) >= infos.size())
    return nullptr;
  return &infos[static_cast<size_t>(in.form)];
}

} // namespace cucpu::ptx
