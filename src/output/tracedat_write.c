// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_write.c - an instance's trace as a trace.dat file (trace-cmd's
 * format, version 6: one flat stream, docs/tracedat.md).
 *
 * The file is built in memory (the header part, then each CPU's pages as
 * evt_ring_buffer_read_page() hands them out, which is the layout
 * trace-cmd reads) and written out in one pass, so @fd may be a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/clock.h>
#include <evtrace/events.h>
#include <evtrace/instance.h>
#include <evtrace/ring_buffer.h>
#include <evtrace/tracedat.h>

#include "events/event_internal.h"
#include "output/tracedat_internal.h"

struct obuf {
	unsigned char *p;
	size_t len, size;
	int err;		/* first error (-ENOMEM), sticky */
};

static void ob_put(struct obuf *b, const void *data, size_t len)
{
	if (b->err)
		return;
	if (len > b->size - b->len) {
		size_t nsize = b->size ? b->size : 4096;
		unsigned char *np;

		while (nsize - b->len < len) {
			if (nsize > SIZE_MAX / 2) {
				b->err = -ENOMEM;
				return;
			}
			nsize *= 2;
		}
		np = realloc(b->p, nsize);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->size = nsize;
	}
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
}

/* Numbers go out in the host's byte order (byte 10 of the file says which). */
static void ob_u16(struct obuf *b, uint16_t v) { ob_put(b, &v, sizeof(v)); }
static void ob_u32(struct obuf *b, uint32_t v) { ob_put(b, &v, sizeof(v)); }
static void ob_u64(struct obuf *b, uint64_t v) { ob_put(b, &v, sizeof(v)); }
static void ob_str0(struct obuf *b, const char *s) { ob_put(b, s, strlen(s) + 1); }

static void ob_pad(struct obuf *b, size_t align)
{
	static const unsigned char zero[64];

	while (!b->err && b->len % align) {
		size_t n = align - b->len % align;

		ob_put(b, zero, n < sizeof(zero) ? n : sizeof(zero));
	}
}

/* u64 length + text (header_page, header_event, formats, cmdlines). */
static void ob_text64(struct obuf *b, const char *text, size_t len)
{
	ob_u64(b, len);
	ob_put(b, text, len);
}

/* --- event formats ------------------------------------------------------------------ */

/*
 * The events are listed first (evt_event_foreach() holds the event mutex,
 * which evt_event_format_text() takes too), then their texts fetched.
 */
struct ev_name {
	char *system, *name;
};

struct ev_list {
	struct ev_name *v;
	size_t n, cap;
	int err;
};

static int list_one(struct evt_event *ev, void *arg)
{
	struct ev_list *l = arg;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		struct ev_name *nv = realloc(l->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n].system = strdup(evt_event_system(ev));
	l->v[l->n].name = strdup(evt_event_name(ev));
	if (!l->v[l->n].system || !l->v[l->n].name) {
		free(l->v[l->n].system);
		free(l->v[l->n].name);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* The `format` text of one event into *@buf (grown as needed). Return: its length. */
static int format_text(const struct ev_name *e, char **buf, size_t *bufsize)
{
	for (;;) {
		int n = evt_event_format_text(e->system, e->name, *buf, *bufsize);

		if (n < 0)
			return n;
		if (*buf && (size_t)n < *bufsize)
			return n;
		if (n > (1 << 24))
			return -EFBIG;
		free(*buf);
		*bufsize = (size_t)n + 1;
		*buf = malloc(*bufsize);
		if (!*buf) {
			*bufsize = 0;
			return -ENOMEM;
		}
	}
}

static void free_formats(struct evt_tracedat_format *fmts, size_t nr)
{
	for (size_t i = 0; fmts && i < nr; i++) {
		free((char *)fmts[i].system);
		free((char *)fmts[i].name);
		free((char *)fmts[i].text);
	}
	free(fmts);
}

/* Every registered event's `format` text, in (system, name) order. */
static int collect_formats(struct evt_tracedat_format **fmtsp, size_t *nrp)
{
	struct evt_tracedat_format *fmts = NULL;
	struct ev_list l = { 0 };
	size_t bufsize = 0, nr = 0;
	char *buf = NULL;
	int ret;

	ret = evt_event_foreach(NULL, NULL, list_one, &l);
	if (!ret && l.n) {
		fmts = calloc(l.n, sizeof(*fmts));
		if (!fmts)
			ret = -ENOMEM;
	}
	for (size_t i = 0; !ret && i < l.n; i++) {
		int n = format_text(&l.v[i], &buf, &bufsize);

		if (n == -ENOENT)	/* unregistered meanwhile */
			continue;
		if (n < 0) {
			ret = n;
			break;
		}
		fmts[nr].text = malloc((size_t)n + 1);
		if (!fmts[nr].text) {
			ret = -ENOMEM;
			break;
		}
		memcpy((char *)fmts[nr].text, buf, (size_t)n + 1);
		fmts[nr].len = (size_t)n;
		fmts[nr].system = l.v[i].system;	/* moved: not freed below */
		fmts[nr].name = l.v[i].name;
		l.v[i].system = l.v[i].name = NULL;
		nr++;
	}
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].system);
		free(l.v[i].name);
	}
	free(l.v);
	free(buf);
	if (ret) {
		free_formats(fmts, nr);
		return ret;
	}
	*fmtsp = fmts;
	*nrp = nr;
	return 0;
}

