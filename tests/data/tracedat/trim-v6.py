#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trim a trace.dat (version 6, little-endian, 8-byte longs) for tests/data:

    trim-v6.py IN OUT SYSTEM[:EVENT][,SYSTEM[:EVENT]...] [PAGES_PER_CPU]

keeps the header_page/header_event texts, the event formats of the listed systems (or
events) only, no
ftrace formats, no kallsyms, no printk formats, the saved cmdlines, the options, and at most
PAGES_PER_CPU pages (default 4) of each CPU, of the top buffer or, when that is empty (a
`trace-cmd extract -B NAME` file), of the first BUFFER option's instance. The layout follows
shared/reference/trace-dat-v6.md; the result is written anew (offsets recomputed), the instance's
pages moving to the top buffer (the BUFFER option is dropped).
"""
import struct
import sys


class Rd:
    def __init__(self, b):
        self.b, self.p = b, 0

    def take(self, n):
        v = self.b[self.p:self.p + n]
        if len(v) != n:
            sys.exit("truncated at %d" % self.p)
        self.p += n
        return v

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def cstr(self):
        e = self.b.index(b"\0", self.p)
        v = self.b[self.p:e]
        self.p = e + 1
        return v


def main():
    src, dst = sys.argv[1], sys.argv[2]
    want = [w.split(b":") for w in sys.argv[3].encode().split(b",")]
    systems = {w[0] for w in want}
    events = {(w[0], w[1]) for w in want if len(w) > 1}
    pages = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    b = open(src, "rb").read()
    r = Rd(b)
    out = bytearray()
    magic = r.take(10)
    check = magic == b"\x17\x08\x44tracing"
    version = r.cstr()
    if not check or version != b"6":
        sys.exit("not a version 6 trace.dat")
    endian, longsz = r.take(1), r.take(1)
    if endian != b"\0" or longsz != b"\x08":
        sys.exit("only little-endian, 8-byte longs")
    page_size = r.u32()
    out += magic + b"6\0" + endian + longsz + struct.pack("<I", page_size)
    for name in (b"header_page\0", b"header_event\0"):
        if r.take(len(name)) != name:
            sys.exit("no %r" % name)
        n = r.u64()
        out += name + struct.pack("<Q", n) + r.take(n)
    for _ in range(r.u32()):            # ftrace formats: dropped
        r.take(r.u64())
    out += struct.pack("<I", 0)
    kept = []
    for _ in range(r.u32()):
        sysname = r.cstr()
        fmts = [r.take(r.u64()) for _ in range(r.u32())]
        if any(s == sysname for s, _ in events):   # SYSTEM:EVENT given: those only
            fmts = [f for f in fmts
                    if (sysname, f.split(b"\n", 1)[0][len(b"name: "):]) in events]
        if sysname in systems and fmts:
            kept.append((sysname, fmts))
    out += struct.pack("<I", len(kept))
    for sysname, fmts in kept:
        out += sysname + b"\0" + struct.pack("<I", len(fmts))
        for f in fmts:
            out += struct.pack("<Q", len(f)) + f
    r.take(r.u32())                     # kallsyms: dropped
    out += struct.pack("<I", 0)
    r.take(r.u32())                     # printk formats: dropped
    out += struct.pack("<I", 0)
    n = r.u64()
    out += struct.pack("<Q", n) + r.take(n)   # saved cmdlines
    ncpus = r.u32()
    out += struct.pack("<I", ncpus)
    sec = r.take(10)
    opts, buffer_at, clock = [], None, False
    if sec == b"options  \0":
        while True:
            oid = r.u16()
            if oid == 0:
                break
            data = r.take(r.u32())
            if oid == 3:                # BUFFER: u64 offset, name
                if buffer_at is None:
                    buffer_at = struct.unpack("<Q", data[:8])[0]
                continue
            if oid == 4:
                clock = True
            opts.append((oid, data))
        sec = r.take(10)
    if sec != b"flyrecord\0":
        sys.exit("no flyrecord")

    def table(rd):
        t = [(rd.u64(), rd.u64()) for _ in range(ncpus)]
        ck = rd.take(rd.u64()) if clock else b""
        return t, ck

    cpus, ck = table(r)
    if all(sz == 0 for _, sz in cpus) and buffer_at is not None:
        r2 = Rd(b)
        r2.p = buffer_at
        if r2.take(10) != b"flyrecord\0":
            sys.exit("BUFFER option does not point at a flyrecord")
        cpus, ck = table(r2)
    out += b"options  \0"
    for oid, data in opts:
        out += struct.pack("<HI", oid, len(data)) + data
    out += struct.pack("<H", 0)
    out += b"flyrecord\0"
    table_at = len(out)
    out += bytes(16 * ncpus)
    if clock:
        out += struct.pack("<Q", len(ck)) + ck
    newt = []
    for off, sz in cpus:
        sz = min(sz, pages * page_size)
        if sz == 0:
            newt.append((0, 0))
            continue
        out += bytes((-len(out)) % page_size)
        newt.append((len(out), sz))
        out += b[off:off + sz]
    for i, (off, sz) in enumerate(newt):
        struct.pack_into("<QQ", out, table_at + 16 * i, off, sz)
    open(dst, "wb").write(out)
    print("%s: %d bytes, systems %s, cpus %s" % (dst, len(out), sorted(s.decode() for s, _ in kept),
                                                  [sz // page_size for _, sz in newt]))


main()
