// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rec-journal.c - the recording journal (evtrace-journal.h): appending to
 * it while `record`/`extract` drain, reading it back, and writing the
 * trace.dat it holds (at a record's end, and by `evtrace recover` after a
 * kill). docs/tracedat.md, "The recording journal", has the layout:
 *
 *   header   64 bytes: RJ_MAGIC, u32 version (1), u32 header size (64), zeros
 *   records  u32 RJ_REC_MAGIC, u16 type, u16 source, u32 cpu, u32 length,
 *            then the payload, padded with zeros to 8 bytes
 *
 * A record is written by one pwritev() at the end of the last whole one;
 * one that fails is cut off again, so the journal is always whole records
 * and, after a kill, at most one torn record at its end. The reader stops
 * at the first record that is not whole and valid and keeps what came
 * before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <evtrace/error.h>
#include <evtrace/tracedat.h>

#include "evtrace-cmd.h"
#include "evtrace-journal.h"

#define RJ_VERSION	1
#define RJ_HDR_SIZE	64
#define RJ_REC_MAGIC	0x4352564aU /* "JVRC" in memory, little endian */
#define RJ_PAGE		1
#define RJ_META		2
#define RJ_MAX_META	(64u << 20) /* a process's formats and names */
#define RJ_MAX_CPUS	4096
#define RJ_MAX_SRC	65536

struct rj_rec {
	uint32_t magic;
	uint16_t type;
	uint16_t src;
	uint32_t cpu;
	uint32_t len;
};

/* --- writing ------------------------------------------------------------------------- */