/*
 * The ftrace formats (u32 count, then u64 length + text each), then the
 * systems (u32 count; per system its name, u32 count, formats). Formats of
 * one system must be adjacent in @fmts.
 */
static void write_formats(struct obuf *b, const struct evt_tracedat_format *fmts, size_t nr)
{
	size_t count_pos = 0;
	uint32_t nev = 0, nsys = 0;
	const char *sys = NULL;

	for (int pass = 0; pass < 2; pass++) {
		size_t pos = b->len;

		nev = 0;
		ob_u32(b, 0);
		for (size_t i = 0; i < nr && !b->err; i++) {
			bool is_ftrace = !strcmp(fmts[i].system, "ftrace");

			if (is_ftrace != (pass == 0))
				continue;
			if (pass == 1 && (!sys || strcmp(sys, fmts[i].system))) {
				if (sys)
					memcpy(b->p + count_pos, &nev, sizeof(nev));
				sys = fmts[i].system;
				ob_str0(b, sys);
				count_pos = b->len;
				ob_u32(b, 0);
				nev = 0;
				nsys++;
			}
			ob_text64(b, fmts[i].text, fmts[i].len);
			nev++;
		}
		if (b->err)
			return;
		if (pass == 0) {
			memcpy(b->p + pos, &nev, sizeof(nev));
		} else {
			if (sys)
				memcpy(b->p + count_pos, &nev, sizeof(nev));
			memcpy(b->p + pos, &nsys, sizeof(nsys));
		}
	}
}

/* --- texts ---------------------------------------------------------------------------- */

/* A text from one of the library's snprintf-style producers, in a malloc'd buffer. */
static char *grab_text(int (*fn)(char *, size_t), int *lenp)
{
	size_t size = 4096;
	char *buf = NULL;

	for (;;) {
		char *nb = realloc(buf, size);
		int n;

		if (!nb) {
			free(buf);
			return NULL;
		}
		buf = nb;
		n = fn(buf, size);
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if ((size_t)n < size) {
			*lenp = n;
			return buf;
		}
		size = (size_t)n + 1;
	}
}

