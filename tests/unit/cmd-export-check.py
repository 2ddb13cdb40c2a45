# SPDX-License-Identifier: LGPL-2.1-or-later
"""The checks of tests/unit/cmd-export.c on the JSON `evtrace export` wrote.

python3 cmd-export-check.py MODE JSON [args...]; exit 0 when every check holds, else
1 with what failed. Numbers are read exactly (Decimal): "ts" must be microseconds
with at most three decimals, i.e. whole nanoseconds.

  app JSON EXPECTED NTHREADS PER_THREAD WEIRD_HEX RAW_HEX COMM_HEX NREQ
      the recording of cmd-export.c; EXPECTED: "ts_ns tid pid" per record
  durations JSON NREQ     --durations: ex_req_begin/end as B/E "ex_req"
  corrupt JSON TOTAL      a corrupt page: valid JSON, metadata.error, fewer records
  kernel JSON NRECORDS    tests/data/tracedat/kernel-sched.dat
  openat JSON NRECORDS DURATIONS  tests/data/tracedat/kernel-openat.dat (DURATIONS 0 or 1)
  select JSON TOTAL COUNT NAMES [FIELD=VALUE]   -e/-F: COUNT records, all of NAMES
      (comma list), each with args FIELD == VALUE when given; metadata.skipped = TOTAL - COUNT
  lost JSON WRITTEN       an overwritten buffer: records + dropped counts = WRITTEN
"""
import collections
import decimal
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        # strict: no NaN/Infinity, exact numbers
        d = json.loads(raw.decode("utf-8"), parse_float=decimal.Decimal,
                       parse_constant=lambda c: fail("constant %s" % c))
    except (ValueError, UnicodeDecodeError) as e:
        fail("%s is not valid JSON: %s" % (path, e))
    check(isinstance(d, dict), "top level is not an object")
    check(d.get("displayTimeUnit") == "ns", "displayTimeUnit")
    check(isinstance(d.get("traceEvents"), list), "traceEvents")
    check(isinstance(d.get("metadata"), dict), "metadata")
    return d


def ts_ns(e):
    ts = e["ts"]
    check(isinstance(ts, (decimal.Decimal, int)), "ts not a number: %r" % (e,))
    ns = decimal.Decimal(ts) * 1000
    check(ns == ns.to_integral_value(), "ts %s is not whole nanoseconds" % ts)
    return int(ns)


def records(d):
    """The events of records: not metadata (M), not the evtrace:* ones."""
    return [e for e in d["traceEvents"] if e["ph"] != "M" and e.get("cat") != "evtrace"]


