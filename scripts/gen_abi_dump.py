#!/usr/bin/env python3
"""Generate ABI dump programs for every declaration in include/cuda.h.

Usage: gen_abi_dump.py HEADER OUT_C OUT_CXX

The C program prints sizeof/alignof of every typedef, offsetof/sizeof of every struct member
(nested members included), the value of every enumerator, the value/size of every constant macro,
and the expansion of every function-name macro.  The C++ program prints the mangled type
(typeid) of every typedef, struct member, function and constant macro, which pins down full
signatures, struct/enum tags and versioned symbol names.  Both programs are built once against our
header and once against the toolkit's; apart from their first line (which names the header that was
compiled in) their outputs must be identical.

Declarations under preprocessor conditions are dumped under the same conditions, so the programs
can be built in every mode (default, CUDA_API_PER_THREAD_DEFAULT_STREAM, __CUDA_API_VERSION_INTERNAL).
"""
import re
import sys

TOKEN_RE = re.compile(
    r'\s*(?:(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)|([A-Za-z_]\w*)|("(?:[^"\\]|\\.)*")|'
    r'(<<|>>|->|##|&&|\|\||[^\s]))')

# Macros that belong to our header only (helpers) and are therefore not compared.
OWN_MACRO_PREFIX = 'CUCPU_'


def strip_comments(src):
    src = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), src, flags=re.S)
    return re.sub(r'//[^\n]*', '', src)


def tokenize(s):
    toks, pos, s = [], 0, s.rstrip()
    while pos < len(s):
        m = TOKEN_RE.match(s, pos)
        if not m:
            raise ValueError('cannot tokenize: ' + s[pos:pos + 40])
        toks.append(m.group(m.lastindex))
        pos = m.end()
    return toks


class Conds:
    """Tracks #if nesting as a list of C preprocessor expressions."""

    def __init__(self):
        self.stack = []  # each entry: [current_expr, [earlier branch exprs]]

    def directive(self, d):
        m = re.match(r'#\s*(\w+)\s*(.*)$', d)
        kw, rest = m.group(1), m.group(2).strip()
        if kw == 'if':
            self.stack.append([rest, []])
        elif kw == 'ifdef':
            self.stack.append([f'defined({rest})', []])
        elif kw == 'ifndef':
            self.stack.append([f'!defined({rest})', []])
        elif kw == 'elif':
            top = self.stack[-1]
            top[1].append(top[0])
            top[0] = rest
        elif kw == 'else':
            top = self.stack[-1]
            top[1].append(top[0])
            top[0] = None
        elif kw == 'endif':
            self.stack.pop()

    def current(self):
        parts = []
        for cur, prev in self.stack:
            if cur == 'ALWAYS':
                continue
            for p in prev:
                parts.append(f'!({p})')
            if cur is not None:
                parts.append(f'({cur})')
        return ' && '.join(parts)

    def mark_always(self):
        self.stack[-1][0] = 'ALWAYS'


def match_brace(toks, i):
    d = 0
    for j in range(i, len(toks)):
        if toks[j] == '{':
            d += 1
        elif toks[j] == '}':
            d -= 1
            if d == 0:
                return j
    raise ValueError('unbalanced braces')


def member_name(decl):
    decl = [t for t in decl if not t.startswith('#')]
    if '[' in decl:
        return decl[decl.index('[') - 1]
    if '(' in decl:
        i = decl.index('(')
        return [t for t in decl[i:] if re.match(r'^[A-Za-z_]\w*$', t)][0]
    return decl[-1]


def record_fields(toks, prefix):
    """Member paths of a struct/union body (tokens between the braces)."""
    out = []
    i, cur = 0, []
    while i < len(toks):
        t = toks[i]
        if t.startswith('#'):
            i += 1
            continue
        if t == '{':
            j = match_brace(toks, i)
            k = j + 1
            decl = []
            while toks[k] != ';':
                decl.append(toks[k])
                k += 1
            inner_prefix = prefix
            if decl:
                name = member_name(decl)
                out.append(prefix + name)
                inner_prefix = prefix + name + '.'
            out += record_fields(toks[i + 1:j], inner_prefix)
            cur = []
            i = k + 1
            continue
        if t == ';':
            # split multiple declarators (a, b) at top level
            parts, part, depth = [], [], 0
            for x in cur:
                if x in '([':
                    depth += 1
                elif x in ')]':
                    depth -= 1
                if x == ',' and depth == 0:
                    parts.append(part)
                    part = []
                else:
                    part.append(x)
            parts.append(part)
            first = parts[0]
            out.append(prefix + member_name(first))
            for p in parts[1:]:
                out.append(prefix + member_name(p))
            cur = []
        else:
            cur.append(t)
        i += 1
    return out


