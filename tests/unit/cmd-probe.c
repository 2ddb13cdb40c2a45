// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmd-probe: probes on a program nobody wrote for evtrace (tests/victim/probe-victim.c:
 * linked with libevtrace, run with EVTRACE_CONTROL=1, nothing more), all from outside
 * with the evtrace command: `evtrace probe` adds an entry probe with a string deref, a
 * return probe with $retval and a probe on a static function; a refused definition
 * exits 1 with the kernel's message; `list -e` shows the events; `record -e` records
 * them and every value is checked against what the program computes; `probe -d` and
 * '-:EVENT' remove them; the program's text is byte-identical to what it was before
 * and the program is alive (it goes on serving and exits 0 at SIGTERM).
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>

#include <evtrace/control.h>

#include "cmd-record-util.h"
#include "probe-util.h"

#ifndef EVT_PROBE_VICTIM
#define EVT_PROBE_VICTIM "build/tests/victim/probe-victim"
#endif

static char out[1 << 20];
static char pidstr[16];

static pid_t start_victim(void)
{
	struct ctl_client *c;
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves nothing behind */
		setenv("EVTRACE_CONTROL", "1", 1);
		execl(EVT_PROBE_VICTIM, EVT_PROBE_VICTIM, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 2000; i++) {
		if (ctl_connect_pid(pid, &c) == 0) {
			ctl_close(c);
			return pid;
		}
		usleep(5000);
	}
	t_fail("%s serves no control socket", EVT_PROBE_VICTIM);
	return -1;
}

/*
 * The r-x mapping of the program's own file: [*@lo, *@hi), found once, before any patch
 * (a patch may split the mapping: the page it wrote is a private copy since).
 */
static void text_range(pid_t pid, unsigned long *lo, unsigned long *hi)
{
	char path[64], line[512], exe[4096];
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	T_ASSERT(n > 0);
	exe[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	T_ASSERT(f != NULL);
	*lo = *hi = 0;
	while (fgets(line, sizeof(line), f)) {
		char perms[8], file[4096] = "";

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", lo, hi, perms, file) >= 3 &&
		    perms[0] == 'r' && perms[2] == 'x' && !strcmp(file, exe))
			break;
		*lo = *hi = 0;
	}
	fclose(f);
	T_ASSERT(*hi > *lo);
}

/* Those bytes, read from /proc/PID/mem: malloc'd. */
static unsigned char *read_text(pid_t pid, unsigned long lo, unsigned long hi)
{
	unsigned char *buf = malloc(hi - lo);
	char path[64];
	int fd;

	T_ASSERT(buf != NULL);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0);
	T_ASSERT_EQ(pread(fd, buf, hi - lo, (off_t)lo), (ssize_t)(hi - lo));
	close(fd);
	return buf;
}

/* Run `evtrace ARGS`, stdout into out[], stderr into @err; the exit status. */
static int tool(char *err, size_t errlen, char *const argv[])
{
	return cmdt_capture(argv, out, sizeof(out), err, errlen);
}

#define PROBE(...)                                                                                 \
	do {                                                                                       \
		char *a_[] = { "evtrace", "probe", "-p", pidstr, __VA_ARGS__, NULL };              \
		char e_[8192];                                                                     \
		if (tool(e_, sizeof(e_), a_))                                                      \
			t_fail("evtrace probe failed:\n%s", e_);                                   \
	} while (0)

/* A __data_loc string field of @rec ("" if none). */
static void str_field(const struct evt_tracedat_event *ev, const char *name,
		      const struct evt_tracedat_record *rec, char *buf, size_t len)
{
	uint32_t loc;
	size_t off, n;

	buf[0] = '\0';
	if (crt_field(ev, name, rec, &loc, sizeof(loc)))
		return;
	off = evt_data_loc_offset(loc);
	n = evt_data_loc_len(loc);
	if (off > rec->size || n > rec->size - off || n == 0)
		return;
	snprintf(buf, len, "%.*s", (int)n, (const char *)rec->data + off);
}

static int expect_ret(int id)
{
	char p[32];

	return id * 3 + snprintf(p, sizeof(p), "req-%d", id);
}

/* Every record of the file is checked; returns how many of each probe. */
static void check_file(const char *file, long n[3])
{
	struct evt_tracedat_record rec;
	struct evt_tracedat *td;
	long last_id = -1;
	char s[64], want[64];
	int ret;

	T_ASSERT_OK(evt_tracedat_open(file, &td));
	while ((ret = evt_tracedat_next(td, &rec)) == 1) {
		const struct evt_tracedat_event *ev = rec.event;
		int32_t i32;
		uint32_t u32;

		T_ASSERT(ev != NULL);
		if (rec.missed && rec.missed != ~0ULL)
			last_id = -1; /* lost records: no pairing across them */
		if (!strcmp(ev->system, "vic") && !strcmp(ev->name, "req")) {
			T_ASSERT_OK(crt_field(ev, "id", &rec, &i32, 4));
			str_field(ev, "path", &rec, s, sizeof(s));
			snprintf(want, sizeof(want), "req-%d", (int)i32);
			if (strcmp(s, want))
				t_fail("req: id=%d path=\"%s\"", (int)i32, s);
			last_id = i32;
			n[0]++;
		} else if (!strcmp(ev->system, "vic") && !strcmp(ev->name, "req_ret")) {
			T_ASSERT_OK(crt_field(ev, "ret", &rec, &i32, 4));
			if (last_id >= 0 && i32 != expect_ret((int)last_id))
				t_fail("req_ret: ret=%d after id=%ld", (int)i32, last_id);
			n[1]++;
		} else if (!strcmp(ev->system, "kprobes") && !strcmp(ev->name, "p_path_weight_0")) {
			T_ASSERT_OK(crt_field(ev, "salt", &rec, &u32, 4));
			str_field(ev, "s", &rec, s, sizeof(s));
			snprintf(want, sizeof(want), "req-%u", u32);
			if (strcmp(s, want))
				t_fail("path_weight: salt=%u s=\"%s\"", u32, s);
			n[2]++;
		}
	}
	T_ASSERT_EQ(ret, 0);
	evt_tracedat_close(td);
}

