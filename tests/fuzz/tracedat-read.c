// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the trace.dat reader (evt_tracedat_open_mem, _next, _print)
 * over untrusted bytes.
 *
 * The input is copied into a heap block of exactly its size (reads past
 * it are caught by AddressSanitizer), opened, and every record read and
 * printed. Checks: an open that fails leaves a message naming the offset;
 * every record lies inside the input; a read ends (0) or fails (-EBADMSG)
 * with a message naming the offset, and stays ended.
 *
 * Seeds (tests/fuzz/corpus/tracedat-read/): a file evtrace wrote
 * (tracedat-readback's recording: 4 threads, 2 systems, a marker), a
 * kernel-made file (sched_switch/sched_wakeup from `trace-cmd extract`,
 * converted to v6 and cut to 2 pages per CPU, formats of those two events
 * only, no kallsyms), the same with its pages in an instance buffer (a
 * BUFFER option, as `trace-cmd extract -B` writes), and truncated copies.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/seq.h>
#include <evtrace/tracedat.h>

static void check(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	char err[200], line[4096];
	struct evt_seq s;
	int ret, n = 0;

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	err[0] = '\0';
	ret = evt_tracedat_open_mem(buf, size, &td, err, sizeof(err));
	if (ret) {
		check(ret == -EBADMSG || ret == -EPROTO || ret == -ENOMEM);
		check(ret == -ENOMEM || !strncmp(err, "offset ", 7));
		free(buf);
		return 0;
	}
	for (int i = 0; i < evt_tracedat_nr_events(td); i++)
		check(evt_tracedat_event(td, i) != NULL);
	while ((ret = evt_tracedat_next(td, &rec)) == 1 && n++ < 100000) {
		/* the record lies in the file (its bytes come from an aligned copy of its page) */
		check(rec.offset >= 0 && (size_t)rec.offset + rec.size <= size);
		check(rec.cpu >= 0 && rec.cpu < evt_tracedat_nr_cpus(td));
		evt_seq_init(&s, line, sizeof(line));
		evt_tracedat_print(td, &rec, &s);
	}
	if (ret < 0) {
		check(ret == -EBADMSG);
		check(!strncmp(evt_tracedat_error(td), "offset ", 7));
		check(evt_tracedat_next(td, &rec) == -EBADMSG);
	}
	evt_tracedat_close(td);
	free(buf);
	return 0;
}
