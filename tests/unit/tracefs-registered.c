// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs-registered: the files a layer above registers with the tracing tree
 * (tfs_register_file()) appear where it said and only there, in name order among the
 * tree's own: trigger's `trigger` and hist's `hist` in every event's directory (and
 * events/ftrace/print/), synth's synthetic_events, dynamic_events and kprobe_events at
 * the top instance's root and not an instance's; a test's own files at both places,
 * read back; a second file of a name is refused (-EEXIST), the same one again is not,
 * a bad place is -EINVAL, and the places hold TFS_REGISTERED_MAX files (-ENOSPC after).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evtrace/instance.h>
#include <evtrace/tracefs.h>

#include "helpers.h"
#include "tracefs/tfs_internal.h"
#include "tracefs-cat.h"

static void expect_str(const char *got, const char *want, int line)
{
	if (strcmp(got, want))
		t_fail("line %d: got \"%s\", want \"%s\"", line, got, want);
}
#define EXPECT_STR(got, want) expect_str(got, want, __LINE__)

static int hello_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	return tfs_seq_printf(s, "hello from event %d\n", tfs_node_event_id(&f->node));
}

static int top_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	(void)f;
	return tfs_seq_puts(s, "top\n");
}

static const struct tfs_ops hello_ops = { .name = "zz_hello", .mode = TFS_MODE_RO,
					  .show = hello_show };
static const struct tfs_ops top_ops = { .name = "aa_top", .mode = TFS_MODE_RO, .show = top_show };
static const struct tfs_ops other_trigger_ops = { .name = "trigger", .mode = TFS_MODE_RO,
						  .show = top_show };

int main(void)
{
	static struct tfs_ops filler[TFS_REGISTERED_MAX];
	static char names[TFS_REGISTERED_MAX][16];
	struct evt_instance *in;
	unsigned int mode, n;
	char want[64];
	int id;

	/* the layers' own files, in name order with the tree's */
	EXPECT_STR(t_tracefs_ls(NULL, "events/ftrace/print"), "format hist id trigger ");
	T_ASSERT_OK(evt_tracefs_stat(NULL, "synthetic_events", &mode));
	T_ASSERT_EQ(mode, TFS_MODE_RW);
	T_ASSERT_OK(evt_tracefs_stat(NULL, "dynamic_events", &mode));
	T_ASSERT_OK(evt_tracefs_stat(NULL, "kprobe_events", &mode));
	T_ASSERT_OK(evt_tracefs_stat(NULL, "events/ftrace/print/trigger", &mode));
	T_ASSERT_EQ(mode, TFS_MODE_RW);
	T_ASSERT_OK(evt_tracefs_stat(NULL, "events/ftrace/print/hist", &mode));
	T_ASSERT_EQ(mode, TFS_MODE_RO);
	T_ASSERT(strstr(t_tracefs_ls(NULL, "/"), " dynamic_events error_log ") != NULL);
	T_ASSERT(strstr(t_tracefs_ls(NULL, "/"), " instances/ kprobe_events per_cpu/ ") != NULL);
	T_ASSERT(strstr(t_tracefs_ls(NULL, "/"), " snapshot synthetic_events trace ") != NULL);

	/* top only: an instance has none of synth's files, but its events have theirs */
	T_ASSERT_OK(evt_instance_create("tfs_registered", &in));
	T_ASSERT_EQ(evt_tracefs_stat(in, "synthetic_events", &mode), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_stat(in, "kprobe_events", &mode), -ENOENT);
	T_ASSERT(strstr(t_tracefs_ls(in, "/"), "synthetic_events") == NULL);
	EXPECT_STR(t_tracefs_ls(in, "events/ftrace/print"), "format hist id trigger ");

	/* a file of our own at each place, there at once, in every instance */
	T_ASSERT_OK(tfs_register_file(TFS_AT_EVENT, &hello_ops));
	T_ASSERT_OK(tfs_register_file(TFS_AT_TOP, &top_ops));
	EXPECT_STR(t_tracefs_ls(NULL, "events/ftrace/print"), "format hist id trigger zz_hello ");
	EXPECT_STR(t_tracefs_ls(in, "events/ftrace/print"), "format hist id trigger zz_hello ");
	T_ASSERT(!strncmp(t_tracefs_ls(NULL, "/"), "aa_top available_events ", 24));
	T_ASSERT(!strncmp(t_tracefs_ls(in, "/"), "aa_top available_events ", 24));
	EXPECT_STR(t_tracefs_cat(in, "aa_top"), "top\n");
	T_ASSERT_OK(evt_tracefs_stat(NULL, "events/ftrace/print/id", &mode));
	id = atoi(t_tracefs_cat(NULL, "events/ftrace/print/id"));
	snprintf(want, sizeof(want), "hello from event %d\n", id);
	EXPECT_STR(t_tracefs_cat(NULL, "events/ftrace/print/zz_hello"), want);
	/* not a file of the other places */
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "zz_hello", &mode), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "events/aa_top", &mode), -ENOENT);
	T_ASSERT_EQ(evt_tracefs_stat(NULL, "events/ftrace/print/aa_top", &mode), -ENOENT);

	/* the registry's refusals */
	T_ASSERT_OK(tfs_register_file(TFS_AT_EVENT, &hello_ops));
	T_ASSERT_EQ(tfs_register_file(TFS_AT_EVENT, &other_trigger_ops), -EEXIST);
	T_ASSERT_OK(tfs_register_file(TFS_AT_TOP, &other_trigger_ops));
	T_ASSERT_EQ(tfs_register_file(TFS_AT_NONE, &top_ops), -EINVAL);
	T_ASSERT_EQ(tfs_register_file(TFS_AT_MAX, &top_ops), -EINVAL);
	T_ASSERT_EQ(tfs_register_file(TFS_AT_TOP, NULL), -EINVAL);
	/* TFS_AT_EVENT holds trigger, hist and zz_hello: fill it up */
	for (n = 0; n < TFS_REGISTERED_MAX; n++) {
		int ret;

		snprintf(names[n], sizeof(names[n]), "fill%u", n);
		filler[n] = hello_ops;
		filler[n].name = names[n];
		ret = tfs_register_file(TFS_AT_EVENT, &filler[n]);
		if (ret == -ENOSPC)
			break;
		T_ASSERT_OK(ret);
	}
	T_ASSERT_EQ(n, TFS_REGISTERED_MAX - 3);
	EXPECT_STR(t_tracefs_ls(NULL, "events/ftrace/print"),
		   "fill0 fill1 fill2 fill3 fill4 format hist id trigger zz_hello ");

	T_ASSERT_OK(evt_instance_destroy(in));
	printf("PASS tracefs-registered\n");
	return 0;
}
