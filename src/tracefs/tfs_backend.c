// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs/tfs_backend.c - the tree's view of the layers below (placeholder:
 * no event registry or instances yet; every instance lookup fails).
 */
#include <errno.h>
#include <stddef.h>

#include "tracefs/tfs_backend.h"

static struct evt_instance *core_top(void)
{
	return NULL;
}

const struct tfs_backend_ops tfs_backend_core = {
	.top = core_top,
};

const struct tfs_backend_ops *tfs_backend = &tfs_backend_core;
