#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gen.py - make the filter differential corpus (tests/unit/filter-diff.c).

How the corpus was made (as root, on a machine with tracefs at /sys/kernel/tracing):

    make build
    tests/data/filter-diff/gen.py build/tests/unit/filter-diff

1. `records` (written here, deterministic): the values of the records the uprobe
   event gets, one line each: id a8 b8 a16 b16 a32 b32 a64 b64 x(hex)
   name(16 bytes, hex) str(hex) ustr(hex).
2. The expressions (seeded random, deterministic): valid predicates on every
   field of the uprobe event (u8..u64, s8..s64, char arrays, strings, ustrings,
   x64, common_ fields, CPU/cpu/COMM/comm, CPUS{}), combined with && || ( ) !,
   with random white space; string patterns of every glob kind; then the same
   expressions mutated (a character deleted, inserted, replaced, truncated) and
   a hand-written list of every error of the kernel's parser.
3. `filter-diff --record` asks the kernel about each expression: it puts a
   uprobe on its own filt_probe() (fields +OFFSET(%di):TYPE), enables it in an
   instance instances/filt-<pid> of its own, writes each expression to the
   event's filter file, and records errno, the filter file, error_log's last
   message and caret, and for accepted expressions which records a child
   process (pinned to CPU 0, named filt-target) left in the instance's trace.
   It removes the instance and the uprobe when done.
4. The answers go to corpus.tsv; filter-diff replays it without tracefs.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
rnd = random.Random(20261123)


def hexs(b):
    return b.hex() if b else "-"


# ---- records ------------------------------------------------------------------------------------

STRINGS = ["bash", "sh", "", "foobar", "ba*sh", "x?y", "[abc]", "hello world", "bashbash",
           "!neg", "123", "a" * 40, "zsh", "Bash", "ab\\c", "tab\there"]
RECORDS = [
    # id a8 b8 a16 b16 a32 b32 a64 b64 x name str ustr
    (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, b"bash", "bash", "sh"),
    (2, 1, -1, 1, -1, 1, -1, 1, -1, 1, b"sh", "sh", "bash"),
    (3, 255, 127, 65535, 32767, 4294967295, 2147483647, 18446744073709551615,
     9223372036854775807, 0xffffffffffffffff, b"foobar", "foobar", "foobar"),
    (4, 128, -128, 32768, -32768, 2147483648, -2147483648, 9223372036854775808,
     -9223372036854775808, 0x8000000000000000, b"ba*sh", "ba*sh", "x?y"),
    (5, 200, -56, 60000, -5536, 4000000000, -294967296, 0xfffffffffffffff0,
     -16, 0xdeadbeef, b"hello world", "hello world", "[abc]"),
    (6, 7, 7, 7, 7, 7, 7, 7, 7, 7, b"bashbash", "bashbash", "!neg"),
    (7, 8, 8, 256, 256, 65536, 65536, 4294967296, 4294967296, 0x1000, b"123", "123", ""),
    (8, 100, 100, 1000, 1000, 100000, 100000, 10000000000, -10000000000, 0x7f,
     b"a" * 16, "a" * 40, "a" * 40),
    (9, 42, -42, 4242, -4242, 424242, -424242, 42424242424242, -42424242424242, 0x2a,
     b"zsh\0junk", "zsh", "zsh"),
    (10, 16, 16, 16, 16, 16, 16, 16, 16, 16, b"Bash", "Bash", "ab\\c"),
    (11, 3, -3, 3, -3, 3, -3, 3, -3, 3, b"", "", "tab\there"),
    (12, 64, 64, 4096, 4096, 1 << 20, 1 << 20, 1 << 40, 1 << 40, 0x10000, b"x?y", "x?y", "ba*sh"),
]


def write_records():
    with open(os.path.join(HERE, "records"), "w") as f:
        f.write("# id a8 b8 a16 b16 a32 b32 a64 b64 x(hex) name(hex, 16 bytes) str(hex) ustr(hex)"
                " - written by gen.py\n")
        for r in RECORDS:
            name = r[10][:16].ljust(16, b"\0")
            f.write("%d %d %d %d %d %d %d %d %d %x %s %s %s\n" % (
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                name.hex(), hexs(r[11].encode()), hexs(r[12].encode())))