static const char header_event_text[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/*
 * kallsyms: one symbol at EVENT_PRINT_IP, the ip of our ftrace:print records,
 * so that trace-cmd and KernelShark print them as the kernel's
 * ("tracing_mark_write: text"). Not at 0: libtraceevent names an address by
 * its exact symbol, and kernel_stack's print format reads all 8 caller slots,
 * so KernelShark would print each empty slot (0) as tracing_mark_write.
 */
static const char kallsyms_text[] = "0000000000000001 T tracing_mark_write\n";
_Static_assert(EVENT_PRINT_IP == 1, "kallsyms_text names address 1");

/*
 * Clocks trace-cmd prints as seconds (it divides by 1e9) when the file names
 * them; any other name prints the raw number.
 */
bool tracedat_clock_is_secs(const char *name)
{
	static const char *const secs[] = { "local", "global", "uptime", "perf", "tai", NULL };

	if (!strncmp(name, "mono", 4))
		return true;
	for (int i = 0; secs[i]; i++)
		if (!strcmp(name, secs[i]))
			return true;
	return false;
}

/* --- pages ----------------------------------------------------------------------------- */

/* Every page of @cpu that can be read now, at most what the ring holds plus one. */
static int read_cpu_pages(struct evt_ring_buffer *rb, int cpu, struct obuf *out)
{
	unsigned int psize = evt_ring_buffer_page_size(rb);
	unsigned long max = evt_ring_buffer_size(rb, cpu) / psize + 2;
	unsigned char *page = malloc(psize);
	int ret = 0;

	if (!page)
		return -ENOMEM;
	for (unsigned long i = 0; i < max; i++) {
		ret = evt_ring_buffer_read_page(rb, cpu, page, psize);
		if (ret == -EAGAIN || ret == 0) {
			ret = 0;
			break;
		}
		if (ret < 0)
			break;
		ob_put(out, page, psize);
		ret = out->err;
		if (ret)
			break;
	}
	free(page);
	return ret;
}

int tracedat_write_all(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int tracedat_header(const struct tracedat_desc *d, unsigned char **out, size_t *lenp)
{
	struct obuf hdr = { 0 };
	char hp[256], clocks[512];
	size_t table_pos;
	uint64_t off;
	bool named;
	int n;

	if (!d || !out || !lenp || d->nr_cpus <= 0 || d->page_size < 256 || !d->cpu_bytes ||
	    (d->nr_formats && !d->formats))
		return -EINVAL;

	/* magic, version, byte order, long size, page size */
	ob_put(&hdr, "\x17\x08\x44tracing", 10);
	ob_str0(&hdr, "6");
	{
		uint16_t one = 1;
		unsigned char be = *(unsigned char *)&one == 0;

		ob_put(&hdr, &be, 1);
	}
	ob_put(&hdr, &(unsigned char){ 8 }, 1);
	ob_u32(&hdr, d->page_size);

	/* header_page: the page header as tracefs shows it (one-token types!) */
	n = snprintf(hp, sizeof(hp),
		     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		     "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n",
		     d->page_size - EVT_RB_PAGE_HDR_SIZE);
	ob_str0(&hdr, "header_page");
	ob_text64(&hdr, hp, (size_t)n);
	ob_str0(&hdr, "header_event");
	ob_text64(&hdr, header_event_text, sizeof(header_event_text) - 1);

	write_formats(&hdr, d->formats, d->nr_formats);

	/*
	 * kallsyms: one symbol, so that trace-cmd prints trace_marker records
	 * (ftrace:print, ip EVENT_PRINT_IP) as the kernel's: "tracing_mark_write: ...".
	 */
	ob_u32(&hdr, sizeof(kallsyms_text) - 1);
	ob_put(&hdr, kallsyms_text, sizeof(kallsyms_text) - 1);
	ob_u32(&hdr, 0);	/* printk formats */
	ob_text64(&hdr, d->cmdlines ? d->cmdlines : "", d->cmdlines ? d->cmdlines_len : 0);
	if (d->meta_len)
		*d->meta_len = hdr.len; /* what trace-cmd's network protocol calls metadata */
	ob_u32(&hdr, (uint32_t)d->nr_cpus);

	/*
	 * Options. TRACECLOCK only for clocks trace-cmd shows as seconds: a
	 * nanosecond clock it does not know (boot) would print raw numbers,
	 * and without the option it prints seconds, as our `trace` does.
	 * Counting clocks (counter, x86-tsc) are named, so they print raw.
	 */
	{
		const char *clock = d->clock && *d->clock ? d->clock : "local";
		size_t cl = d->clock_list ? strlen(d->clock_list) : 0;

		if (cl && cl < sizeof(clocks)) {
			memcpy(clocks, d->clock_list, cl + 1);
			n = (int)cl;
		} else {
			n = snprintf(clocks, sizeof(clocks), "[%s]\n", clock);
		}
		named = tracedat_clock_is_secs(clock) ||
			(evt_clock_by_name(clock) >= 0 && !evt_clock_is_ns(evt_clock_by_name(clock)));
	}
	ob_put(&hdr, "options  ", 10);
	if (named) {
		ob_u16(&hdr, TRACEDAT_OPT_TRACECLOCK);
		ob_u32(&hdr, (uint32_t)n + 1);
		ob_put(&hdr, clocks, (size_t)n + 1);
	}
	if (d->date) {
		ob_u16(&hdr, TRACEDAT_OPT_DATE);
		ob_u32(&hdr, (uint32_t)strlen(d->date) + 1);
		ob_put(&hdr, d->date, strlen(d->date) + 1);
	}
	ob_u16(&hdr, TRACEDAT_OPT_CPUCOUNT);
	ob_u32(&hdr, 4);
	ob_u32(&hdr, (uint32_t)d->nr_cpus);
	ob_u16(&hdr, 0);	/* end: a bare 0 with no size (v6) */

	ob_put(&hdr, "flyrecord", 10);
	table_pos = hdr.len;
	for (int i = 0; i < d->nr_cpus; i++) {
		ob_u64(&hdr, 0);
		ob_u64(&hdr, 0);
	}
	if (named)
		ob_text64(&hdr, clocks, (size_t)n);
	ob_pad(&hdr, d->page_size);
	if (hdr.err) {
		free(hdr.p);
		return hdr.err;
	}

	/* the pages follow: each CPU's at a multiple of the page size */
	off = hdr.len;
	for (int i = 0; i < d->nr_cpus; i++) {
		uint64_t cpu_off = d->cpu_bytes[i] ? off : 0;

		memcpy(hdr.p + table_pos + 16 * (size_t)i, &cpu_off, 8);
		memcpy(hdr.p + table_pos + 16 * (size_t)i + 8, &d->cpu_bytes[i], 8);
		off += d->cpu_bytes[i];
	}
	*out = hdr.p;
	*lenp = hdr.len;
	return 0;
}

long long evt_tracedat_write(struct evt_instance *inst, int fd, unsigned int flags)
{
	struct evt_tracedat_format *fmts = NULL;
	struct tracedat_desc d = { 0 };
	struct obuf *cpus = NULL;
	struct evt_ring_buffer *rb;
	unsigned char *hdr = NULL;
	uint64_t *sizes = NULL;
	char *cmdlines = NULL, clocks[512];
	int ncpus, n, cmdlen = 0, ret;
	size_t nfmts = 0, hlen = 0;
	unsigned int psize;
	long long total = 0;

	if (flags || fd < 0)
		return -EINVAL;
	if (!inst)
		inst = evt_instance_top();
	if (!inst)
		return -ENOMEM;
	rb = evt_instance_ring_buffer(inst);
	if (!rb)
		return -EINVAL;
	ncpus = evt_instance_nr_cpus(inst);
	psize = evt_ring_buffer_page_size(rb);
	if (ncpus <= 0 || psize < 256)
		return -EINVAL;

	ret = collect_formats(&fmts, &nfmts);
	if (ret)
		goto out;
	cmdlines = grab_text(evt_saved_cmdlines_text, &cmdlen);
	cpus = calloc((size_t)ncpus, sizeof(*cpus));
	sizes = calloc((size_t)ncpus, sizeof(*sizes));
	if (!cmdlines || !cpus || !sizes) {
		ret = -ENOMEM;
		goto out;
	}
	n = evt_instance_clock_list(inst, clocks, sizeof(clocks));
	if (n < 0 || (size_t)n >= sizeof(clocks))
		clocks[0] = '\0';
	for (int i = 0; i < ncpus; i++) {
		ret = read_cpu_pages(rb, i, &cpus[i]);
		if (ret)
			goto out;
		sizes[i] = cpus[i].len;
	}
	d.page_size = psize;
	d.nr_cpus = ncpus;
	d.clock = evt_instance_clock(inst);
	d.clock_list = clocks;
	d.formats = fmts;
	d.nr_formats = nfmts;
	d.cmdlines = cmdlines;
	d.cmdlines_len = (size_t)cmdlen;
	d.cpu_bytes = sizes;
	ret = tracedat_header(&d, &hdr, &hlen);
	if (ret)
		goto out;
	ret = tracedat_write_all(fd, hdr, hlen);
	total = (long long)hlen;
	for (int i = 0; !ret && i < ncpus; i++) {
		ret = tracedat_write_all(fd, cpus[i].p, cpus[i].len);
		total += (long long)cpus[i].len;
	}
out:
	if (cpus)
		for (int i = 0; i < ncpus; i++)
			free(cpus[i].p);
	free(cpus);
	free(sizes);
	free(hdr);
	free(cmdlines);
	free_formats(fmts, nfmts);
	return ret ? ret : total;
}

long long evt_tracedat_write_file(struct evt_instance *inst, const char *path, unsigned int flags)
{
	long long ret;
	int fd;

	if (!path)
		return -EINVAL;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = evt_tracedat_write(inst, fd, flags);
	if (close(fd) < 0 && ret >= 0)
		ret = -errno;
	return ret;
}