int rj_start(struct rj *j, int fd)
{
	unsigned char hdr[RJ_HDR_SIZE] = { 0 };
	uint32_t v[2] = { RJ_VERSION, RJ_HDR_SIZE };

	j->fd = fd;
	j->size = 0;
	j->err = 0;
	memcpy(hdr, RJ_MAGIC, RJ_MAGIC_LEN);
	memcpy(hdr + RJ_MAGIC_LEN, v, sizeof(v));
	if (ftruncate(fd, 0) < 0 || pwrite(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		return j->err = errno ? -errno : -EIO;
	j->size = RJ_HDR_SIZE;
	return 0;
}

static int rj_put(struct rj *j, unsigned int type, unsigned int src, unsigned int cpu,
		  const void *data, size_t len)
{
	static const unsigned char zero[8];
	struct rj_rec h = { RJ_REC_MAGIC, (uint16_t)type, (uint16_t)src, cpu, (uint32_t)len };
	size_t pad = (8 - len % 8) % 8, total = sizeof(h) + len + pad, done = 0;
	struct iovec iov[3] = {
		{ &h, sizeof(h) }, { (void *)data, len }, { (void *)zero, pad },
	};

	if (j->err)
		return j->err;
	if (src >= RJ_MAX_SRC || len > UINT32_MAX)
		return -EINVAL;
	while (done < total) {
		ssize_t n = pwritev(j->fd, iov, 3, (off_t)(j->size + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			j->err = n < 0 ? -errno : -EIO;
			/* the journal ends at the last whole record again */
			if (ftruncate(j->fd, (off_t)j->size) < 0)
				(void)0; /* what the reader finds there is a torn record: cut */
			return j->err;
		}
		done += (size_t)n;
		for (int i = 0; i < 3 && n > 0; i++) {
			size_t k = (size_t)n < iov[i].iov_len ? (size_t)n : iov[i].iov_len;

			iov[i].iov_base = (char *)iov[i].iov_base + k;
			iov[i].iov_len -= k;
			n -= (ssize_t)k;
		}
	}
	j->size += total;
	return 0;
}

int rj_put_page(struct rj *j, unsigned int src, unsigned int cpu, const void *page,
		unsigned int size)
{
	return rj_put(j, RJ_PAGE, src, cpu, page, size);
}

/* A growing byte buffer for a metadata record. */
struct mbuf {
	unsigned char *p;
	size_t len, cap;
	int err;
};

static void mb_put(struct mbuf *b, const void *data, size_t len)
{
	if (b->err)
		return;
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *np;

		while (cap - b->len < len)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void mb_u32(struct mbuf *b, uint32_t v)
{
	mb_put(b, &v, sizeof(v));
}

static void mb_str(struct mbuf *b, const char *s, size_t len)
{
	mb_u32(b, s ? (uint32_t)len : 0);
	if (s && len)
		mb_put(b, s, len);
}

int rj_put_meta(struct rj *j, unsigned int src, const struct rj_meta *m)
{
	struct mbuf b = { 0 };
	int ret;

	mb_u32(&b, (uint32_t)m->pid);
	mb_u32(&b, m->nr_cpus);
	mb_u32(&b, m->page_size);
	mb_u32(&b, (uint32_t)m->nfmts);
	mb_str(&b, m->clock, m->clock ? strlen(m->clock) : 0);
	mb_str(&b, m->clock_list, m->clock_list ? strlen(m->clock_list) : 0);
	mb_str(&b, m->cmdlines, m->cmdlines ? strlen(m->cmdlines) : 0);
	mb_str(&b, m->names, m->names ? strlen(m->names) : 0);
	for (size_t i = 0; i < m->nfmts; i++) {
		mb_str(&b, m->fmts[i].system, strlen(m->fmts[i].system));
		mb_str(&b, m->fmts[i].name, strlen(m->fmts[i].name));
		mb_str(&b, m->fmts[i].text, m->fmts[i].len);
	}
	/* after the formats: a reader that stops there still reads the rest */
	mb_str(&b, m->date, m->date ? strlen(m->date) : 0);
	if (!b.err && b.len > RJ_MAX_META)
		b.err = -EFBIG;
	ret = b.err ? b.err : rj_put(j, RJ_META, src, 0, b.p, b.len);
	free(b.p);
	return ret;
}

/* --- reading -------------------------------------------------------------------------- */

struct jcpu {
	uint64_t *off; /* file offsets of its pages, in journal order */
	size_t n, cap;
};

struct jsrc {
	bool have;	/* a metadata record was read */
	long order;	/* the position of its first one */
	pid_t pid;
	unsigned int nr_cpus, page_size;
	char *clock, *clock_list, *cmdlines, *names, *date;
	struct rj_fmt *fmts;
	size_t nfmts;
	struct jcpu *cpu;
	bool in_file;
	uint64_t *npages; /* for the merge (as_source()): pages per CPU */
	struct evt_tracedat_format *tfmts; /* and its formats */
};

struct jfile {
	int fd;
	struct jsrc *src;
	unsigned int nsrc; /* 1 + the highest source index seen */
	long nmeta;
	unsigned int page_size;
	struct rj_summary *sum;
};

void rj_fmts_free(struct rj_fmt *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		free(f[i].system);
		free(f[i].name);
		free(f[i].text);
	}
	free(f);
}

static void jsrc_free_meta(struct jsrc *s)
{
	free(s->clock);
	free(s->clock_list);
	free(s->cmdlines);
	free(s->names);
	free(s->date);
	rj_fmts_free(s->fmts, s->nfmts);
	s->clock = s->clock_list = s->cmdlines = s->names = s->date = NULL;
	s->fmts = NULL;
	s->nfmts = 0;
}

static void jfile_free(struct jfile *jf)
{
	for (unsigned int i = 0; i < jf->nsrc; i++) {
		struct jsrc *s = &jf->src[i];

		jsrc_free_meta(s);
		for (unsigned int c = 0; s->cpu && c < s->nr_cpus; c++)
			free(s->cpu[c].off);
		free(s->cpu);
		free(s->npages);
		free(s->tfmts);
	}
	free(jf->src);
}

/* A bounded cursor over a metadata payload. */
struct mcur {
	const unsigned char *p;
	size_t left;
	bool bad;
};

static uint32_t mc_u32(struct mcur *c)
{
	uint32_t v = 0;

	if (c->left < 4) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 4);
	c->p += 4;
	c->left -= 4;
	return v;
}

/* A string of the payload, malloc'd and NUL-terminated; NULL for an empty one if @null. */
static char *mc_str(struct mcur *c, size_t *lenp, bool null)
{
	uint32_t len = mc_u32(c);
	char *s;

	if (c->bad || len > c->left) {
		c->bad = true;
		return NULL;
	}
	if (!len && null)
		return NULL;
	s = malloc((size_t)len + 1);
	if (!s) {
		c->bad = true;
		return NULL;
	}
	memcpy(s, c->p, len);
	s[len] = '\0';
	c->p += len;
	c->left -= len;
	if (lenp)
		*lenp = len;
	return s;
}

static int cmp_fmt(const void *a, const void *b)
{
	const struct rj_fmt *x = a, *y = b;
	int d = strcmp(x->system, y->system);

	return d ? d : strcmp(x->name, y->name);
}

/* Parse a metadata payload into @s (replacing what it had). Return: 0, or -EBADMSG. */
static int parse_meta(struct jfile *jf, struct jsrc *s, const unsigned char *p, size_t len)
{
	struct mcur c = { p, len, false };
	unsigned int nr_cpus, page_size;
	uint32_t nfmts;
	pid_t pid;

	pid = (pid_t)mc_u32(&c);
	nr_cpus = mc_u32(&c);
	page_size = mc_u32(&c);
	nfmts = mc_u32(&c);
	if (c.bad || !nr_cpus || nr_cpus > RJ_MAX_CPUS || page_size < 256 ||
	    page_size > (1u << 24) || (page_size & (page_size - 1)) || nfmts > len / 12)
		return -EBADMSG;
	/* a process's CPUs and pages do not change; every process's pages are one size */
	if ((s->have && (nr_cpus != s->nr_cpus || page_size != s->page_size)) ||
	    (jf->page_size && page_size != jf->page_size))
		return -EBADMSG;
	jsrc_free_meta(s);
	s->pid = pid;
	s->clock = mc_str(&c, NULL, false);
	s->clock_list = mc_str(&c, NULL, true);
	s->cmdlines = mc_str(&c, NULL, true);
	s->names = mc_str(&c, NULL, true);
	s->fmts = calloc(nfmts ? nfmts : 1, sizeof(*s->fmts));
	if (!s->fmts)
		return -ENOMEM;
	for (uint32_t i = 0; i < nfmts && !c.bad; i++) {
		struct rj_fmt *f = &s->fmts[i];

		f->system = mc_str(&c, NULL, false);
		f->name = mc_str(&c, NULL, false);
		f->text = mc_str(&c, &f->len, false);
		if (c.bad)
			break;
		s->nfmts++;
	}
	if (!c.bad && c.left)
		s->date = mc_str(&c, NULL, true);
	if (c.bad)
		return -EBADMSG;
	if (s->nfmts)
		qsort(s->fmts, s->nfmts, sizeof(*s->fmts), cmp_fmt);
	if (!s->have) {
		s->cpu = calloc(nr_cpus, sizeof(*s->cpu));
		if (!s->cpu)
			return -ENOMEM;
		s->nr_cpus = nr_cpus;
		s->page_size = page_size;
		s->order = jf->nmeta;
		s->have = true;
	}
	jf->page_size = page_size;
	jf->nmeta++;
	return 0;
}

static struct jsrc *jfile_src(struct jfile *jf, unsigned int src)
{
	if (src >= jf->nsrc) {
		unsigned int n = src + 1 > jf->nsrc * 2 ? src + 1 : jf->nsrc * 2;
		struct jsrc *ns = realloc(jf->src, n * sizeof(*ns));

		if (!ns)
			return NULL;
		memset(ns + jf->nsrc, 0, (n - jf->nsrc) * sizeof(*ns));
		jf->src = ns;
		jf->nsrc = n;
	}
	return &jf->src[src];
}

static int add_page(struct jcpu *c, uint64_t off)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		uint64_t *no = realloc(c->off, cap * sizeof(*no));

		if (!no)
			return -ENOMEM;
		c->off = no;
		c->cap = cap;
	}
	c->off[c->n++] = off;
	return 0;
}