# ---- expressions --------------------------------------------------------------------------------

NUMERIC = {  # field: (bits, signed, column in RECORDS)
    "id": (32, False, 0), "a8": (8, False, 1), "b8": (8, True, 2), "a16": (16, False, 3),
    "b16": (16, True, 4), "a32": (32, False, 5), "b32": (32, True, 6), "a64": (64, False, 7),
    "b64": (64, True, 8), "x": (64, False, 9), "h16": (16, False, 3),
}
OTHER_NUM = ["common_pid", "common_type", "common_preempt_count", "common_flags", "c", "arr",
             "name", "__probe_ip", "CPU", "cpu", "common_cpu", "stacktrace", "STACKTRACE"]
STRFIELDS = ["str", "ustr", "str.ustring", "ustr.ustring", "comm", "COMM"]
NUMOPS = ["==", "!=", "<", "<=", ">", ">=", "&"]
STROPS = ["==", "!=", "~"]


def numval(bits, signed, col):
    kind = rnd.randrange(10)
    if kind < 5:
        v = rnd.choice(RECORDS)[col]
        v += rnd.choice([0, 0, 0, 1, -1])
    elif kind < 7:
        v = rnd.choice([0, 1, -1, 2 ** (bits - 1), 2 ** bits - 1, 2 ** bits, -(2 ** (bits - 1)),
                        2 ** 63, 2 ** 64 - 1, 2 ** 64, -(2 ** 63), -(2 ** 63) - 1, 255, 256])
    else:
        v = rnd.randrange(-2 ** 20, 2 ** 20)
    form = rnd.randrange(10)
    if form < 6 or v < 0:
        return str(v)
    if form < 8:
        return hex(v) if rnd.randrange(2) else "0X%X" % v
    return "0%o" % v


def glob_of(s):
    k = rnd.randrange(12)
    if not s:
        return rnd.choice(["", "*", "**", "?"])
    if k == 0:
        return s
    if k == 1:
        return s[:rnd.randrange(1, len(s) + 1)] + "*"
    if k == 2:
        return "*" + s[rnd.randrange(len(s)):]
    if k == 3:
        i = rnd.randrange(len(s))
        return "*" + s[i:i + rnd.randrange(1, 4)] + "*"
    if k == 4:
        i = rnd.randrange(len(s))
        return s[:i] + "?" + s[i + 1:]
    if k == 5:
        i = rnd.randrange(len(s))
        return s[:i] + "[" + s[i] + "xy]" + s[i + 1:]
    if k == 6:
        i = rnd.randrange(len(s))
        return s[:i] + "*" + s[i + 1:]
    if k == 7:
        return "!" + glob_of(s)
    if k == 8:
        return s.upper()
    if k == 9:
        i = rnd.randrange(len(s))
        return s[:i] + "[!" + s[i] + "]" + s[i + 1:]
    if k == 10:
        return "*" + s + "*"
    return s + "x"


def strval():
    s = rnd.choice(STRINGS + ["filt-target", "filt", "target"])
    s = s.replace("\t", "")
    return glob_of(s)


def ws():
    return rnd.choice(["", " ", " ", " ", "  ", "\t"])


def pred():
    k = rnd.randrange(20)
    if k < 11:
        f = rnd.choice(list(NUMERIC))
        bits, signed, col = NUMERIC[f]
        op = rnd.choice(NUMOPS) if rnd.randrange(20) else "~"
        return f + ws() + op + ws() + numval(bits, signed, col)
    if k < 13:
        f = rnd.choice(OTHER_NUM)
        op = rnd.choice(NUMOPS)
        v = rnd.choice(["0", "1", "2", "-1", "0x10", "65535", "1000000", str(rnd.randrange(4096))])
        if rnd.randrange(4) == 0:
            v = "CPUS{%s}" % rnd.choice(["0", "1", "0-1", "0,1", "1-0", "", "2", "0-1:1/2",
                                         "N", "all", "0 1"])
        return f + ws() + op + ws() + v
    f = rnd.choice(STRFIELDS)
    op = rnd.choice(STROPS) if rnd.randrange(15) else rnd.choice(["<", ">=", "&"])
    q = '"' if rnd.randrange(4) else "'"
    return f + ws() + op + ws() + q + strval() + q