def parse_header(path):
    text = strip_comments(open(path).read())
    text = re.sub(r'\\\n', ' ', text)  # join continued lines
    lines = [l.strip() for l in text.split('\n')]
    conds = Conds()
    model = {'typedefs': [], 'records': [], 'enumerators': [], 'functions': [], 'macros': [],
             'mappings': [], 'flags': []}
    buf, depth = [], 0
    pending_ifndef = None
    for idx, s in enumerate(lines):
        if not s:
            continue
        if s.startswith('#'):
            d = re.sub(r'\s+', ' ', s)
            if buf:  # directive inside a declaration: keep as a token
                buf.append(('#', d, conds.current()))
                conds.directive(d)
                continue
            m = re.match(r'#define (\w+)(\(.*?\))?(?: (.*))?$', d)
            if pending_ifndef and m and m.group(1) == pending_ifndef:
                conds.mark_always()  # include-guard style block: always taken
            pending_ifndef = None
            if re.match(r'#\s*(if|ifdef|ifndef|elif|else|endif)\b', d):
                conds.directive(d)
                m2 = re.match(r'#ifndef (\w+)$', d)
                if m2:
                    pending_ifndef = m2.group(1)
                continue
            if m and not m.group(2):
                name, value = m.group(1), (m.group(3) or '').strip()
                cond = conds.current()
                if name.startswith(OWN_MACRO_PREFIX):
                    continue
                if re.match(r'^cu[A-Z]', name):
                    model['mappings'].append((name, cond))
                elif value == '':
                    model['flags'].append((name, cond))
                else:
                    model['macros'].append((name, cond))
            continue
        pending_ifndef = None
        if s in ('extern "C" {', '}') and not buf:
            continue
        buf.append(('code', s, conds.current()))
        for ch in s:
            if ch in '{(':
                depth += 1
            elif ch in '})':
                depth -= 1
        code = ' '.join(x[1] for x in buf if x[0] == 'code').strip()
        done = depth == 0 and (code.endswith(';') or code.endswith('}'))  # '}': inline definition
        if done:
            handle_decl(buf, model)
            buf = []
    assert not buf
    return model


