// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-vmsplice: tracepipe-copy with pages handed by vmsplice() and
 * a reader that splice()s the FIFO to a file: pages come back only once
 * read, and every record still arrives intact.
 */
#define TPT_FLAGS EVT_TRACEPIPE_VMSPLICE
#define TPT_HOW TPT_SPLICE
#include "tracepipe-copy.c"
