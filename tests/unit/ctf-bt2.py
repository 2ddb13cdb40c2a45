# SPDX-License-Identifier: LGPL-2.1-or-later
"""The check of tests/unit/ctf-export.c: a CTF trace, as babeltrace2 reads it, holds the
same events with the same values as `evtrace report -R` prints from the trace.dat.

python3 ctf-bt2.py CTF_DIR REPORT_R_FILE EXPECTED_DISCARDED_MIN

Reads CTF_DIR with the bt2 Python bindings (python3-bt2; exit 77 without them) and prints
each event in report -R's layout:

    TS [CPU] SYSTEM:NAME: tid=T pid=P comm=C field=value ...

and each discarded-events message as report prints a loss, "CPU:N [COUNT EVENTS DROPPED]".
Both sides are compared CPU by CPU (the order across CPUs of records with one time
stamp is not defined), line by line; the first difference is printed. The discarded
counts must add up to at least EXPECTED_DISCARDED_MIN.
"""
import collections
import re
import sys

try:
    import bt2
except ImportError:
    print("SKIP: python3-bt2 is missing")
    sys.exit(77)


def text(s):
    out = []
    for b in s.encode("utf-8", "surrogateescape"):
        if b == 0:
            break
        if 0x20 <= b < 0x7F and b != 0x5C:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


def value(field):
    if isinstance(field, bt2._StringFieldConst):
        return text(str(field))
    if isinstance(field, bt2._ArrayFieldConst):
        return "[" + ",".join(value(f) for f in field) + "]"
    if isinstance(field, bt2._IntegerFieldConst):
        if field.cls.preferred_display_base == 16:
            return "0x%x" % int(field)
        return str(int(field))
    raise ValueError("unexpected field %r" % (field,))


def payload(struct):
    names = list(struct.keys())
    parts = []
    for i, name in enumerate(names):
        # a sequence's length member: "_X_length" just before "X"
        if name.endswith("_length") and i + 1 < len(names) and \
                "_" + names[i + 1] + "_length" == name:
            continue
        parts.append("%s=%s" % (name, value(struct[name])))
    return parts


def ctf_lines(path):
    lines = collections.defaultdict(list)
    discarded = 0
    it = bt2.TraceCollectionMessageIterator(path)
    for msg in it:
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            cpu = int(ev.packet.context_field["cpu_id"])
            ctx = ev.common_context_field
            head = "%d [%03d] %s: tid=%d pid=%d comm=%s" % (
                msg.default_clock_snapshot.value, cpu, ev.name, int(ctx["tid"]),
                int(ctx["pid"]), text(str(ctx["comm"])))
            lines[cpu].append(" ".join([head] + payload(ev.payload_field)))
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            cpu = int(msg.stream.id)
            lines[cpu].append("CPU:%d [%d EVENTS DROPPED]" % (cpu, msg.count))
            discarded += msg.count
    return lines, discarded


def report_lines(path):
    lines = collections.defaultdict(list)
    for line in open(path, encoding="ascii"):
        line = line.rstrip("\n")
        m = re.match(r"CPU:(\d+) \[", line)
        if m:
            lines[int(m.group(1))].append(line)
            continue
        m = re.match(r"\d+ \[(\d+)\] ", line)
        if not m:
            print("FAIL: report line not understood:", line)
            sys.exit(1)
        lines[int(m.group(1))].append(line)
    return lines


def main():
    ctf, discarded = ctf_lines(sys.argv[1])
    rep = report_lines(sys.argv[2])
    want_discarded = int(sys.argv[3])
    total = 0
    if sorted(ctf) != sorted(rep):
        print("FAIL: CPUs differ: ctf %s report %s" % (sorted(ctf), sorted(rep)))
        return 1
    for cpu in sorted(rep):
        a, b = ctf[cpu], rep[cpu]
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else "<none>"
            y = b[i] if i < len(b) else "<none>"
            if x != y:
                print("FAIL: CPU %d line %d:\n  ctf:    %s\n  report: %s" % (cpu, i, x, y))
                return 1
        total += len(b)
    if discarded < want_discarded:
        print("FAIL: %d events discarded in the CTF trace, expected at least %d" %
              (discarded, want_discarded))
        return 1
    print("ctf-bt2: %d lines equal on %d CPUs, %d discarded" % (total, len(rep), discarded))
    return 0


sys.exit(main())
