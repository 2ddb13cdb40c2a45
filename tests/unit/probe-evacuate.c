// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-evacuate: a thread stopped between two of the instructions a probe's jump
 * replaces is moved out of the range before the jump's bytes are written
 * (probe_evac.c, "threads stopped inside the range"):
 *
 *   - evac_read: a thread blocked in read() by the `syscall` at +2 of the range [0, 8);
 *     the evacuation signal restarts the call at +2 (SA_RESTART), which is moved to the
 *     trampoline's copy of it: the read goes on there, and returns fd + 1 when a byte
 *     comes;
 *   - evac_nops: a thread in pause() whose RIP is +4, a 1-byte nop in the range [0, 5) (as
 *     between gcc's 1-byte nops of a patchable pad): moved to the jump back, it returns
 *     x + 2;
 *   - a thread that blocks every signal, asleep in the range: the install is refused with
 *     -EBUSY after the wait, the text untouched; once it has left, the install works.
 *
 * Without the evacuation each of these threads resumes inside the new jump's bytes and
 * the program dies. Each victim is then probed and hit normally, and removal leaves the
 * text byte-identical.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe-util.h"

#ifdef __x86_64__
/* victim(a, b, c, nr): syscall nr(a, b, c) placed inside the first 5 bytes */
asm(".text\n"
    ".globl evac_read\n"
    ".type evac_read, @function\n"
    "evac_read:\n"
    "	mov %ecx, %eax\n"	/* 89 c8        +0 */
    "	syscall\n"		/* 0f 05        +2, returns to +4 */
    "	lea 1(%rdi), %rax\n"	/* 48 8d 47 01  +4 */
    "	ret\n"
    ".size evac_read, . - evac_read\n"
    ".globl evac_nops\n"
    ".type evac_nops, @function\n"
    "evac_nops:\n"
    "	mov %ecx, %eax\n"	/* +0 */
    "	syscall\n"		/* +2, returns to +4 */
    "	nop\n"			/* +4: the last byte of the range */
    "	nop\n"
    "	lea 2(%rdi), %rax\n"
    "	ret\n"
    ".size evac_nops, . - evac_nops\n");

long evac_read(long a, long b, long c, long nr);
long evac_nops(long a, long b, long c, long nr);

struct victim {
	long (*fn)(long, long, long, long);
	long a, b, c, nr;
	bool block_all; /* block every signal first */
	pid_t tid;	/* set by the thread (atomic) */
	long ret;
	pthread_t th;
};

static void *victim_main(void *arg)
{
	struct victim *v = arg;

	if (v->block_all) {
		sigset_t all;

		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	}
	/* Release: the fields above are set before the main thread reads the tid. */
	__atomic_store_n(&v->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	v->ret = v->fn(v->a, v->b, v->c, v->nr);
	return NULL;
}

/* Start @v and wait until it sleeps in syscall @v->nr with its user RIP at @fn + 4. */
static void victim_start(struct victim *v)
{
	uint64_t want = (uint64_t)(uintptr_t)v->fn + 4;

	T_ASSERT_OK(pthread_create(&v->th, NULL, victim_main, v));
	for (int i = 0; i < 10000; i++) {
		char path[64], buf[256], *last;
		unsigned long long pc;
		pid_t tid = __atomic_load_n(&v->tid, __ATOMIC_ACQUIRE); /* pairs with the release */
		FILE *f;

		usleep(1000);
		if (!tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
		f = fopen(path, "re");
		if (!f)
			t_skip("no %s", path);
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		buf[strcspn(buf, "\n")] = 0;
		last = strrchr(buf, ' ');
		if (atol(buf) == v->nr && last && sscanf(last + 1, "%llx", &pc) == 1 && pc == want)
			return;
	}
	t_fail("the victim thread never slept at %#llx", (unsigned long long)want);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void probe_victim(const char *name, long (*fn)(long, long, long, long), long add)
{
	char def[128];

	T_ECHO("1", "events/ev/enable");
	T_ASSERT_EQ(fn(7, 0, 0, SYS_getpid), 7 + add);
	T_ECHO("0", "events/ev/enable");
	snprintf(def, sizeof(def), "%s: (%s+0x0/0x", name, name);
	T_ASSERT_HAS(cat("trace"), def);
	T_ASSERT_HAS(cat("trace"), ") a=7\n");
	trace_clear();
}

int main(void)
{
	unsigned char before_r[16], before_n[16];
	struct victim v;
	int pfd[2];
	long ret;

	probe_require_evacuation();
	signal(SIGUSR1, on_usr1);
	memcpy(before_r, (void *)evac_read, sizeof(before_r));
	memcpy(before_n, (void *)evac_nops, sizeof(before_n));
	T_ASSERT_OK(pipe(pfd));

	/* blocked in read() at +4, restarted at +2 by the evacuation */
	memset(&v, 0, sizeof(v));
	v.fn = evac_read;
	v.a = pfd[0];
	v.b = (long)(uintptr_t)&v.ret;
	v.c = 1;
	v.nr = SYS_read;
	victim_start(&v);
	if (echo("p:ev/evac_read evac_read a=%di:s64", "kprobe_events") < 0)
		t_fail("%s", cat("error_log"));
	T_ASSERT_EQ(((const uint8_t *)evac_read)[0], 0xe9);
	T_ASSERT_EQ(write(pfd[1], "x", 1), 1);
	pthread_join(v.th, NULL);
	T_ASSERT_EQ(v.ret, pfd[0] + 1);
	probe_victim("evac_read", evac_read, 1);
	T_ECHO("-:ev/evac_read", "kprobe_events");
	T_ASSERT(memcmp(before_r, (void *)evac_read, sizeof(before_r)) == 0);

	/* in pause() with its RIP on a 1-byte nop of the range */
	memset(&v, 0, sizeof(v));
	v.fn = evac_nops;
	v.a = 40;
	v.nr = SYS_pause;
	victim_start(&v);
	if (echo("p:ev/evac_nops evac_nops a=%di:s64", "kprobe_events") < 0)
		t_fail("%s", cat("error_log"));
	pthread_kill(v.th, SIGUSR1); /* wakes it if the evacuation did not */
	pthread_join(v.th, NULL);
	T_ASSERT_EQ(v.ret, 42);
	probe_victim("evac_nops", evac_nops, 2);
	T_ECHO("-:ev/evac_nops", "kprobe_events");
	T_ASSERT(memcmp(before_n, (void *)evac_nops, sizeof(before_n)) == 0);

	/* every signal blocked, asleep in the range: refused, untouched */
	memset(&v, 0, sizeof(v));
	v.fn = evac_read;
	v.a = pfd[0];
	v.b = (long)(uintptr_t)&v.ret;
	v.c = 1;
	v.nr = SYS_read;
	v.block_all = true;
	victim_start(&v);
	ret = echo("p:ev/evac_read evac_read a=%di:s64", "kprobe_events");
	T_ASSERT_EQ(ret, -EBUSY);
	T_ASSERT_HAS(cat("error_log"), "did not answer");
	T_ASSERT(memcmp(before_r, (void *)evac_read, sizeof(before_r)) == 0);
	T_ASSERT_STR(cat("kprobe_events"), "");
	T_ASSERT_EQ(write(pfd[1], "y", 1), 1);
	pthread_join(v.th, NULL);
	T_ASSERT_EQ(v.ret, pfd[0] + 1);
	if (echo("p:ev/evac_read evac_read a=%di:s64", "kprobe_events") < 0)
		t_fail("%s", cat("error_log"));
	probe_victim("evac_read", evac_read, 1);
	T_ECHO("-:ev/evac_read", "kprobe_events");
	T_ASSERT(memcmp(before_r, (void *)evac_read, sizeof(before_r)) == 0);
	return 0;
}
#else
int main(void)
{
	t_skip("the victims are x86-64 code");
}
#endif
