// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-victim - a program written with no thought of evtrace: it includes none of its
 * headers and calls none of its functions. It is linked with libevtrace (or could have it
 * preloaded) and run with EVTRACE_CONTROL=1, nothing more; unit/cmd-probe then probes its
 * functions from outside. It serves "requests" in a loop until SIGTERM, then exits 0.
 *
 * handle_request(id, path) returns id * 3 + strlen(path); path is "req-<id>"; the static
 * path_weight(path, salt) is called with salt = id.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* A static function: only .symtab names it. */
__attribute__((noinline)) static unsigned int path_weight(const char *path, unsigned int salt)
{
	unsigned int h = salt;

	for (; *path; path++)
		h = h * 31 + (unsigned char)*path;
	return h % 1000;
}

unsigned int (*volatile weigh)(const char *, unsigned int) = path_weight;
volatile unsigned long weight_sum;

__attribute__((noinline)) int handle_request(int id, const char *path)
{
	int r = id * 3;

	weight_sum += weigh(path, (unsigned int)id);
	r += (int)strlen(path);
	__asm__ volatile("" : "+r"(r));
	return r;
}

int main(void)
{
	struct timespec pause = { 0, 200 * 1000 };
	char path[32];

	signal(SIGTERM, on_term);
	for (int id = 0; !stop; id = id == 1000000 ? 0 : id + 1) {
		snprintf(path, sizeof(path), "req-%d", id);
		if (handle_request(id, path) != id * 3 + (int)strlen(path))
			return 1;
		nanosleep(&pause, NULL);
	}
	return 0;
}
