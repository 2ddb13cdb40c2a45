// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: ctl_parse_request(), the control server's parser of the
 * frames a peer sends (src/control/ctl_proto.c).
 *
 * The input is one frame (header + payload), copied into a heap block of
 * exactly its size plus the one spare byte the parser may write, so any
 * access past it is caught by AddressSanitizer. A frame that parses must
 * hold together: a known op, a NUL-terminated path of path_len bytes with
 * no NUL inside, inside the frame, data inside the frame, every length
 * within the protocol's limits.
 *
 * Seeds (tests/fuzz/corpus/control-request/): one valid frame of every op
 * (HOLD and RELEASE too, and a RELEASE with a payload it must refuse),
 * a write with data, bad magic, bad version, a length that lies, a path
 * with a NUL; written by tests/fuzz/corpus/control-request/gen.py.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "control/ctl_proto.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *frame = malloc(size + 1);
	struct ctl_request req;
	int ret;

	if (!frame)
		return 0;
	if (size)
		memcpy(frame, data, size);
	ret = ctl_parse_request(frame, size, &req);
	if (ret == 0) {
		check(req.op >= CTL_OP_READ && req.op <= CTL_OP_MAX);
		check(req.path != NULL);
		check((unsigned char *)req.path >= frame &&
		      (unsigned char *)req.path < frame + size + 1);
		check(req.path_len <= CTL_PATH_MAX);
		check((unsigned char *)req.path + req.path_len <= frame + size);
		check(strlen(req.path) == req.path_len);
		check(req.data_len <= CTL_DATA_MAX);
		if (req.data_len) {
			check(req.data >= frame + sizeof(struct ctl_req_hdr));
			check(req.data + req.data_len <= frame + size);
		}
	} else {
		check(ret == -EPROTO || ret == -EMSGSIZE || ret == -EINVAL);
	}
	free(frame);
	return 0;
}
