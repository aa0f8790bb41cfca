#!/usr/bin/env python3
"""Keeps docs/trace-format.md's field tables equal to include/dltrace/format.h.

  scripts/format-doc.py --write   regenerate the generated parts of the doc
  scripts/format-doc.py --check   fail if the doc differs from the header, or
                                  if the layout computed here differs from the
                                  C compiler's (checked with _Static_assert)

The tables sit between "<!-- BEGIN generated:NAME -->" and
"<!-- END generated:NAME -->" markers; everything else in the doc is prose.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, "include", "dltrace", "format.h")
DOC = os.path.join(ROOT, "docs", "trace-format.md")
APIS = os.path.join(ROOT, "include", "dltrace", "apis.def")
APIDOC = os.path.join(ROOT, "docs", "apis.md")


def paren_groups(text):
    """The top-level parenthesised groups of text, without spaces."""
    groups, depth, cur = [], 0, ""
    for c in text:
        if c == "(":
            depth += 1
        if depth > 0:
            cur += c
        if c == ")":
            depth -= 1
            if depth == 0:
                groups.append(re.sub(r"\s+", "", cur))
                cur = ""
    return groups


def top_fields(text):
    """text split at its top-level commas, each field stripped."""
    fields, depth, cur = [], 0, ""
    for c in text:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            fields.append(cur.strip())
            cur = ""
        else:
            cur += c
    fields.append(cur.strip())
    return fields


def api_entries():
    """(id, family, name, params, args, flags, roles, values, pre, post) of
    every DLT_API of apis.def."""
    text = open(APIS).read()
    for m in re.finditer(r"^DLT_API\((.*?)\)\s*\n(?=DLT_API|/\*|#|$)",
                         text, re.S | re.M):
        yield top_fields(re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S))


def role_names(roles):
    if roles.strip() == "0":
        return ""
    return ", ".join(r.strip()[len("DLT_ROLE_"):].lower()
                     for r in roles.split("|"))


def api_table():
    """The table of interposed functions, from apis.def."""
    rows = ["| id | family | function | before the call | roles | values recorded |",
            "|---:|---|---|---|---|---|"]
    for f in api_entries():
        ident, fam, name, _params, _args, flags, roles, values, pre, post = f
        enter = ""
        if "DLT_AF_ENTER" in flags:
            same = (re.sub(r"\s+", "", pre) == re.sub(r"\s+", "", post) and
                    "DLT_AF_NORECORD" not in flags)
            enter = "open API_CALL" if same else "API_ENTER"
        names = [v for v in top_fields(values.strip()[1:-1]) if v]
        rows.append("| %s | %s | `%s` | %s | %s | %s |" % (
            ident, fam, name, enter, role_names(roles), ", ".join(names)))
    return "\n".join(rows)


def family_table():
    """The LIB_FAMILY slots, from apis.def."""
    text = open(APIS).read()
    rows = ["| family | v[] | name | what |", "|---|---:|---|---|"]
    for m in re.finditer(r"^DLT_FAMILY_SLOT\((\w+), (\d+), (\w+)\)"
                         r"[ \t]*(?:/\*\s*(.*?)\s*\*/)?", text, re.M | re.S):
        what = re.sub(r"\s+", " ", m.group(4) or "")
        rows.append("| %s | %s | `%s` | %s |" % (m.group(1), m.group(2),
                                                  m.group(3), what))
    return "\n".join(rows)


SIZES = {"char": 1, "uint8_t": 1, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
         "int64_t": 8, "uint64_t": 8, "float": 4}


def array_count(text, count):
    """An array's element count: a number, or a macro of the header that
    is one (uint32_t hist[DLT_AGG_HIST])."""
    if not count:
        return 0
    if count.isdigit():
        return int(count)
    m = re.search(r"#define %s\s+(\d+)u?\b" % count, text)
    if not m:
        raise SystemExit("format-doc: array size %s is no number" % count)
    return int(m.group(1))


def parse_structs(text):
    structs = {}
    order = []
    for m in re.finditer(r"^struct (\w+) \{\n(.*?)^\};", text, re.S | re.M):
        name, body = m.group(1), m.group(2)
        fields = []
        for line in body.split("\n"):
            fm = re.match(r"\s*((?:struct )?\w+)\s+(\w+)(\[(\w*)\])?;"
                          r"\s*(?:/\*\s*(.*?)\s*(?:\*/)?)?\s*$", line)
            if not fm:
                continue
            ftype, fname, arr, count, comment = fm.groups()
            fields.append({"type": ftype, "name": fname,
                           "array": arr is not None,
                           "count": array_count(text, count),
                           "count_name": count or "",
                           "comment": comment or ""})
        structs[name] = fields
        order.append(name)
    return structs, order


def layout(structs, name, memo):
    if name in memo:
        return memo[name]
    off = 0
    align = 1
    rows = []
    for f in structs[name]:
        t = f["type"]
        if t.startswith("struct "):
            sub = t.split()[1]
            size, al, _ = layout(structs, sub, memo)
        else:
            size = al = SIZES[t]
        off = (off + al - 1) // al * al
        n = f["count"] if f["array"] else 1
        total = size * n
        rows.append((off, total, f, size))
        off += total
        align = max(align, al)
    size = (off + align - 1) // align * align
    memo[name] = (size, align, rows)
    return memo[name]


def parse_enum_block(text, name):
    m = re.search(r"enum %s \{(.*?)\};" % name, text, re.S)
    out = []
    for line in m.group(1).split("\n"):
        em = re.match(r"\s*(\w+)\s*=\s*(\w+),?\s*(?:/\*\s*(.*?)\s*\*/)?",
                      line)
        if em:
            out.append((em.group(1), em.group(2), em.group(3) or ""))
    return out


def parse_record_types(text):
    m = re.search(r"#define DLT_RECORD_TYPES\(X\)(.*?)\n\n", text, re.S)
    return re.findall(r"X\((\d+), (\w+), (\w+)\)", m.group(1))


def parse_defines(text, prefix):
    return re.findall(r"#define (%s\w*)\s+(\S+)\s*(?:/\*\s*(.*?)\s*\*/)?"
                      % prefix, text)


def type_str(f):
    if f["array"]:
        return "%s[%s]" % (f["type"], f["count_name"])
    return f["type"]


def struct_table(structs, name, memo):
    size, _, rows = layout(structs, name, memo)
    out = ["| offset | size | field | type | meaning |",
           "|---:|---:|---|---|---|"]
    for off, total, f, elem in rows:
        sz = str(total) if not (f["array"] and f["count"] == 0) \
            else "%d × n" % elem
        out.append("| %d | %s | `%s` | `%s` | %s |" % (
            off, sz, f["name"], type_str(f), f["comment"].replace("|", "\\|")))
    out.append("")
    out.append("Fixed part: %d bytes." % size)
    return "\n".join(out)


def generate(text):
    structs, order = parse_structs(text)
    memo = {}
    parts = {}
    for name in order:
        parts["struct " + name] = struct_table(structs, name, memo)
    rt = ["| id | name | record struct | fixed size |", "|---:|---|---|---:|"]
    for rid, rname, st in parse_record_types(text):
        rt.append("| %s | `%s` | `struct %s` | %d |" % (
            rid, rname, st, layout(structs, st, memo)[0]))
    parts["record types"] = "\n".join(rt)
    for enum in ("dlt_found_via", "dlt_exit_how", "dlt_parent_kind", "dlt_family", "dlt_sock_op",
                 "dlt_writer_kind", "dlt_note_level", "dlt_reap_call",
                 "dlt_family_source", "dlt_kill_why", "dlt_runtime_kind",
                 "dlt_pystack_reason", "dlt_rank_source"):
        rows = ["| value | name | meaning |", "|---:|---|---|"]
        for n, v, c in parse_enum_block(text, enum):
            rows.append("| %s | `%s` | %s |" % (v, n, c))
        parts["enum " + enum] = "\n".join(rows)
    for prefix, key in (("DLT_FEAT_", "features"), ("DLT_LIB_", "lib flags"),
                        ("DLT_STALL_", "stall flags"),
                        ("DLT_PYSTACK_F_", "pystack flags"),
                        ("DLT_PROC_", "proc flags")):
        rows = ["| bit | name | meaning |", "|---|---|---|"]
        for n, v, c in parse_defines(text, prefix):
            rows.append("| %s | `%s` | %s |" % (v, n, c or ""))
        parts[key] = "\n".join(rows)
    consts = ["| name | value |", "|---|---|"]
    for n in ("DLT_MAGIC", "DLT_ENDIAN_MARK", "DLT_FORMAT_MAJOR",
              "DLT_FORMAT_MINOR", "DLT_DATA_OFFSET", "DLT_CHUNK_MIN",
              "DLT_CHUNK_MAX", "DLT_REC_ALIGN", "DLT_STR_NONE"):
        m = re.search(r"#define %s\s+(\S+)" % n, text)
        consts.append("| `%s` | `%s` |" % (n, m.group(1)))
    parts["constants"] = "\n".join(consts)
    parts["entry layout"] = entry_layout(text)
    return parts, structs, order, memo


def entry_layout(text):
    """The compact entry's fields, low bit first, as a table.  They must
    tile the 64-bit word without gaps or overlaps."""
    d = dict((n, v) for n, v, _ in parse_defines(text, "DLT_ENTRY_"))

    def num(name):
        return int(d[name].rstrip("u"))
    fields = [("tag", 0, num("DLT_ENTRY_TAG_BITS"))]
    for f in ("SLOT", "DT", "DUR"):
        fields.append((f.lower(), num("DLT_ENTRY_%s_SHIFT" % f),
                       num("DLT_ENTRY_%s_BITS" % f)))
    at = 0
    for name, shift, bits in fields:
        if shift != at:
            raise SystemExit("format-doc: entry field %s starts at bit %d, "
                             "expected %d" % (name, shift, at))
        at += bits
    if at != 64:
        raise SystemExit("format-doc: the entry fields take %d bits, not 64"
                         % at)
    meaning = {
        "tag": "`DLT_ENTRY_CALL` (%d): a call; `DLT_ENTRY_SKIP` (%d): "
               "nothing; others reserved" % (num("DLT_ENTRY_CALL"),
                                             num("DLT_ENTRY_SKIP")),
        "slot": "0 to %d (`DLT_ENTRY_SLOTS`)"
                % ((1 << num("DLT_ENTRY_SLOT_BITS")) - 1),
        "dt": "ns since the previous API_DEF or entry's start, signed",
        "dur": "ns; %d (`DLT_ENTRY_DUR_OPEN`): not returned"
               % ((1 << num("DLT_ENTRY_DUR_BITS")) - 1),
    }
    rows = ["| bits | field | meaning |", "|---|---|---|"]
    for name, shift, bits in fields:
        rows.append("| %d–%d | `%s` | %s |" % (shift, shift + bits - 1,
                                              name, meaning[name]))
    return "\n".join(rows)


def static_asserts(structs, order, memo):
    lines = ["#include <stddef.h>", '#include "dltrace/format.h"']
    for name in order:
        size, _, rows = layout(structs, name, memo)
        lines.append("_Static_assert(sizeof(struct %s) == %d, \"%s\");"
                     % (name, size, name))
        for off, _, f, _ in rows:
            lines.append("_Static_assert(offsetof(struct %s, %s) == %d, "
                         "\"%s.%s\");" % (name, f["name"], off, name,
                                          f["name"]))
    # The compact entry's fields tile its 64 bits, as the doc's table says.
    lines += [
        "_Static_assert(DLT_ENTRY_SLOT_SHIFT == DLT_ENTRY_TAG_BITS, \"slot\");",
        "_Static_assert(DLT_ENTRY_DT_SHIFT == DLT_ENTRY_SLOT_SHIFT + "
        "DLT_ENTRY_SLOT_BITS, \"dt\");",
        "_Static_assert(DLT_ENTRY_DUR_SHIFT == DLT_ENTRY_DT_SHIFT + "
        "DLT_ENTRY_DT_BITS, \"dur\");",
        "_Static_assert(DLT_ENTRY_DUR_SHIFT + DLT_ENTRY_DUR_BITS == 64, "
        "\"64 bits\");",
        "_Static_assert(DLT_ENTRY_SLOTS == 1u << DLT_ENTRY_SLOT_BITS, "
        "\"slots\");",
    ]
    return "\n".join(lines) + "\n"


def apply(doc, parts):
    def repl(m):
        key = m.group(1)
        if key not in parts:
            raise SystemExit("format-doc: unknown generated block %r" % key)
        return "<!-- BEGIN generated:%s -->\n%s\n<!-- END generated:%s -->" % (
            key, parts[key], key)
    return re.sub(r"<!-- BEGIN generated:(.*?) -->.*?<!-- END generated:\1 -->",
                  repl, doc, flags=re.S)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    text = open(HEADER).read()
    parts, structs, order, memo = generate(text)
    apidoc = open(APIDOC).read()
    newapi = apply(apidoc, {"apis": api_table(), "families": family_table()})
    if mode == "--write":
        open(APIDOC, "w").write(newapi)
    elif newapi != apidoc:
        print("format-doc: docs/apis.md differs from apis.def; "
              "run scripts/format-doc.py --write")
        return 1
    doc = open(DOC).read()
    new = apply(doc, parts)
    missing = [k for k in parts if "generated:%s -->" % k not in doc]
    if mode == "--write":
        open(DOC, "w").write(new)
        if missing:
            print("format-doc: no block in the doc for: " + ", ".join(missing))
        return 0
    ok = True
    if missing:
        print("format-doc: docs/trace-format.md lacks blocks for: "
              + ", ".join(missing))
        ok = False
    if new != doc:
        print("format-doc: docs/trace-format.md differs from format.h; "
              "run scripts/format-doc.py --write")
        ok = False
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "layout.c")
        open(src, "w").write(static_asserts(structs, order, memo))
        r = subprocess.run([cc, "-std=c11", "-fsyntax-only", "-I",
                            os.path.join(ROOT, "include"), src],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("format-doc: the compiler's layout differs:\n" + r.stderr)
            ok = False
    print("format-doc: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
