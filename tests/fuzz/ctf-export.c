// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the CTF writer (evt_tracedat_export_ctf, src/output/ctf_write.c and ctf_meta.c)
 * over untrusted trace.dat bytes, as `evtrace export --format=ctf` runs it.
 *
 * The input is opened with evt_tracedat_open_mem() (from a heap block of exactly
 * its size); when it opens, every record is exported to a memory sink, with the
 * default packet size and with 1-byte packets (a packet per event). Checks: the
 * export returns 0, -EBADMSG (a corrupt page), -ERANGE (a CPU past 4095) or
 * -ENOMEM; the metadata comes first, starts with the CTF 1.8 signature, holds only
 * printable ASCII, tabs and newlines, and has balanced braces; each stream is a
 * whole number of packets, each with the magic and the UUID, content_size ==
 * packet_size (bits) no smaller than the header and context, begin <= end,
 * sequence numbers 0, 1, 2, ... and events_discarded never going down.
 *
 * Seeds (tests/fuzz/corpus/ctf-export/): the tracedat-export seeds of our files and
 * the kernel's (threads, weird fields, lost events, an instance buffer, a file cut
 * in its pages).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/tracedat.h>

#include "output/ctf_internal.h"

#define FZ_FILES 8

static void check(int cond)
{
	if (!cond)
		abort();
}

struct fz_file {
	unsigned char *p;
	size_t len, cap;
	int cpu;
};

struct fz_sink {
	struct fz_file meta, streams[FZ_FILES];
	int nr;
	int wrote_stream;
};

static int fz_append(struct fz_file *f, const void *buf, size_t len)
{
	if (f->len + len > f->cap) {
		size_t ncap = (f->len + len) * 2;
		unsigned char *np = realloc(f->p, ncap);

		if (!np)
			return -ENOMEM;
		f->p = np;
		f->cap = ncap;
	}
	memcpy(f->p + f->len, buf, len);
	f->len += len;
	return 0;
}

static int fz_write(void *ctx, int file, const void *buf, size_t len)
{
	struct fz_sink *s = ctx;

	if (file == EVT_CTF_FILE_METADATA) {
		check(!s->wrote_stream);
		return fz_append(&s->meta, buf, len);
	}
	check(file >= 0);
	s->wrote_stream = 1;
	for (int i = 0; i < s->nr; i++)
		if (s->streams[i].cpu == file)
			return fz_append(&s->streams[i], buf, len);
	if (s->nr == FZ_FILES)
		return 0; /* more CPUs than kept: not checked */
	s->streams[s->nr].cpu = file;
	return fz_append(&s->streams[s->nr++], buf, len);
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void check_meta(const struct fz_file *m)
{
	long depth = 0;

	check(m->len > 14 && !memcmp(m->p, "/* CTF 1.8 */\n", 14));
	for (size_t i = 0; i < m->len; i++) {
		unsigned char c = m->p[i];

		check((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t');
		depth += c == '{';
		depth -= c == '}';
		check(depth >= 0);
	}
	check(depth == 0);
}

static void check_stream(const struct fz_file *f, const unsigned char *uuid)
{
	uint64_t seq = 0, discarded = 0;
	size_t at = 0;

	while (at < f->len) {
		const unsigned char *p = f->p + at;
		uint32_t magic, cpu;
		uint64_t content;

		check(f->len - at >= CTF_PACKET_HDR);
		memcpy(&magic, p + CTF_PH_MAGIC, 4);
		memcpy(&cpu, p + CTF_PC_CPU, 4);
		check(magic == CTF_MAGIC);
		check(!memcmp(p + CTF_PH_UUID, uuid, 16));
		check(get64(p + CTF_PH_INSTANCE) == (uint64_t)f->cpu && cpu == (uint32_t)f->cpu);
		content = get64(p + CTF_PC_CONTENT);
		check(content == get64(p + CTF_PC_PACKET) && content % 8 == 0);
		check(content / 8 >= CTF_PACKET_HDR && content / 8 <= f->len - at);
		check(get64(p + CTF_PC_TS_BEGIN) <= get64(p + CTF_PC_TS_END));
		check(get64(p + CTF_PC_SEQ) == seq++);
		check(get64(p + CTF_PC_DISCARDED) >= discarded);
		discarded = get64(p + CTF_PC_DISCARDED);
		at += content / 8;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct evt_tracedat *td;

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	if (evt_tracedat_open_mem(buf, size, &td) == 0) {
		for (int small = 0; small < 2; small++) {
			struct evt_ctf_opts o = { .hostname = "fuzz\"\\\x01\xff", .source = "in\n",
					      .has_epoch = small, .epoch_offset_ns = -1,
					      .packet_bytes = small ? 1 : 0,
					      .freq = small ? 2096003215ULL : 0 };
			struct fz_sink s = { 0 };
			struct evt_ctf_sink sink = { fz_write, &s };
			struct evt_ctf_stats st;
			int ret;

			memset(o.uuid, 0xa5, sizeof(o.uuid));
			evt_tracedat_rewind(td);
			ret = evt_tracedat_export_ctf(td, &o, &sink, &st);
			check(ret == 0 || ret == -EBADMSG || ret == -ENOMEM || ret == -ERANGE);
			if (ret != -ENOMEM) {
				check_meta(&s.meta);
				for (int i = 0; i < s.nr; i++)
					check_stream(&s.streams[i], o.uuid);
			}
			free(s.meta.p);
			for (int i = 0; i < s.nr; i++)
				free(s.streams[i].p);
		}
		evt_tracedat_close(td);
	}
	free(buf);
	return 0;
}