def expr(depth=0):
    n = 1 if depth > 2 else rnd.choice([1, 1, 1, 2, 2, 3, 4])
    parts = []
    for i in range(n):
        if depth < 3 and rnd.randrange(5) == 0:
            e = "(" + ws() + expr(depth + 1) + ws() + ")"
        else:
            e = pred()
        if rnd.randrange(8) == 0:
            e = "!" + ws() + e
        parts.append(e)
        if i < n - 1:
            parts.append(ws() + rnd.choice(["&&", "||", "&&", "||", "&&"]) + ws())
    return "".join(parts)


def mutate(e):
    k = rnd.randrange(6)
    if not e:
        return e
    i = rnd.randrange(len(e))
    junk = rnd.choice(list("()!&|\"' =<>~{}*?[]-0a_.\\") + ["&&", "||", "\xa0", "\x01"])
    if k == 0:
        return e[:i] + e[i + 1:]
    if k == 1:
        return e[:i] + junk + e[i:]
    if k == 2:
        return e[:i] + junk + e[i + 1:]
    if k == 3:
        return e[:i]
    if k == 4:
        return e + rnd.choice([" )", " (", " junk", " &&", " ||", "!", " && (", "\"", "'"])
    return rnd.choice(["(", "!", "(!", " "]) + e


