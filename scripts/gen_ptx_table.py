#!/usr/bin/env python3
"""Generates the PTX instruction table from ptx/isa/instructions.def: the C++ tables the parser
validates with and the lowering dispatches with (ptx_table.inc), and docs/ptx-coverage.md.
Usage: gen_ptx_table.py DEF OUT_INC OUT_MD [OUT_INSTANCES [ptx_isa.tsv to check against]]
(ptx_names.inc, the opcode and modifier enumerations, is written next to OUT_INC)"""
import csv
import itertools
import pathlib
import re
import sys

# The parser's type names (ptx/src/types.cpp), in the order of ptx::Type after None.
TYPES = ("pred b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 bf16 bf16x2 tf32 "
         "f32 f64").split()
EMITTERS = ("int", "float", "convert", "compare", "warp", "matrix", "video", "async", "image",
            "memory", "control", "runtime",
            "none")
# Operand kinds, as the C++ enum OperandKind spells them.
KINDS = {"d": "Dest", "r": "RegSrc", "i": "Imm", "s": "SregSrc", "p": "PredSrc", "q": "PredDest",
         "[m]": "Address", "[*]": "AnyAddress", "L": "Label", "F": "Symbol", "Fn": "Function",
         "P": "Prototype",
         "V": "Data", "{d}": "VecDest", "{a}": "VecSrc", "(d)": "List", "(a)": "List",
         "*": "Any"}


class DefError(Exception):
    pass


def split_top(text, sep=","):
    out, depth, cur = [], 0, ""
    for c in text:
        depth += c in "{[(" and 1 or c in "}])" and -1 or 0
        if c == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_suffixes(text, sets):
    """'add{.sat}.$ity' -> opcode 'add', [(choices, optional)]; choices may hold dotted runs."""
    m = re.match(r"([a-z_0-9]+)(.*)$", text)
    if not m:
        raise DefError(f"bad form '{text}'")
    opcode, rest, slots = m.group(1), m.group(2), []
    head = "^" in rest
    while rest:
        if rest.startswith("^"):
            if any(o for _, o, _ in slots):
                raise DefError(f"optional slot in the ordered head of '{text}'")
            head, rest = False, rest[1:]
            slots = [(c, o, True) for c, o, *_ in slots]
            continue
        optional = rest.startswith("{")
        if optional:
            end = rest.index("}") if not rest.startswith("{.{") else rest.index("}}") + 1
            body, rest = rest[1:end], rest[end + 1:]
            choices = [c.strip().lstrip(".") for c in split_top(body)]
            if len(choices) == 1 and choices[0].startswith("{"):
                choices = [c.strip() for c in choices[0][1:-1].split(",")]
        else:
            if not rest.startswith("."):
                raise DefError(f"bad suffix at '{rest}' in '{text}'")
            rest = rest[1:]
            if rest.startswith("{"):
                end = rest.index("}")
                choices, rest = [c.strip() for c in rest[1:end].split(",")], rest[end + 1:]
            else:
                mm = re.match(r"(\$?[A-Za-z_0-9:]+)", rest)
                choices, rest = [mm.group(1)], rest[mm.end():]
        expanded = []
        for c in choices:
            if not re.fullmatch(r"\$?[A-Za-z0-9_]+(::[A-Za-z0-9_]+)*(\.[A-Za-z0-9_:]+)*", c):
                raise DefError(f"bad modifier '{c}' in '{text}'")
            if c.startswith("$"):
                if c[1:] not in sets:
                    raise DefError(f"unknown set '{c}' in '{text}'")
                expanded += sets[c[1:]]
            else:
                expanded.append(c)
        slots.append((expanded, optional, False))
    if head:
        raise DefError(f"unterminated head in '{text}'")
    return opcode, slots


def expand_dotted(slots):
    """Choices written with dots ("async.global", "xorsign.abs") stand for several modifiers:
    one form per such choice, the run's parts as required single slots."""
    for i, (choices, optional, head) in enumerate(slots):
        if any("." in c for c in choices):
            forms = []
            plain = [c for c in choices if "." not in c]
            if plain:
                forms += expand_dotted(slots[:i] + [(plain, optional, head)] + slots[i + 1:])
            for c in choices:
                if "." in c:
                    parts = [([p], False, head) for p in c.split(".")]
                    forms += expand_dotted(slots[:i] + parts + slots[i + 1:])
            if optional:
                forms += expand_dotted(slots[:i] + slots[i + 1:])
            return forms
    return [slots]