def check_common(d, late_names=False):
    """late_names: a thread may be named after its first event (kernel files, names
    learned from sched_switch's fields)."""
    seen_tids = set()
    last = None
    for e in d["traceEvents"]:
        check(e["ph"] in ("i", "M", "B", "E"), "ph %r" % e["ph"])
        if e["ph"] == "M":
            check(e["name"] in ("thread_name", "process_name"), "M name %r" % e["name"])
            check(isinstance(e["args"]["name"], str), "M args.name")
            if e["name"] == "thread_name" and not late_names:
                check(e["tid"] not in seen_tids, "thread_name after the thread's events: %r" % e)
            continue
        if e["ph"] == "i":
            check(e["s"] in ("t", "g"), "scope %r" % e)
        t = ts_ns(e)
        check(last is None or t >= last, "time goes back at %r" % e)
        last = t
        if "tid" in e:
            seen_tids.add(e["tid"])
            check(isinstance(e["pid"], int) and isinstance(e["tid"], int), "pid/tid")
        check(isinstance(e["args"], dict), "args")
    names = {}
    for e in d["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            check(e["tid"] not in names, "two thread_name events for %d" % e["tid"])
            names[e["tid"]] = e["args"]["name"]
    return names


def s8(v):
    v &= 0xff
    return v - 256 if v >= 128 else v


def mode_app(d, expected, nthreads, per, weird_hex, raw_hex, comm_hex, nreq):
    names = check_common(d)
    recs = records(d)
    md = d["metadata"]
    with open(expected) as f:
        exp = [tuple(int(x) for x in line.split()) for line in f if line.strip()]
    check(md["records"] == len(exp), "metadata.records %s != %d" % (md["records"], len(exp)))
    check(md["dropped_events"] == 0, "dropped")
    check(len(recs) == len(exp), "%d record events, %d records" % (len(recs), len(exp)))
    got = collections.Counter((ts_ns(e), e["tid"], e["pid"]) for e in recs)
    want = collections.Counter(exp)
    check(got == want, "ts/tid/pid differ: got-want %s want-got %s" %
          (list((got - want).items())[:5], list((want - got).items())[:5]))
    counts = collections.Counter((e["cat"], e["name"]) for e in recs)
    per_kind = [sum(1 for i in range(per) if i % 4 == k) for k in range(4)]
    check(counts[("tdapp", "td_ints")] == nthreads * per_kind[0], "td_ints count")
    check(counts[("tdapp", "td_strings")] == nthreads * per_kind[1], "td_strings count")
    check(counts[("tdapp", "td_arrays")] == nthreads * per_kind[2], "td_arrays count")
    check(counts[("tdnet", "td_big")] == nthreads * per_kind[3], "td_big count")
    check(counts[("exapp", "ex_req_begin")] == nreq, "ex_req_begin count")
    check(counts[("exapp", "ex_weird")] == 1, "ex_weird count")
    worker_tid = {}
    for e in recs:
        a, n = e["args"], e["name"]
        if "worker" in a:
            w = a["worker"]
            check(worker_tid.setdefault(w, e["tid"]) == e["tid"], "worker %d on two tids" % w)
            check(names.get(e["tid"]) == "td worker %d" % w, "thread_name of %d: %r" %
                  (e["tid"], names.get(e["tid"])))
        if n == "td_ints":
            i = a["l"] + 7
            check(a["s8"] == s8(-i) and a["u16"] == (i * 3) & 0xffff and
                  a["s32"] == -i * 1000 and a["u64"] == i << 33, "td_ints %r" % a)
            check(set(a) == {"worker", "s8", "u16", "s32", "u64", "l"}, "td_ints keys %r" % a)
        elif n == "td_strings":
            check(a["tag"] == "tag-td", "tag %r" % a)
            check(a["msg"].startswith("message ") and
                  a["msg"].endswith(" of worker %d" % a["worker"]), "msg %r" % a)
        elif n == "td_arrays":
            w, b = a["worker"], a["bytes"]
            check(a["vals"] == [w * 10 + k for k in range(4)], "vals %r" % a)
            check(len(b) == 1 + b[0] % 9 and b == [(b[0] + k) & 0xff for k in range(len(b))],
                  "bytes %r" % a)
        elif n == "td_big":
            check(a["blob"] == "big-record" and a["payload"] == "payload-%d" % a["seq"],
                  "td_big %r" % a)
        elif n == "print":
            check(any(isinstance(v, str) and v.startswith("half way there")
                      for v in a.values()), "marker %r" % a)
        elif n == "ex_weird":
            want_s = bytes.fromhex(weird_hex).split(b"\0")[0].decode("utf-8", "replace")
            want_raw = bytes.fromhex(raw_hex).split(b"\0")[0].decode("utf-8", "replace")
            check(a["s"] == want_s, "weird string %r != %r" % (a["s"], want_s))
            check(a["raw"] == want_raw, "weird raw %r != %r" % (a["raw"], want_raw))
            check(a["neg"] == -2**63 and a["big"] == 2**64 - 1, "64-bit extremes %r" % a)
            want_comm = bytes.fromhex(comm_hex).decode("utf-8", "replace")
            check(names.get(e["tid"]) == want_comm, "weird comm %r != %r" %
                  (names.get(e["tid"]), want_comm))
    check(len(worker_tid) == nthreads, "workers %r" % worker_tid)
    # the raw text: the escapes JSON requires, nothing raw below 0x20
    with open(sys.argv[2], "rb") as f:
        raw = f.read()
    body = raw.replace(b"\n", b"")
    check(not any(c < 0x20 for c in body), "a raw control character in the output")


def mode_durations(d, nreq):
    check_common(d)
    ev = d["traceEvents"]
    b = [e for e in ev if e["ph"] == "B"]
    e_ = [e for e in ev if e["ph"] == "E"]
    check(len(b) == nreq and len(e_) == nreq, "B %d E %d, want %d" % (len(b), len(e_), nreq))
    check(all(e["name"] == "ex_req" and e["cat"] == "exapp" for e in b + e_), "B/E names")
    check(all(e["args"]["id"] in range(nreq) for e in b + e_), "B/E args")
    check(not any(e["name"].startswith("ex_req_") for e in ev), "ex_req_* left")
    pe = [e for e in ev if e["name"] == "ex_proc_exit"]
    check(len(pe) == 1 and pe[0]["ph"] == "i", "ex_proc_exit %r" % pe)
    # per thread, B and E alternate (begin, end, begin, end)
    depth = collections.Counter()
    for e in ev:
        if e["ph"] == "B":
            depth[e["tid"]] += 1
            check(depth[e["tid"]] == 1, "nested B")
        elif e["ph"] == "E":
            depth[e["tid"]] -= 1
            check(depth[e["tid"]] == 0, "E without B")


def mode_corrupt(d, total):
    check_common(d)
    md = d["metadata"]
    check(str(md.get("error", "")).startswith("offset "), "metadata.error %r" % md.get("error"))
    check(md["records"] < total, "records %s of %d" % (md["records"], total))
    check(len(records(d)) == md["records"], "record events %d != %s" %
          (len(records(d)), md["records"]))


def mode_kernel(d, nrec):
    names = check_common(d, late_names=True)
    recs = records(d)
    check(d["metadata"]["records"] == nrec and len(recs) == nrec, "records")
    check(d["metadata"]["clock"] == "local", "clock")
    check({(e["cat"], e["name"]) for e in recs} == {("sched", "sched_switch"),
                                                    ("sched", "sched_wakeup")}, "names")
    first = recs[0]
    check(first["name"] == "sched_switch" and first["tid"] == 4906 and first["pid"] == 4906,
          "first %r" % first)
    check(first["ts"] == decimal.Decimal("5098270170.580"), "first ts %s" % first["ts"])
    check(first["args"] == {"prev_comm": "man", "prev_pid": 4906, "prev_prio": 120,
                            "prev_state": 0, "next_comm": "clang", "next_pid": 4871,
                            "next_prio": 120}, "first args %r" % first["args"])
    check(names.get(15) == "rcu_preempt", "thread 15: %r" % names.get(15))
    # not in the file's saved cmdlines: learned from sched_switch's prev_comm/next_comm
    check(names.get(4906) == "man" and names.get(4848) == "clang", "learned names %r" %
          [names.get(4906), names.get(4848)])
    check(all(e["pid"] == e["tid"] for e in recs), "kernel files: pid = tid")
    wake = [e for e in recs if e["name"] == "sched_wakeup"][0]
    check(wake["args"] == {"comm": "memfd:sealed-91", "pid": 3635, "prio": 120,
                           "target_cpu": 0}, "sched_wakeup %r" % wake["args"])


def mode_lost(d, written):
    check_common(d)
    md = d["metadata"]
    drops = [e for e in d["traceEvents"] if e.get("cat") == "evtrace"]
    check(len(drops) > 0, "no events dropped event")
    for e in drops:
        check(e["ph"] == "i" and e["s"] == "g" and e["name"] == "events dropped", "drop %r" % e)
        check(e["args"]["cpu"] == 0 and isinstance(e["args"]["count"], int), "drop args %r" % e)
    total = sum(e["args"]["count"] for e in drops)
    check(md["dropped_events"] == total, "dropped_events %s != %d" % (md["dropped_events"], total))
    check(md["records"] == len(records(d)), "records")
    check(md["records"] + total == written, "%s records + %d dropped != %d written" %
          (md["records"], total, written))
    # each drop comes just before a record of its CPU, at that record's time
    evs = d["traceEvents"]
    for i, e in enumerate(evs):
        if e.get("cat") == "evtrace":
            nxt = [x for x in evs[i + 1:] if x["ph"] != "M"][0]
            check(nxt.get("cat") != "evtrace" and nxt["ts"] == e["ts"], "drop then %r" % nxt)


def mode_openat(d, nrec, durations):
    names = check_common(d, late_names=True)
    ev = [e for e in d["traceEvents"] if e["ph"] != "M"]
    check(d["metadata"]["records"] == nrec and len(ev) == nrec, "records")
    kinds = collections.Counter((e["ph"], e["cat"], e["name"]) for e in ev)
    enter = ("B", "syscalls", "openat") if durations else ("i", "syscalls", "sys_enter_openat")
    exit_ = ("E", "syscalls", "openat") if durations else ("i", "syscalls", "sys_exit_openat")
    check(set(kinds) == {enter, exit_, ("i", "sched", "sched_process_exec"),
                         ("i", "sched", "sched_process_exit")}, "kinds %r" % kinds)
    # the first sys_enter_openat of the shell came before sys_exit_openat was enabled
    check(kinds[enter] == kinds[exit_] + 1, "enter/exit %r" % kinds)
    for e in ev:
        a = e["args"]
        check(e["pid"] == e["tid"], "kernel files: pid = tid")
        if e["name"] in ("openat", "sys_enter_openat") and e["ph"] != "E":
            check(a["__syscall_nr"] == 257 and isinstance(a["filename"], str) and
                  a["filename"].startswith("0x") and int(a["filename"], 16) > 0 and
                  set(a) == {"__syscall_nr", "dfd", "filename", "flags", "mode"},
                  "openat enter %r" % a)
        elif e["name"] in ("openat", "sys_exit_openat"):
            check(set(a) == {"__syscall_nr", "ret"} and (a["ret"] >= 0 or a["ret"] == -2),
                  "openat exit %r" % a)
        elif e["name"] == "sched_process_exec":
            check(a["filename"] in ("/usr/bin/cat", "/usr/bin/ls") and a["pid"] == e["tid"],
                  "exec %r" % a)
            check(names.get(e["tid"]) == a["filename"].rsplit("/", 1)[1], "exec'd thread name")
        else:
            check(a["comm"] == names.get(e["tid"]) and a["pid"] == e["tid"], "exit %r" % a)


def mode_select(d, total, count, names, field=None):
    check_common(d)
    recs = records(d)
    md = d["metadata"]
    check(len(recs) == count and md["records"] == count, "%d records, want %d" %
          (len(recs), count))
    check(md.get("skipped", 0) == total - count, "skipped %r, want %d" %
          (md.get("skipped"), total - count))
    check(all(e["name"] in names.split(",") for e in recs), "names")
    if field:
        k, v = field.split("=")
        check(all(e["args"].get(k) == int(v) for e in recs), "%s" % field)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    d = load(path)
    a = sys.argv[3:]
    if mode == "app":
        mode_app(d, a[0], int(a[1]), int(a[2]), a[3], a[4], a[5], int(a[6]))
    elif mode == "durations":
        mode_durations(d, int(a[0]))
    elif mode == "corrupt":
        mode_corrupt(d, int(a[0]))
    elif mode == "kernel":
        mode_kernel(d, int(a[0]))
    elif mode == "openat":
        mode_openat(d, int(a[0]), int(a[1]))
    elif mode == "select":
        mode_select(d, int(a[0]), int(a[1]), a[2], a[3] if len(a) > 3 else None)
    elif mode == "lost":
        mode_lost(d, int(a[0]))
    else:
        fail("mode %s" % mode)
    print("ok", mode)


main()
