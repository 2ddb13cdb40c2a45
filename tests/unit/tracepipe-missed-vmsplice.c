// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-missed-vmsplice: tracepipe-missed with pages handed by
 * vmsplice(). A page in the pipe is the writers' memory: it must not be
 * reused before the reader has read it. The reader holds the pipe full
 * while the writer goes on; every record read afterwards must still be
 * intact and the accounting exact.
 */
#define TPT_FLAGS EVT_TRACEPIPE_VMSPLICE
#include "tracepipe-missed.c"