def parse_operand(text, n_types):
    spec = {"kind": None, "type": "T", "optional": False, "relaxed": False, "pair": 0,
            "limit": 0}
    t = text
    if t.endswith("?"):
        spec["optional"], t = True, t[:-1]
    if t.endswith("|q") or t.endswith("|Q"):  # 1: a predicate pair may follow, 2: must
        spec["pair"], t = 1 if t.endswith("|q") else 2, t[:-2]
    if t.endswith("+"):
        spec["relaxed"], t = True, t[:-1]
    if "<" in t:
        t, limit = t.split("<")
        spec["limit"] = int(limit)
    name, _, ty = t.partition(":")
    if name.endswith("+"):
        spec["relaxed"], name = True, name[:-1]
    if name in KINDS:
        spec["kind"] = KINDS[name]
    elif re.fullmatch(r"[abcefgh]", name):
        spec["kind"] = "Src"
    else:
        raise DefError(f"bad operand '{text}'")
    if ty:
        spec["type"] = ty
    base = spec["type"].split("*")[0].split("/")[0]
    if base in "TUW" and "TUW".index(base) >= max(n_types, 1) and spec["kind"] not in (
            "Any", "Label", "PredSrc", "PredDest", "Prototype"):
        raise DefError(f"operand '{text}' names a type slot the form lacks")
    if base not in "TUW" and base not in TYPES:
        raise DefError(f"operand '{text}': unknown type '{base}'")
    return spec


def parse_def(path):
    sets, families, fam = {}, [], None
    for lineno, raw in enumerate(pathlib.Path(path).read_text().split("\n"), 1):
        line = raw.split("#")[0].rstrip() if not raw.startswith("family") else raw.rstrip()
        if not line.strip():
            continue
        try:
            if line.startswith("set "):
                name, _, members = line[4:].partition("=")
                sets[name.strip()] = members.split()
            elif line.startswith("family "):
                name, tier, category, lowering, note = (x.strip() for x in line[7:].split("|", 4))
                if lowering not in EMITTERS + ("implemented", "todo", "untracked"):
                    raise DefError(f"unknown lowering '{lowering}'")
                fam = {"name": name, "tier": tier, "category": category, "lowering": lowering,
                       "note": note, "forms": []}
                families.append(fam)
            else:
                if fam is None:
                    raise DefError("form before any family")
                fam["forms"] += parse_form(line.strip(), sets, fam)
        except (DefError, ValueError) as e:
            sys.exit(f"{path}:{lineno}: {e}")
    return families


def parse_form(line, sets, fam):
    m = re.match(r"(\S+)\s+(.*?)\s*((?:@\d+\.\d+)?\s*(?:sm_\d+)?\s*(?:todo)?)$", line)
    if not m:
        raise DefError(f"bad form line '{line}'")
    pattern, operands, attrs = m.group(1), m.group(2), m.group(3)
    if not operands:
        raise DefError(f"form '{pattern}' has no operand list (write '-' for none)")
    isa = re.search(r"@(\d+)\.(\d+)", attrs)
    sm = re.search(r"sm_(\d+)", attrs)
    todo = "todo" in attrs or fam["lowering"] == "none"
    opcode, slots = parse_suffixes(pattern, sets)
    # the form as users read it: named sets spelled out
    shown = re.sub(r"\{\.\$(\w+)\}", lambda m: "{" + ",".join("." + x for x in sets[m.group(1)]) +
                   "}", pattern)
    shown = re.sub(r"\$(\w+)", lambda m: "{" + ",".join(sets[m.group(1)]) + "}", shown)
    shown = shown.replace("^", "")
    out = []
    for variant in expand_dotted(slots):
        types, mods = [], []
        for choices, optional, head in variant:
            if all(c in TYPES for c in choices):
                if head:
                    raise DefError(f"type in the ordered head of '{pattern}'")
                if types and types[-1][1]:
                    raise DefError(f"type slot after an optional one in '{pattern}'")
                types.append((choices, optional))
            elif any(c in TYPES for c in choices):
                raise DefError(f"slot mixes types and modifiers in '{pattern}'")
            else:
                mods.append((choices, optional, head))
        ops = [] if operands == "-" else [parse_operand(o, len(types))
                                          for o in split_top(operands)]
        out.append({"opcode": opcode, "mods": mods, "types": types, "operands": ops,
                    "isa": (int(isa.group(1)), int(isa.group(2))) if isa else (1, 0),
                    "sm": int(sm.group(1)) if sm else 0, "todo": todo, "text": shown,
                    "family": fam["name"]})
    return out