HAND = [
    # the grammar
    "a8 == 0", "a8==0", "  a8 == 0  ", "a8 == 0\n", "\ta8\t==\t0", "0", " 0 ", "0\n",
    "(a8 == 0)", "((a8 == 0))", "!(a8 == 0)", "!!(a8 == 0)", "! a8 == 0", "!a8 == 0",
    "a8 == 0 || a8 == 1 && b8 == -1", "(a8 == 0 || a8 == 1) && b8 == -1",
    "a8 & 1 && !(!(a8 & 2) || (a8 & 4 && a8 & 64)) || a8 & 8 || a8 & 16 && !(a8 & 32)",
    "a8 == 0 && (a16 == 1 || (a32 == 7 || (a64 == 16 || b64 == -3)))",
    # every error of the parser
    "", " ", "\n", "()", "(", ")", "!", "!!", "( )", "&&", "||", "a8", "a8 ==", "== 1", "!= 1",
    "bogus == 1", "a8 = 1", "a8 =< 1", "a8 <> 1", "a8 === 1", "a8 == 1 junk", "a8 == 1 &",
    "a8 == 1 |", "a8 == 1 & b8 == 1", "a8 == 1 | b8 == 1", "a8 == 1 &&", "a8 == 1 ||",
    "&& a8 == 1", "a8 == 1 && && b8 == 1", "((a8 == 1)", "(a8 == 1))", "a8 == 1)",
    ")a8 == 1(", "(((a8 == 1) && (b8 == 1)", "a8 == (1)", "(a8) == 1",
    "str == \"bash", "str == 'bash", "str == \"bash'", "str == bash", "str == 1", "str < \"a\"",
    "str ~ 1", "a8 == \"1\"", "a8 ~ 1", "a8 ~ \"1\"", "a8 == -1", "a8 == 256", "a8 == 1x",
    "a8 == 08", "a8 == 0x", "a8 == 0xg", "a8 == --1", "a8 == -", "a8 == +1",
    "b8 == -0", "b8 == -0x80", "b64 == -9223372036854775808", "b64 == -9223372036854775809",
    "b64 == 9223372036854775807", "b64 == 9223372036854775808",
    "a64 == 18446744073709551615", "a64 == 18446744073709551616",
    "a8 == 0x00000000000000000000001", "a8 == 00000000000000000000001",
    "a8 == 0000000000000000000001", "str == \"" + "a" * 255 + "\"", "str == \"" + "a" * 256 + "\"",
    "str ~ \"" + "a" * 300 + "*\"",
    "a8.function == foo", "x.function == no_such_function_xyz", "x.function == 0x10",
    "x.function < 0x10", "x.function ~ foo", "x.function == \"no_such\"",
    "x.function == 0x000000000000000000000010", "x.function == 0xfoo",
    "x.ustring == 1", "str.ustring == \"bash\"", "str.function == 1", "a8.foo == 1",
    "a8 . == 1", "a8.ustring.function == 1", "x.function.ustring == 1",
    "a8 == CPUS{0}", "a8 == CPUS{0-1}", "a8 & CPUS{1}", "a8 != CPUS{0,1}", "a8 < CPUS{0}",
    "a8 == CPUS{}", "a8 == CPUS{9}", "a8 == CPUS{0", "a8 == CPUS", "a8 == CPUS0}",
    "a8 == CPUS{x}", "a8 == CPUS{1-0}", "a8 == CPUS{0-1:1/2}", "a8 == CPUS{N}",
    "a8 == CPUS{all}", "str == CPUS{0}", "CPU == CPUS{0}", "CPU & CPUS{0-1}", "CPU != CPUS{1}",
    "cpu == CPUS{0,1}", "common_cpu == 0", "CPU == 0", "cpu != 0", "CPU < 1", "CPU > 0",
    "CPU == \"0\"", "CPU ~ 0", "CPU & 1", "comm == \"filt-target\"", "COMM == \"filt-target\"",
    "comm ~ \"filt*\"", "comm ~ \"*target\"", "comm ~ \"*lt-t*\"", "comm ~ \"f?lt-target\"",
    "comm != \"bash\"", "comm == 1", "comm < \"a\"", "comm.function == x", "COMM ~ \"[f]*\"",
    "stacktrace == 0", "STACKTRACE != 0", "common_stacktrace == 0", "common_comm == \"x\"",
    "common_pid != 0", "common_type != 0", "common_flags == 0", "common_preempt_count == 0",
    "__probe_ip != 0", "name == 0", "name == \"bash\"", "arr == 0", "arr != 0", "c == 98",
    "c == 'b'", "h16 == 0x3e8",
    # globs
    "str ~ \"*\"", "str ~ \"**\"", "str ~ \"\"", "str == \"\"", "str ~ \"?\"", "str ~ \"*sh\"",
    "str ~ \"sh*\"", "str ~ \"*as*\"", "str ~ \"ba*sh\"", "str ~ \"b?sh\"", "str ~ \"[bz]*\"",
    "str ~ \"[!b]*\"", "str ~ \"[a-c]ash\"", "str ~ \"!bash\"", "str ~ \"!*sh\"",
    "str ~ \"1*\"", "str ~ \"123\"", "str ~ \"1?3\"", "str ~ \"ba\\\\*sh\"", "str ~ \"ba\\*sh\"",
    "str ~ \"[\"", "str ~ \"[]\"", "str ~ \"[]]\"", "str ~ \"[a-]\"", "str ~ \"*[\"",
    "str ~ \"ab\\\\c\"", "ustr ~ \"ab\\\\c\"", "ustr ~ \"*\\\\*\"", "str ~ \"*sh*sh\"",
    "str != \"*\"", "str == \"*\"", "str ~ '*'", "str ~ \"a\"\"b\"", "str ~ 'a\"b'",
    "str ~ \"hello world\"", "str ~ \"hello*\"", "str ~ \"*world\"", "str ~ \"* *\"",
    "str ~ \"" + "a" * 40 + "\"", "str ~ \"" + "a" * 39 + "*\"", "str ~ \"*" + "a" * 41 + "\"",
    # the kernel's ctype
    "a8\xa0== 0", "a8 == 0\xa0", "\xa0a8 == 0", "a\xe9 == 0", "a8 == 0\xe9",
    "a8 == 0 &&\x0b b8 == 0", "a8 == 0 &&\x01 b8 == 0",
    # sizes and depths
    " || ".join(["a8 == %d" % i for i in range(200)]),
    " && ".join(["a8 != %d" % (i + 1) for i in range(150)]),
    "(" * 60 + "a8 == 0" + ")" * 60, "(" * 60 + "a8 == 0" + ")" * 59,
    "(" * 59 + "a8 == 0" + ")" * 60, "!" * 101 + "(a8 == 0)", "!" * 100 + "a8 == 0",
    "!(" * 30 + "a8 == 0" + ")" * 30,
    "((a8 == 0 || (b8 == 1 && (a16 == 1 || (b16 == -1 && !(a32 == 0))))) && b64 < 0)",
    # white space and quotes inside values
    "a8\v==\f0", "str == \"tab\there\"", "ustr == \"tab\there\"", "ustr ~ \"tab*\"",
    "str == \"a\nb\"", "str ~ \" \"", "str == \"bash\" ", "str == 'bash'&&a8==0",
    "a8 == CPUS{ 0 }", "a8 == CPUS {0}", "a8 == CPUS{0 1}", "a8 == CPUS{0,,1}",
    "a8 == CPUS{0-1:1/2}", "a8 == CPUS{0-1:2/1}", "a8 == CPUS{0-1:0/1}", "a8 == CPUS{1-N}",
    "a8 == CPUS{4294967296}", "a8 == CPUS{0-}", "a8 == CPUS{-1}", "CPU == CPUS{0}junk",
    "a8 == 0x1f", "a8 == 0X1F", "a8 == 0x1F\n", "a64 == 0xFFFFFFFFFFFFFFFF",
    "b64 == -0x8000000000000000", "b64 == -0x8000000000000001", "b8 == -0200",
    "a8 == 1 &&(b8 == 1)", "a8 == 1 &&!b8 == 1", "a8 == 1 ||!(b8 == 1)", "(a8 == 1)(b8 == 1)",
    "(a8 == 1) (b8 == 1)", "a8 == 1 () ", "() && a8 == 1", "(()) || a8 == 1",
]