def drop_attributes(toks):
    """Remove GNU __attribute__((...)) groups."""
    out, i = [], 0
    while i < len(toks):
        if toks[i] == '__attribute__':
            depth, i = 0, i + 1
            while True:
                depth += {'(': 1, ')': -1}.get(toks[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(toks[i])
        i += 1
    return out


def handle_decl(buf, model):
    cond = buf[0][2]
    toks = []
    for kind, s, _ in buf:
        if kind == '#':
            toks.append(s)
        else:
            toks.extend(tokenize(s))
    toks = drop_attributes(toks)
    if toks[0].startswith('#'):  # directives before a function definition (attribute guards)
        toks = [t for t in toks if not t.startswith('#')]
    # conditions inside enum bodies are reconstructed from the embedded directives below
    if toks[0] == 'typedef' and toks[1] == 'enum':
        i = toks.index('{')
        j = match_brace(toks, i)
        name = toks[j + 1]
        model['typedefs'].append((name, cond))
        inner = Conds()
        cur = []

        def flush():
            if cur:
                c = ' && '.join(x for x in (cond, inner.current()) if x)
                model['enumerators'].append((cur[0], c))
        for t in toks[i + 1:j]:
            if t.startswith('#'):
                flush()
                cur = []
                inner.directive(t)
            elif t == ',':
                flush()
                cur = []
            else:
                cur.append(t)
        flush()
        return
    if toks[0] == 'typedef' and toks[1] in ('struct', 'union') and '{' in toks[:4]:
        i = toks.index('{')
        j = match_brace(toks, i)
        names = [t for t in toks[j + 1:-1] if re.match(r'^[A-Za-z_]\w*$', t)]
        fields = record_fields(toks[i + 1:j], '')
        for n in names:
            model['typedefs'].append((n, cond))
            model['records'].append((n, fields, cond))
        return
    if toks[0] == 'typedef':
        if '(' in toks:  # function pointer typedef
            i = toks.index('(')
            name = [t for t in toks[i:] if re.match(r'^[A-Za-z_]\w*$', t) and t != 'CUDA_CB'][0]
        else:
            name = toks[-2]
        model['typedefs'].append((name, cond))
        return
    if '(' in toks:
        i = toks.index('(')
        name = toks[i - 1]
        model['functions'].append((name, cond))
        return
    raise ValueError('unhandled declaration: ' + ' '.join(toks))


def guarded(cond, lines):
    if not cond:
        return lines
    return [f'#if {cond}'] + lines + ['#endif']


def dedupe(seq):
    seen, out = set(), []
    for x in seq:
        key = (x[0], x[-1])
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


PROLOGUE = r'''/* Generated by scripts/gen_abi_dump.py: ABI dump of the cuda.h declarations. */
#include <cuda.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#define ABI_STR(x) #x
#define ABI_XSTR(x) ABI_STR(x)
'''


def gen_c(model):
    out = [PROLOGUE]
    out.append('#define ABI_KIND(x) _Generic((x), int: "int", unsigned int: "uint", long: "long", '
               'unsigned long: "ulong", long long: "llong", unsigned long long: "ullong", '
               'default: "other")')
    out.append('int main(void) {')
    out.append('#ifdef CUCPU_API_PTDS')
    out.append('  printf("header cucpu\\n");')
    out.append('#else')
    out.append('  printf("header toolkit\\n");')
    out.append('#endif')
    for name, cond in dedupe(model['typedefs']):
        out += guarded(cond, [f'  printf("type {name} size=%zu align=%zu\\n", sizeof({name}), '
                              f'(size_t)_Alignof({name}));'])
    for name, fields, cond in dedupe(model['records']):
        body = []
        for f in fields:
            body.append(f'  printf("field {name}.{f} offset=%zu size=%zu\\n", offsetof({name}, {f}), '
                        f'sizeof((({name} *)0)->{f}));')
        out += guarded(cond, body)
    for name, cond in dedupe(model['enumerators']):
        out += guarded(cond, [f'  printf("enum {name} = %lld\\n", (long long)({name}));'])
    for name, cond in dedupe(model['macros']):
        out += guarded(cond, [
            f'  printf("macro {name} = %llu size=%zu kind=%s\\n", '
            f'(unsigned long long)(uintptr_t)({name}), sizeof({name}), ABI_KIND({name}));'])
    for name, cond in dedupe(model['flags']):
        out += guarded(cond, [f'#ifdef {name}', f'  printf("defined {name}\\n");', '#else',
                              f'  printf("undefined {name}\\n");', '#endif'])
    for name, cond in dedupe(model['mappings']):
        out += guarded(cond, [f'  printf("name {name} -> %s\\n", ABI_XSTR({name}));'])
    out.append('  return 0;')
    out.append('}')
    return '\n'.join(out) + '\n'


def gen_cxx(model):
    out = [PROLOGUE, '#include <typeinfo>', 'int main() {']
    out.append('#ifdef CUCPU_API_PTDS')
    out.append('  printf("header cucpu\\n");')
    out.append('#else')
    out.append('  printf("header toolkit\\n");')
    out.append('#endif')
    for name, cond in dedupe(model['typedefs']):
        out += guarded(cond, [f'  printf("type {name} %s\\n", typeid({name}).name());'])
    for name, fields, cond in dedupe(model['records']):
        out += guarded(cond, [f'  printf("field {name}.{f} %s\\n", typeid((({name} *)0)->{f}).name());'
                              for f in fields])
    for name, cond in dedupe(model['macros']):
        out += guarded(cond, [f'  printf("macro {name} %s\\n", typeid({name}).name());'])
    for name, cond in dedupe(model['functions']):
        out += guarded(cond, [f'  printf("function {name} -> %s %s\\n", ABI_XSTR({name}), '
                              f'typeid({name}).name());'])
    out.append('  return 0;')
    out.append('}')
    return '\n'.join(out) + '\n'


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: gen_abi_dump.py HEADER OUT_C OUT_CXX')
    model = parse_header(sys.argv[1])
    with open(sys.argv[2], 'w') as f:
        f.write(gen_c(model))
    with open(sys.argv[3], 'w') as f:
        f.write(gen_cxx(model))


if __name__ == '__main__':
    main()
