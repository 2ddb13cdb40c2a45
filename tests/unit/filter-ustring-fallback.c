// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-ustring-fallback: a char * field is still compared where
 * process_vm_readv() is refused (a seccomp policy, as in some containers, or
 * an emulator that lacks it): the filter then copies the string through a
 * pipe. A string that ends just before an unmapped page matches; one that
 * runs into it is cut there; an unmapped pointer matches nothing; the
 * program's errno survives. SKIP where a seccomp filter cannot be installed.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "filter-test.h"

/* process_vm_readv() fails with EPERM from now on, in this process. */
static int refuse_process_vm_readv(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(void)
{
	static const char hello[] = "hello world";
	long page = sysconf(_SC_PAGESIZE);
	struct ft_rec r;
	size_t len = ft_rec_init(&r, "bash", "foobar", "zsh");
	char c, d, *map, *edge;
	struct iovec lo = { &c, 1 }, re = { &d, 1 };

	if (refuse_process_vm_readv()) {
		printf("SKIP: cannot install a seccomp filter: %s\n", strerror(errno));
		return 77;
	}
	d = 'x';
	if (process_vm_readv(getpid(), &lo, 1, &re, 1, 0) != -1 || errno != EPERM) {
		printf("SKIP: the seccomp filter does not refuse process_vm_readv\n");
		return 77;
	}
	/* two pages, the second unmapped (PROT_NONE) */
	map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	T_ASSERT(map != MAP_FAILED);
	T_ASSERT(!mprotect(map + page, (size_t)page, PROT_NONE));

	r.pstr = hello;
	errno = 4242;
	ft_check("pstr == \"hello world\"", &r, len, 1);
	ft_check("pstr ~ \"*world\"", &r, len, 1);
	ft_check("pstr.ustring ~ \"hello*\"", &r, len, 1);
	ft_check("pstr != \"hello\"", &r, len, 1);
	/* a string whose NUL is the last byte before the unmapped page */
	edge = map + page - 6;
	memcpy(edge, "edge!", 6);
	r.pstr = edge;
	ft_check("pstr == \"edge!\"", &r, len, 1);
	/* one that runs into it: what is mapped is the string */
	edge[5] = '?';
	ft_check("pstr == \"edge!?\"", &r, len, 1);
	ft_check("pstr ~ \"edge*\"", &r, len, 1);
	/* across a page boundary, both mapped */
	memcpy(map + page - 3, "ab", 2);
	T_ASSERT(!mprotect(map + page, (size_t)page, PROT_READ | PROT_WRITE));
	memcpy(map + page - 3, "abcdef", 7);
	r.pstr = map + page - 3;
	ft_check("pstr == \"abcdef\"", &r, len, 1);
	/* unmapped: no match, whatever the operator */
	T_ASSERT(!munmap(map, 2 * (size_t)page));
	r.pstr = map + 8;
	ft_check("pstr == \"x\"", &r, len, 0);
	ft_check("pstr != \"x\"", &r, len, 0);
	r.pstr = (const char *)(uintptr_t)8;
	ft_check("pstr != \"x\"", &r, len, 0);
	T_ASSERT_EQ(errno, 4242);
	return ft_done();
}