# ---- the task_rename suite: char[16] fields with chosen values --------------------------------

NAMES = ["bash-0123456789", "sh-abcdefghijkl", "foobar-foobar-f", "ba*sh-ba*sh-ba*",
         "x?y-x?y-x?y-x?y", "[abc]-[abc]-[ab", "zzzzzzzzzzzzzzz", "123456789012345",
         "!neg-!neg-!neg-", "Bash-BASH-bash-", "a\\b\\c-a\\b\\c-a", "hello-world-abc",
         "sh", "bash", "ab", "abcdefgh"]


def write_names():
    with open(os.path.join(HERE, "rename-names"), "w") as f:
        f.write("# task_rename records: the names set in turn (hex) - written by gen.py\n")
        for n in NAMES:
            f.write(n.encode().hex() + "\n")


def rename_pred():
    k = rnd.randrange(10)
    if k < 7:
        f = rnd.choice(["newcomm", "oldcomm", "newcomm", "oldcomm.ustring", "COMM", "comm"])
        op = rnd.choice(STROPS) if rnd.randrange(12) else rnd.choice(["<", "&"])
        q = '"' if rnd.randrange(4) else "'"
        s = rnd.choice(NAMES + ["filt-target"])
        if rnd.randrange(3) == 0:
            s = s[:rnd.randrange(len(s) + 1)]
        return f + ws() + op + ws() + q + glob_of(s) + q
    f = rnd.choice(["pid", "oom_score_adj", "common_pid", "CPU", "newcomm", "common_type"])
    return f + ws() + rnd.choice(NUMOPS) + ws() + rnd.choice(["0", "1", "-1", "1000", "0x10"])


def rename_expr(depth=0):
    n = 1 if depth > 1 else rnd.choice([1, 1, 2, 2, 3])
    parts = []
    for i in range(n):
        e = "(" + rename_expr(depth + 1) + ")" if depth < 2 and rnd.randrange(5) == 0 \
            else rename_pred()
        if rnd.randrange(8) == 0:
            e = "!" + e
        parts.append(e)
        if i < n - 1:
            parts.append(ws() + rnd.choice(["&&", "||"]) + ws())
    return "".join(parts)


