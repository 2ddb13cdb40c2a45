// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events/cmdline.c - saved_cmdlines: thread id -> comm, for the trace output.
 *
 * A fixed table of slots indexed by tid (the kernel keeps 128 by default;
 * we keep 1024). A writer saves its thread's comm at its first event; a
 * slot is taken with a try-lock (a writer that finds it busy skips saving:
 * it may be a signal handler interrupting the holder). The reader spins,
 * it is never in a signal handler of the writer.
 */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "compat/atomic.h"
#include "events/event_internal.h"

#define CMDLINE_SLOTS	1024
#define COMM_LEN	16

struct cmdline_slot {
	uint32_t lock;
	int32_t tid;
	char comm[COMM_LEN];
};

static struct cmdline_slot slots[CMDLINE_SLOTS];

static struct cmdline_slot *slot_of(pid_t tid)
{
	return &slots[(uint32_t)tid % CMDLINE_SLOTS];
}

static bool slot_trylock(struct cmdline_slot *s)
{
	uint32_t unlocked = 0;

	/* Acquire: the slot's contents are read/written after we own it. */
	return __atomic_compare_exchange_n(&s->lock, &unlocked, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static void slot_unlock(struct cmdline_slot *s)
{
	/* Release: our writes to the slot before the next owner's reads. */
	st_release(&s->lock, 0u);
}

void cmdline_save(pid_t tid, const char *comm)
{
	struct cmdline_slot *s = slot_of(tid);

	if (!slot_trylock(s))
		return;
	s->tid = tid;
	memset(s->comm, 0, sizeof(s->comm));
	strncpy(s->comm, comm, COMM_LEN - 1);
	slot_unlock(s);
}

void cmdline_save_current(pid_t tid)
{
	char comm[COMM_LEN + 1] = "";

	/* PR_GET_NAME: the calling thread's name, async-signal-safe. */
	if (prctl(PR_GET_NAME, comm, 0, 0, 0) != 0)
		return;
	comm[COMM_LEN] = '\0';
	cmdline_save(tid, comm);
}

void evt_saved_cmdline(pid_t tid, char comm[16])
{
	struct cmdline_slot *s = slot_of(tid);

	while (!slot_trylock(s))
		;
	if (s->tid == tid && tid != 0)
		memcpy(comm, s->comm, COMM_LEN);
	else
		strcpy(comm, "<...>");
	comm[COMM_LEN - 1] = '\0';
	slot_unlock(s);
}

int evt_saved_cmdlines_text(char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (int i = 0; i < CMDLINE_SLOTS; i++) {
		struct cmdline_slot *s = &slots[i];
		char comm[COMM_LEN];
		int32_t tid;
		int n;

		while (!slot_trylock(s))
			;
		tid = s->tid;
		memcpy(comm, s->comm, COMM_LEN);
		slot_unlock(s);
		if (!tid)
			continue;
		comm[COMM_LEN - 1] = '\0';
		n = snprintf(buf ? buf + (len < size ? len : size) : NULL,
			     len < size ? size - len : 0, "%d %s\n", (int)tid, comm);
		len += (size_t)n;
	}
	return (int)len;
}