/*
 * One record at @pos (of a file of @size bytes). Return: its size, 0 when
 * it is not whole and valid (the journal ends before it), or -ENOMEM.
 */
static long long scan_one(struct jfile *jf, uint64_t pos, uint64_t size)
{
	uint64_t total;
	struct rj_rec h;
	struct jsrc *s;

	if (size - pos < sizeof(h) || pread(jf->fd, &h, sizeof(h), (off_t)pos) != sizeof(h))
		return 0;
	total = sizeof(h) + (uint64_t)h.len + (8 - h.len % 8) % 8;
	if (h.magic != RJ_REC_MAGIC || total > size - pos)
		return 0;
	s = jfile_src(jf, h.src);
	if (!s)
		return -ENOMEM;
	if (h.type == RJ_PAGE) {
		if (!s->have || h.cpu >= s->nr_cpus || h.len != s->page_size)
			return 0;
		if (add_page(&s->cpu[h.cpu], pos + sizeof(h)))
			return -ENOMEM;
		return (long long)total;
	}
	if (h.type == RJ_META && h.len <= RJ_MAX_META) {
		unsigned char *p = malloc(h.len ? h.len : 1);
		int ret;

		if (!p)
			return -ENOMEM;
		if (pread(jf->fd, p, h.len, (off_t)(pos + sizeof(h))) != (ssize_t)h.len) {
			free(p);
			return 0;
		}
		ret = parse_meta(jf, s, p, h.len);
		free(p);
		if (ret == -ENOMEM)
			return ret;
		return ret ? 0 : (long long)total;
	}
	return 0;
}