RENAME_HAND = [
    'newcomm ~ "*"', 'newcomm ~ "**"', 'newcomm ~ ""', 'newcomm == ""', 'oldcomm ~ "*get"',
    'oldcomm ~ "filt*"', 'oldcomm == "filt-target"', 'comm ~ "filt*"', 'COMM ~ "*-*"',
    'comm ~ "*sh"', 'comm == "sh"', 'comm ~ "*789"', 'COMM ~ "*a*"', 'comm != oldcomm', 'oldcomm ~ "*lt-t*"', 'newcomm ~ "*sh"',
    'newcomm ~ "*789"', 'newcomm ~ "*6789"', 'newcomm ~ "*a*"', 'newcomm ~ "*\\\\*"',
    'newcomm ~ "sh*"', 'newcomm ~ "s?"', 'newcomm ~ "?h"', 'newcomm ~ "[!b]*"',
    'newcomm ~ "[a-c]*"', 'newcomm ~ "*[0-9]"', 'newcomm ~ "1*"', 'newcomm ~ "123456789012345"',
    'newcomm ~ "12345678901234"', 'newcomm == "12345678901234"', 'newcomm == "1234567890123456"',
    'newcomm == "bash-0123456789x"', 'newcomm == "bash-0123456789"', 'newcomm != "sh"',
    'newcomm ~ "!*sh*"', 'newcomm ~ "!sh"', 'newcomm ~ "ba\\*sh*"', 'newcomm ~ "x\\?y*"',
    'newcomm ~ "*-*-*"', 'newcomm ~ "[[]abc]*"', 'newcomm ~ "[]"', 'newcomm ~ "[\\]"',
    'newcomm < "a"', 'newcomm == 1', 'newcomm ~ 1', 'newcomm.function == x', 'pid > 0',
    'oom_score_adj == 0', 'oom_score_adj != 0', 'newcomm == CPUS{0}',
    'newcomm ~ "' + "x" * 300 + '"', 'newcomm ~ "*' + "bash-0123456789" * 2 + '*"',
]


def write_exprs(path, exprs):
    """The expressions, escaped, one a line; without duplicates and what the kernel never parses."""
    seen, out = set(), []
    for e in exprs:
        # the kernel ignores a zero-length write; a write of a page or more is EINVAL
        if e and e not in seen and len(e.encode("latin-1")) < 4000:
            seen.add(e)
            out.append(e)
    with open(path, "w", encoding="latin-1") as f:
        for e in out:
            f.write(e.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
                    .translate({c: "\\x%02x" % c for c in list(range(0x20)) + list(range(0x7f, 0x100))
                                if c not in (9, 10)}) + "\n")
    return out


def main():
    if len(sys.argv) < 2:
        print("usage: gen.py path/to/build/tests/unit/filter-diff [count]", file=sys.stderr)
        return 2
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1200
    write_records()
    write_names()
    exprs = list(HAND)
    valid = [expr() for _ in range(count)]
    exprs += valid
    exprs += [mutate(rnd.choice(valid)) for _ in range(count // 2)]
    exprs += [mutate(rnd.choice(HAND)) for _ in range(count // 6)]
    path = os.path.join(HERE, "exprs.txt")
    out = write_exprs(path, exprs)
    with open(os.path.join(HERE, "corpus.tsv"), "w") as f:
        subprocess.run([sys.argv[1], "--record", path], stdout=f, check=True)
    print("uprobe: %d expressions" % len(out))

    exprs = list(RENAME_HAND)
    valid = [rename_expr() for _ in range(count // 2)]
    exprs += valid + [mutate(rnd.choice(valid)) for _ in range(count // 6)]
    out = write_exprs(path, exprs)
    with open(os.path.join(HERE, "corpus-rename.tsv"), "w") as f:
        subprocess.run([sys.argv[1], "--record", path, "rename"], stdout=f, check=True)
    os.unlink(path)
    print("task_rename: %d expressions" % len(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