def type_mask(names):
    return sum(1 << (TYPES.index(n) + 1) for n in names)


def type_ref(t):
    """(slot or -1, fixed type index, width scale num, den)"""
    base, scale = t, (1, 1)
    if "*" in t:
        base, scale = t.split("*")[0], (int(t.split("*")[1]), 1)
    elif "/" in t:
        base, scale = t.split("/")[0], (1, int(t.split("/")[1]))
    if base in "TUW":
        return "TUW".index(base), 0, scale
    return -1, TYPES.index(base) + 1, scale


def cxx_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


CXX_KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char
char8_t char16_t char32_t class compl concept const consteval constexpr constinit const_cast
continue co_await co_return co_yield decltype default delete do double dynamic_cast else enum
explicit export extern false float for friend goto if inline int long mutable namespace new
noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast struct
switch template this thread_local throw true try typedef typeid typename union unsigned using
virtual void volatile wchar_t while xor xor_eq""".split())


def identifier(name):
    """The C++ enumerator of an opcode or modifier: "shared::cta" -> shared_cta, "and" -> and_,
    "2d" -> _2d."""
    ident = name.replace("::", "_").replace(".", "_")
    if ident[0].isdigit():
        ident = "_" + ident
    return ident + "_" if ident in CXX_KEYWORDS else ident


def write_names(families, out):
    forms = [f for fam in families for f in fam["forms"]]
    opcodes = sorted({f["opcode"] for f in forms})
    mods = sorted({c for f in forms for choices, *_ in f["mods"] for c in choices})
    lines = ["// Generated by scripts/gen_ptx_table.py from ptx/isa/instructions.def. Do not edit.",
             "// The PTX opcodes and modifiers the instruction table knows, as enumerators in the",
             "// order of its sorted name tables; included by cucpu/ptx/ast.h.", "",
             "enum class Op : uint16_t {"]
    lines += [f"  {identifier(o)}," for o in opcodes] + ["  Unknown,", "};", ""]
    lines += ["enum class Mod : uint16_t {"]
    lines += [f"  {identifier(m)}," for m in mods] + ["  Unknown,", "};", ""]
    pathlib.Path(out).write_text("\n".join(lines))


def write_inc(families, out):
    forms = [f for fam in families for f in fam["forms"]]
    opcodes = sorted({f["opcode"] for f in forms})
    mods = sorted({c for f in forms for choices, *_ in f["mods"] for c in choices})
    fam_names = [fam["name"] for fam in families]
    lines = ["// Generated by scripts/gen_ptx_table.py from ptx/isa/instructions.def. Do not edit.",
             "// Included by ptx/src/table.h inside namespace cucpu::ptx::table.", ""]
    lines.append("inline constexpr std::string_view kOpcodes[] = {" +
                 ", ".join(cxx_string(o) for o in opcodes) + "};")
    lines.append("inline constexpr std::string_view kMods[] = {" +
                 ", ".join(cxx_string(m) for m in mods) + "};")
    lines.append("inline constexpr FamilyInfo kFamilies[] = {")
    for fam in families:
        lines.append(f"    {{{cxx_string(fam['name'])}, Emitter::{fam['lowering'].capitalize()}}},"
                     if fam["lowering"] in EMITTERS else
                     f"    {{{cxx_string(fam['name'])}, Emitter::None}},")
    lines.append("};")
    slot_alts, slots, type_slots, operands, rows = [], [], [], [], []
    for f in forms:
        s0 = len(slots)
        for choices, optional, head in f["mods"]:
            a0 = len(slot_alts)
            slot_alts += [mods.index(c) for c in choices]
            slots.append(f"{{{a0}, {len(choices)}, {str(optional).lower()}, "
                         f"{str(head).lower()}}}")
        t0 = len(type_slots)
        # bit 31: the slot is optional (only the last one may be)
        type_slots += [f"0x{type_mask(t) | (optional << 31):x}u" for t, optional in f["types"]]
        o0 = len(operands)
        for o in f["operands"]:
            slot, fixed, (num, den) = type_ref(o["type"])
            operands.append(f"{{OperandKind::{o['kind']}, {slot}, {fixed}, {num}, {den}, "
                            f"{str(o['optional']).lower()}, {str(o['relaxed']).lower()}, "
                            f"{o['pair']}, {o['limit']}}}")
        rows.append(f"    {{{opcodes.index(f['opcode'])}, {fam_names.index(f['family'])}, {s0}, "
                    f"{len(slots)}, {t0}, {len(type_slots)}, {o0}, {len(operands)}, "
                    f"{f['isa'][0]}, {f['isa'][1]}, {f['sm']}, {str(f['todo']).lower()}, "
                    f"{cxx_string(f['text'])}}},")
    lines.append("inline constexpr uint16_t kSlotAlternatives[] = {" +
                 ", ".join(map(str, slot_alts)) + "};")
    lines.append("inline constexpr ModSlot kModSlots[] = {" + ", ".join(slots) + "};")
    lines.append("inline constexpr uint32_t kTypeSlots[] = {" + ", ".join(type_slots) + "};")
    lines.append("inline constexpr OperandSpec kOperands[] = {" + ", ".join(operands) + "};")
    lines.append("// Sorted by opcode (forms of one opcode are consecutive, in the table's order).")
    order = sorted(range(len(rows)), key=lambda i: (opcodes.index(forms[i]["opcode"]), i))
    lines.append("inline constexpr Form kForms[] = {")
    lines += [rows[i] for i in order]
    lines += ["};", ""]
    pathlib.Path(out).write_text("\n".join(lines))


def operand_type(spec, types):
    slot, fixed, (num, den) = type_ref(spec["type"])
    t = types[slot] if slot >= 0 and slot < len(types) else TYPES[fixed - 1] if fixed else "b32"
    if (num, den) != (1, 1):
        bits = {"8": 8, "16": 16, "32": 32, "64": 64}.get(re.sub(r"\D", "", t), 32) * num // den
        t = t[0] + str(bits) if t[0] in "usb" else "b" + str(bits)
    return t


def instance(form, pick):
    """A concrete instruction of the form: pick[i] is the choice taken in suffix slot i (mods,
    then types; None leaves an optional slot out), registers named %<type>_<n> (the test
    declares them); None when its operands cannot be made up without context (calls,
    textures)."""
    nmods = len(form["mods"])
    mods = [c for c in pick[:nmods] if c is not None]
    types = [c for c in pick[nmods:] if c is not None]
    vec = next((int(m[1:]) for m in mods if m in ("v2", "v4", "v8")), 1)
    ops, n = [], [0]

    def reg(t):
        n[0] += 1
        return f"%{t}_{n[0] % 4}"
    for i, o in enumerate(form["operands"]):
        if o["optional"]:
            break
        k, t = o["kind"], operand_type(o, types)
        if k in ("Any", "AnyAddress", "List", "Function", "VecDest", "VecSrc", "Prototype"):
            return None
        if k in ("Dest", "Src", "RegSrc", "SregSrc"):
            ops.append(reg(t) + ("|" + reg("pred") if o["pair"] == 2 else ""))
        elif k == "Data":
            ops.append("{" + ", ".join(reg(t) for _ in range(vec)) + "}" if vec > 1 else reg(t))
        elif k == "Imm":
            ops.append("0")
        elif k in ("PredSrc", "PredDest"):
            ops.append(reg("pred"))
        elif k == "Address":
            ops.append("[%b64_0]")
        elif k == "Label":
            ops.append("$Lend")
        elif k == "Symbol":
            ops.append("gsym")
    return form["opcode"] + "".join("." + m for m in mods + types) + \
        (" " + ", ".join(ops) if ops else "") + ";"


def write_instances(families, out):
    lines = ["# Generated by scripts/gen_ptx_table.py: one instance of every instruction form",
             "# lowered(1/0)\tform\tinstruction"]
    for fam in families:
        for f in fam["forms"]:
            # every choice of every slot once, the other slots at their first choice (optional
            # ones left out)
            slots = [(c, o) for c, o, _ in f["mods"]] + list(f["types"])
            base = [None if o else c[0] for c, o in slots]
            picks = [base] + [base[:i] + [c] + base[i + 1:] for i, (cs, _) in enumerate(slots)
                              for c in cs]
            seen = set()
            for pick in picks:
                text = instance(f, pick)
                if text and text not in seen:
                    seen.add(text)
                    lines.append(f"{0 if f['todo'] else 1}\t{f['text']}\t{text}")
    pathlib.Path(out).write_text("\n".join(lines) + "\n")


def family_status(fam):
    if not fam["forms"]:
        return {"implemented": "implemented", "untracked": "not tracked"}.get(fam["lowering"],
                                                                              "not implemented")
    done = sum(not f["todo"] for f in fam["forms"])
    if done == len(fam["forms"]):
        return "implemented"
    return "partly implemented" if done else "not implemented"


def check_families(families, isa_tsv):
    """The table's families, tiers and categories are ptx_isa.tsv's."""
    isa = {r["family"]: r for r in csv.DictReader(open(isa_tsv, newline=""), delimiter="\t")}
    ours = {fam["name"]: fam for fam in families}
    problems = [f"missing family {n}" for n in isa if n not in ours]
    problems += [f"family {n} is not in ptx_isa.tsv" for n in ours if n not in isa]
    problems += [f"family {n}: tier/category differ" for n, fam in ours.items()
                 if n in isa and (isa[n]["tier"], isa[n]["category"]) !=
                 (fam["tier"], fam["category"])]
    if problems:
        sys.exit("instructions.def disagrees with " + isa_tsv + ": " + "; ".join(problems))


def write_md(families, out):
    root = pathlib.Path(__file__).resolve().parent.parent
    cases = {}
    for cu in sorted((root / "tests/conformance/cases").glob("*.cu")):
        cases[cu.stem] = sum("//@" in line for line in cu.read_text().splitlines())
    n_forms = sum(len(fam["forms"]) for fam in families)
    n_todo = sum(f["todo"] for fam in families for f in fam["forms"])
    out_lines = [
        "# PTX coverage", "",
        "Generated by `scripts/gen_ptx_table.py` from the instruction table "
        "`ptx/isa/instructions.def`, which the parser validates with and the lowering dispatches "
        "with; its families, tiers and categories are those of `../shared/data/ptx_isa.tsv`. A family is implemented when "
        "cucpu lowers every form the table gives it; a valid form it does not lower loads as "
        "`CUDA_ERROR_NOT_SUPPORTED` naming the form, an invalid one as `CUDA_ERROR_INVALID_PTX` "
        "with the forms that would be valid. Special registers, directives and runtime services have "
        "no forms: their status is kept in the table by hand, \"not tracked\" where nothing is "
        "claimed either way.", "",
        f"The table holds {n_forms} forms (after expanding dotted choices); cucpu lowers "
        f"{n_forms - n_todo} of them.", "",
        "Conformance cases (`tests/conformance`, outputs recorded on NVIDIA H200 and H100 GPUs, "
        "see expected/GPU.txt): " + ", ".join(f"{k} {v}" for k, v in cases.items()) +
        f"; {sum(cases.values())} in all. Cases cucpu does not pass yet are listed with reasons "
        "in `tests/conformance/known_failures.txt`.", ""]
    for tier in ("P0", "P1", "P2", "P3"):
        rows = [fam for fam in families if fam["tier"] == tier]
        counts = {}
        for fam in rows:
            s = family_status(fam)
            counts[s] = counts.get(s, 0) + 1
        out_lines += [f"## {tier} ({len(rows)} families: " +
                      ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + ")", "",
                      "| family | category | status | forms not lowered | notes |",
                      "|---|---|---|---|---|"]
        for fam in rows:
            todo = sorted({f["text"] for f in fam["forms"] if f["todo"]})
            out_lines.append(f"| `{fam['name']}` | {fam['category']} | {family_status(fam)} | "
                             f"{', '.join('`' + t + '`' for t in todo)} | {fam['note']} |")
        out_lines.append("")
    pathlib.Path(out).write_text("\n".join(out_lines))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    families = parse_def(sys.argv[1])
    write_inc(families, sys.argv[2])
    write_md(families, sys.argv[3])
    write_names(families, str(pathlib.Path(sys.argv[2]).with_name("ptx_names.inc")))
    if len(sys.argv) > 4:
        write_instances(families, sys.argv[4])
    if len(sys.argv) > 5:
        check_families(families, sys.argv[5])


if __name__ == "__main__":
    main()
