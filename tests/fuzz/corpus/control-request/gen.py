#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the seeds of tests/fuzz/control-request.c next to this script (host byte order: little).
import os
import struct

MAGIC, VER = 0x43545645, 1
here = os.path.dirname(os.path.abspath(__file__))


def frame(op, payload, magic=MAGIC, ver=VER, length=None):
    n = len(payload) if length is None else length
    return struct.pack('<IHHI', magic, op, ver, n) + payload


seeds = {
    'read': frame(2, struct.pack('<QQ', 0, 0) + b'events/ctltest/ctl_tick/format'),
    'read-offset': frame(2, struct.pack('<QQ', 6, 5) + b'trace'),
    'write': frame(3, struct.pack('<II', 4, 9) + b'set_event' + b'ctltest:*\n'),
    'write-filter': frame(3, struct.pack('<II', 0, 30) + b'events/ctltest/ctl_tick/filter' +
                          b'worker > 3 && seq < 10'),
    'readdir': frame(4, b'events'),
    'stat': frame(5, b'events/enable'),
    'stream': frame(6, struct.pack('<I', 0) + b'trace_pipe'),
    'stop': frame(7, b''),
    'getbuf': frame(8, b''),
    'getbuf-inst': frame(8, b'foo'),
    'putbuf': frame(9, b''),
    'ping': frame(10, b''),
    'mkdir': frame(11, b'instances/foo'),
    'hold': frame(13, b''),
    'release': frame(14, b''),
    'release-payload': frame(14, b'go'),
    'bad-magic': frame(2, struct.pack('<QQ', 0, 0) + b'trace', magic=0x11111111),
    'bad-version': frame(2, struct.pack('<QQ', 0, 0) + b'trace', ver=9),
    'lying-length': frame(3, struct.pack('<II', 0, 100) + b'set_event', length=4096),
    'path-nul': frame(4, b'events\0enable'),
    'write-pathlen-over': frame(3, struct.pack('<II', 0, 0xffffffff) + b'x'),
}
for name, data in seeds.items():
    with open(os.path.join(here, name), 'wb') as f:
        f.write(data)
