// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * instance-foreach: evt_instance_foreach() visits every named instance once,
 * sorted by name, never the top instance; a callback's non-zero return stops
 * the walk and is returned; a destroyed instance is no longer visited; a NULL
 * callback is -EINVAL. The callback runs under the event lock, so it only
 * uses the instance it is given (evt_instance_lookup() would deadlock).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <evtrace/instance.h>

#include "helpers.h"

struct walk {
	struct evt_instance *top;
	char names[8][64];
	int n;
	int stop_at;		/* return 7 at this visit (1-based), 0: never */
};

static int visit(struct evt_instance *inst, void *arg)
{
	struct walk *w = arg;

	T_ASSERT(inst != w->top);
	if (w->n < 8)
		snprintf(w->names[w->n], sizeof(w->names[0]), "%s", evt_instance_name(inst));
	w->n++;
	return w->n == w->stop_at ? 7 : 0;
}

int main(void)
{
	static const char *const order[] = { "fe-a", "fe-b", "fe-c" };
	struct evt_instance *b, *a, *c;
	struct evt_instance *top = evt_instance_lookup(NULL);
	struct walk w = { .top = top };

	T_ASSERT_EQ(evt_instance_foreach(NULL, NULL), -EINVAL);
	/* none yet */
	T_ASSERT_OK(evt_instance_foreach(visit, &w));
	T_ASSERT_EQ(w.n, 0);

	/* created out of order, visited by name */
	T_ASSERT_OK(evt_instance_create("fe-b", &b));
	T_ASSERT_OK(evt_instance_create("fe-c", &c));
	T_ASSERT_OK(evt_instance_create("fe-a", &a));
	T_ASSERT_OK(evt_instance_foreach(visit, &w));
	T_ASSERT_EQ(w.n, 3);
	for (int i = 0; i < 3; i++)
		if (strcmp(w.names[i], order[i]))
			t_fail("visit %d: %s, want %s", i, w.names[i], order[i]);

	/* a non-zero return stops the walk */
	w = (struct walk){ .top = top };
	w.stop_at = 2;
	T_ASSERT_EQ(evt_instance_foreach(visit, &w), 7);
	T_ASSERT_EQ(w.n, 2);

	/* destroyed: gone from the walk */
	T_ASSERT_OK(evt_instance_destroy(b));
	w = (struct walk){ .top = top };
	T_ASSERT_OK(evt_instance_foreach(visit, &w));
	T_ASSERT_EQ(w.n, 2);
	T_ASSERT(!strcmp(w.names[0], "fe-a") && !strcmp(w.names[1], "fe-c"));

	T_ASSERT_OK(evt_instance_destroy(a));
	T_ASSERT_OK(evt_instance_destroy(c));
	w = (struct walk){ .top = top };
	T_ASSERT_OK(evt_instance_foreach(visit, &w));
	T_ASSERT_EQ(w.n, 0);
	return 0;
}