static void record(const char *file)
{
	char *a[] = { EVT_TOOL, "record", "-q", "-p", pidstr, "-e", "vic:*", "-e", "kprobes:*",
		      "-o", (char *)file, NULL };
	pid_t rec = fork();

	T_ASSERT(rec >= 0);
	if (rec == 0) {
		execv(EVT_TOOL, a);
		_exit(127);
	}
	crt_wait_held((pid_t)atoi(pidstr));
	usleep(300 * 1000);
	T_ASSERT(kill(rec, SIGINT) == 0);
	T_ASSERT_EQ(cmdt_wait_status(rec), 0);
}

int main(void)
{
	unsigned char *before, *patched, *after;
	unsigned long lo, hi;
	char tmp[256], file[300], self[4096], err[8192];
	long n[3] = { 0, 0, 0 };
	pid_t prog;

	probe_require();
	crt_begin(self, sizeof(self));
	crt_private_dir(tmp, sizeof(tmp));
	snprintf(file, sizeof(file), "%s/probe.dat", tmp);
	prog = start_victim();
	snprintf(pidstr, sizeof(pidstr), "%d", (int)prog);
	text_range(prog, &lo, &hi);
	before = read_text(prog, lo, hi);

	/* entry with a string deref, return with $retval, a static function */
	PROBE("p:vic/req handle_request id=%di:s32 path=+0(%si):string",
	      "r:vic/req_ret handle_request ret=$retval:s32");
	PROBE("p path_weight s=+0(%di):string salt=%si:u32");
	{
		char *a[] = { "evtrace", "probe", "-p", pidstr, NULL };

		T_ASSERT_EQ(tool(err, sizeof(err), a), 0);
		T_ASSERT_STR(out, "p:vic/req handle_request id=%di:s32 path=+0(%si):string\n"
				  "r:vic/req_ret handle_request ret=$retval:s32\n"
				  "p:kprobes/p_path_weight_0 path_weight s=+0(%di):string "
				  "salt=%si:u32\n");
	}
	/* a refused definition: exit 1, the errno and the kernel's message */
	{
		char *a[] = { "evtrace", "probe", "-p", pidstr, "p:vic/bad no_such_function", NULL };

		T_ASSERT_EQ(tool(err, sizeof(err), a), 1);
		T_ASSERT_HAS(err, "No such file or directory");
		T_ASSERT_HAS(err, "trace_kprobe: error: Invalid probed address or symbol");
	}
	patched = read_text(prog, lo, hi);
	T_ASSERT(memcmp(before, patched, hi - lo) != 0);

	/* list -e shows them */
	{
		char *a[] = { "evtrace", "list", "-e", "-p", pidstr, NULL };

		T_ASSERT_EQ(tool(err, sizeof(err), a), 0);
		T_ASSERT_HAS(out, "vic:req\n");
		T_ASSERT_HAS(out, "vic:req_ret\n");
		T_ASSERT_HAS(out, "kprobes:p_path_weight_0\n");
	}

	record(file);
	check_file(file, n);
	printf("recorded: %ld req, %ld req_ret, %ld path_weight\n", n[0], n[1], n[2]);
	T_ASSERT(n[0] > 10 && n[1] > 10 && n[2] > 10);
	/* the record enables (and disables) the events one after the other: a few apart */
	T_ASSERT(labs(n[0] - n[1]) <= 50 && labs(n[0] - n[2]) <= 50);

	/* removal: -d, and a '-:' definition */
	PROBE("-d", "vic/req", "p_path_weight_0");
	PROBE("-:vic/req_ret");
	{
		char *a[] = { "evtrace", "probe", "-l", "-p", pidstr, NULL };

		T_ASSERT_EQ(tool(err, sizeof(err), a), 0);
		T_ASSERT_STR(out, "");
	}
	after = read_text(prog, lo, hi);
	T_ASSERT(memcmp(before, after, hi - lo) == 0);

	/* alive: it serves on, and exits 0 when asked */
	usleep(50 * 1000);
	T_ASSERT(kill(prog, 0) == 0);
	T_ASSERT(kill(prog, SIGTERM) == 0);
	T_ASSERT_EQ(cmdt_wait_status(prog), 0);
	free(before);
	free(patched);
	free(after);
	return 0;
}
