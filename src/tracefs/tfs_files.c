// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs/tfs_files.c - the files of an instance's tree (placeholder until
 * the event and instance core lands).
 */
#include <stddef.h>

#include "tracefs/tfs_internal.h"

static const struct tfs_ops *const root_children[] = { NULL };

const struct tfs_ops tfs_root_ops = {
	.name = "",
	.mode = TFS_MODE_DIR,
	.children = root_children,
};

struct evt_instance *tfs_top_instance(void)
{
	return NULL;
}