int rj_is_journal(int fd)
{
	char m[RJ_MAGIC_LEN];
	ssize_t n = pread(fd, m, sizeof(m), 0);

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(m) && !memcmp(m, RJ_MAGIC, RJ_MAGIC_LEN);
}

static int jfile_load(struct jfile *jf, char *err, size_t errlen)
{
	unsigned char hdr[RJ_HDR_SIZE];
	uint32_t v[2];
	struct stat st;
	uint64_t pos;

	if (fstat(jf->fd, &st) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	if (pread(jf->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, RJ_MAGIC, RJ_MAGIC_LEN)) {
		snprintf(err, errlen, "not a recording journal (no '%.15s' header)", RJ_MAGIC);
		return -EBADMSG;
	}
	memcpy(v, hdr + RJ_MAGIC_LEN, sizeof(v));
	if (v[0] != RJ_VERSION || v[1] != RJ_HDR_SIZE) {
		snprintf(err, errlen, "journal version %u (this evtrace reads version %d)", v[0],
			 RJ_VERSION);
		return -EPROTO;
	}
	for (pos = RJ_HDR_SIZE; pos < (uint64_t)st.st_size;) {
		long long n = scan_one(jf, pos, (uint64_t)st.st_size);

		if (n < 0) {
			snprintf(err, errlen, "%s", strerror((int)-n));
			return (int)n;
		}
		if (n == 0)
			break;
		pos += (uint64_t)n;
	}
	jf->sum->journal_bytes = pos;
	jf->sum->torn_bytes = (uint64_t)st.st_size - pos;
	return 0;
}

/* --- the trace.dat ------------------------------------------------------------------------ */

/*
 * Which processes go into the file: those with pages (when none has any,
 * the first one set up, for a valid empty file). Return: the first set up.
 */
static struct jsrc *choose_sources(struct jfile *jf)
{
	struct jsrc *first = NULL;
	bool any = false;

	for (unsigned int k = 0; k < jf->nsrc; k++) {
		struct jsrc *s = &jf->src[k];

		if (!s->have)
			continue;
		jf->sum->sources++;
		if (!first || s->order < first->order)
			first = s;
		for (unsigned int c = 0; c < s->nr_cpus; c++)
			s->in_file |= s->cpu[c].n != 0;
		any |= s->in_file;
	}
	if (first && !any)
		first->in_file = true;
	return first;
}

/* The pages of the processes in the file, for evt_tracedat_write_merged(). */
struct jread {
	struct jfile *jf;
	struct jsrc **in; /* the processes in the file, in journal order */
};

static int read_page(void *ctx, unsigned int src, unsigned int cpu, uint64_t idx, void *buf)
{
	struct jread *jr = ctx;
	ssize_t n = pread(jr->jf->fd, buf, jr->jf->page_size, (off_t)jr->in[src]->cpu[cpu].off[idx]);

	if (n != (ssize_t)jr->jf->page_size)
		return n < 0 ? -errno : -EIO;
	return 0;
}

/* @s as a source of the merge: its page counts and formats, in arrays of its own. */
static int as_source(struct jsrc *s, struct evt_tracedat_source *out)
{
	s->npages = calloc(s->nr_cpus, sizeof(*s->npages));
	s->tfmts = calloc(s->nfmts ? s->nfmts : 1, sizeof(*s->tfmts));
	if (!s->npages || !s->tfmts)
		return -ENOMEM;
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		s->npages[c] = s->cpu[c].n;
	for (size_t i = 0; i < s->nfmts; i++)
		s->tfmts[i] = (struct evt_tracedat_format){ s->fmts[i].system, s->fmts[i].name,
							    s->fmts[i].text, s->fmts[i].len };
	*out = (struct evt_tracedat_source){ .nr_cpus = s->nr_cpus, .nr_pages = s->npages,
					     .formats = s->tfmts, .nr_formats = s->nfmts,
					     .cmdlines = s->cmdlines, .names = s->names };
	return 0;
}

/* What the summary says of the file: its CPUs' bytes (for `record -N`), its counts. */
static int summarize(struct jfile *jf, struct jread *jr, unsigned int nin,
		     const struct evt_tracedat_merge_stats *st)
{
	struct rj_summary *sum = jf->sum;

	sum->cpus = st->nr_cpus;
	sum->data_at = st->data_at;
	sum->meta_len = st->meta_len;
	sum->page_size = jf->page_size;
	sum->pages = st->pages;
	sum->records = st->records;
	sum->cpu_bytes = calloc(st->nr_cpus ? st->nr_cpus : 1, sizeof(*sum->cpu_bytes));
	if (!sum->cpu_bytes)
		return -ENOMEM;
	for (unsigned int k = 0, base = 0; k < nin; k++) {
		for (unsigned int c = 0; c < jr->in[k]->nr_cpus && base + c < st->nr_cpus; c++)
			sum->cpu_bytes[base + c] = (uint64_t)jr->in[k]->cpu[c].n * jf->page_size;
		base += jr->in[k]->nr_cpus;
	}
	return 0;
}

static int write_tracedat(struct jfile *jf, int outfd, char *err, size_t errlen)
{
	struct jsrc *first = choose_sources(jf);
	struct evt_tracedat_merge m = { .read_page = read_page };
	struct evt_tracedat_source *srcs = NULL;
	struct evt_tracedat_merge_stats st;
	struct jread jr = { .jf = jf };
	unsigned int nin = 0;
	long long n;
	int ret = 0;

	if (!first) {
		/* killed before any process was set up: a valid file with nothing in it */
		long ps = sysconf(_SC_PAGESIZE);

		jf->page_size = ps > 0 ? (unsigned int)ps : 4096;
	} else {
		m.clock = first->clock;
		m.clock_list = first->clock_list;
		m.date = first->date;
	}
	m.page_size = jf->page_size;
	m.ctx = &jr;
	jr.in = calloc(jf->nsrc ? jf->nsrc : 1, sizeof(*jr.in));
	srcs = calloc(jf->nsrc ? jf->nsrc : 1, sizeof(*srcs));
	if (!jr.in || !srcs)
		ret = -ENOMEM;
	for (unsigned int k = 0; !ret && k < jf->nsrc; k++) {
		if (!jf->src[k].in_file)
			continue;
		jr.in[nin] = &jf->src[k];
		ret = as_source(&jf->src[k], &srcs[nin++]);
	}
	jf->sum->in_file = (int)nin;
	m.sources = srcs;
	m.nr_sources = nin;
	n = ret ? ret : evt_tracedat_write_merged(&m, outfd, &st);
	ret = n < 0 ? (int)n : summarize(jf, &jr, nin, &st);
	if (ret)
		snprintf(err, errlen, "writing the trace.dat: %s", strerror(-ret));
	free(jr.in);
	free(srcs);
	return ret;
}

void rj_summary_free(struct rj_summary *sum)
{
	free(sum->cpu_bytes);
	sum->cpu_bytes = NULL;
}

int rj_convert(int jfd, int outfd, struct rj_summary *sum, char *err, size_t errlen)
{
	struct rj_summary dummy;
	struct jfile jf = { .fd = jfd };
	int ret;

	jf.sum = sum ? sum : &dummy;
	memset(jf.sum, 0, sizeof(*jf.sum));
	err[0] = '\0';
	ret = jfile_load(&jf, err, errlen);
	if (!ret)
		ret = write_tracedat(&jf, outfd, err, errlen);
	jfile_free(&jf);
	if (ret || !sum)
		rj_summary_free(jf.sum);
	if (ret && !err[0])
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

/* A new file in @path's directory to write into: unnamed (O_TMPFILE) if it can be. */
static int temp_beside(const char *path, char *tmp, size_t len, bool *named)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	int fd;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ? (int)(slash - path) : 1,
			 path);
	else
		snprintf(dir, sizeof(dir), ".");
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	*named = false;
	if (fd >= 0)
		return fd;
	snprintf(tmp, len, "%s.recover-XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*named = true;
	{
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, 0644 & ~um);
	}
	return fd;
}

