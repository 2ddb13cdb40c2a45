// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth/synth_files.c - the files of dynamic events in the top instance's tree, as the
 * kernel's: `synthetic_events` (synthetic events only), `dynamic_events` (every type:
 * synthetic events and the types registered with dyn_event_register()) and
 * `kprobe_events` (the probe type's lines; empty without a probe layer). A write runs
 * its lines (synth_parse_run()), `>` deletes every event of the file's kind or none
 * (-EBUSY), a read shows the definitions. synth_init() registers them with the tracing
 * tree (tfs_register_file()): the tree knows no synthetic event.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "synth/synth.h"
#include "tracefs/tfs_internal.h"

/* A `>` open of a file: truncate, for writing. */
static bool truncating(const struct evt_tracefs_file *f)
{
	return (f->flags & EVT_TRACEFS_TRUNC) && (f->flags & EVT_TRACEFS_WRITE);
}

static int synth_events_open(struct evt_tracefs_file *f)
{
	/* `>`: every synthetic event goes, or none and -EBUSY (dyn_events_release_all()) */
	return truncating(f) ? synth_release_all() : 0;
}

static int dyn_events_open(struct evt_tracefs_file *f)
{
	/* `>`: every dynamic event of every type goes, or none and -EBUSY */
	return truncating(f) ? dyn_event_release_all() : 0;
}

/* kprobe_events: the lines of the probe type only (registered by src/probe/). */
static int kprobe_events_open(struct evt_tracefs_file *f)
{
	return truncating(f) ? dyn_event_type_release_all("kprobe") : 0;
}

/* @n bytes of @text (malloc'd, freed here) or an error into @s. */
static int text_show(struct tfs_seq *s, char *text, long n)
{
	int ret;

	if (n < 0)
		return (int)n;
	ret = tfs_seq_write(s, text, (size_t)n);
	free(text);
	return ret < 0 ? ret : 0;
}

static int kprobe_events_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	char *text = NULL;
	long n = dyn_event_type_show("kprobe", &text);

	(void)f;
	if (n == -ENODEV)
		return 0; /* no probe layer in this program: an empty file */
	return text_show(s, text, n);
}

static int kprobe_run(const char *line)
{
	return dyn_event_type_run("kprobe", line);
}

static ssize_t kprobe_events_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	(void)f;
	return synth_parse_run(buf, len, kprobe_run);
}

static int synth_events_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	char *text = NULL;
	long n = synth_show(false, &text);

	(void)f;
	return text_show(s, text, n);
}

static int dynamic_events_show(struct evt_tracefs_file *f, struct tfs_seq *s)
{
	char *text = NULL;
	long n = synth_show(true, &text);

	(void)f;
	return text_show(s, text, n);
}

static ssize_t synth_events_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	(void)f;
	return synth_parse_run(buf, len, synth_run_command);
}

static ssize_t dynamic_events_write(struct evt_tracefs_file *f, const char *buf, size_t len)
{
	(void)f;
	return synth_parse_run(buf, len, dynevent_run_command);
}

static const struct tfs_ops synthetic_events_ops = {
	.name = "synthetic_events",
	.mode = TFS_MODE_RW,
	.open = synth_events_open,
	.show = synth_events_show,
	.write = synth_events_write,
	.max_write = 1u << 20,
	.visible = tfs_top_only,
};
static const struct tfs_ops kprobe_events_ops = {
	.name = "kprobe_events",
	.mode = TFS_MODE_RW,
	.open = kprobe_events_open,
	.show = kprobe_events_show,
	.write = kprobe_events_write,
	.max_write = 1u << 20,
	.visible = tfs_top_only,
};
static const struct tfs_ops dynamic_events_ops = {
	.name = "dynamic_events",
	.mode = TFS_MODE_RW,
	.open = dyn_events_open,
	.show = dynamic_events_show,
	.write = dynamic_events_write,
	.max_write = 1u << 20,
	.visible = tfs_top_only,
};

int synth_init(void)
{
	int ret = tfs_register_file(TFS_AT_TOP, &synthetic_events_ops);

	if (!ret)
		ret = tfs_register_file(TFS_AT_TOP, &dynamic_events_ops);
	if (!ret)
		ret = tfs_register_file(TFS_AT_TOP, &kprobe_events_ops);
	return ret;
}