int rj_convert_in_place(const char *path, struct rj_summary *sum, char *err, size_t errlen)
{
	char tmp[4200] = "";
	bool named = false;
	int jfd, ofd, ret;

	err[0] = '\0';
	jfd = open(path, O_RDONLY | O_CLOEXEC);
	if (jfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	ofd = temp_beside(path, tmp, sizeof(tmp), &named);
	if (ofd < 0) {
		ret = ofd;
		snprintf(err, errlen, "a new file beside it: %s", strerror(-ret));
		close(jfd);
		return ret;
	}
	ret = rj_convert(jfd, ofd, sum, err, errlen);
	if (!ret && fsync(ofd) < 0 && errno != EINVAL)
		ret = -errno;
	if (!ret && !named) {
		/* an unnamed file gets a name beside the journal, then takes the journal's */
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", ofd);
		snprintf(tmp, sizeof(tmp), "%s.recover-%d", path, (int)getpid());
		unlink(tmp);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) < 0)
			ret = -errno;
		else
			named = true;
	}
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret && !err[0])
		snprintf(err, errlen, "replacing the journal: %s", strerror(-ret));
	if (ret && named)
		unlink(tmp);
	close(ofd);
	close(jfd);
	return ret;
}

int rj_open_tracedat(const char *path, char *err, size_t errlen)
{
	int jfd = open(path, O_RDONLY | O_CLOEXEC), mfd, ret;

	if (jfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	mfd = memfd_create("evtrace-journal", MFD_CLOEXEC);
	if (mfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "memfd_create: %s", strerror(-ret));
		close(jfd);
		return ret;
	}
	ret = rj_convert(jfd, mfd, NULL, err, errlen);
	close(jfd);
	if (ret) {
		close(mfd);
		return ret;
	}
	return mfd;
}

/* evt_tracedat_open(), its failure's detail copied to @err */
static int td_open(const char *path, struct evt_tracedat **tdp, char *err, size_t errlen)
{
	int ret = evt_tracedat_open(path, tdp);

	if (ret && err && errlen)
		snprintf(err, errlen, "%s", evt_error_detail()[0] ? evt_error_detail() :
			 evt_strerror(ret));
	return ret;
}

int rj_tracedat_open(const char *path, struct evt_tracedat **tdp, char *err, size_t errlen)
{
	char proc[64];
	struct stat st;
	int fd, j, ret;

	/* only a regular file is looked at twice (a FIFO's bytes would be gone) */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return td_open(path, tdp, err, errlen);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	j = fd < 0 ? 0 : rj_is_journal(fd);
	if (fd >= 0)
		close(fd);
	if (j != 1)
		return td_open(path, tdp, err, errlen);
	fprintf(stderr, "evtrace: %s: an unfinished recording (a journal: its recorder was "
		"killed or failed), read as `evtrace recover` would make it\n", path);
	fd = rj_open_tracedat(path, err, errlen);
	if (fd < 0)
		return fd;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ret = td_open(proc, tdp, err, errlen);
	close(fd);
	return ret;
}
