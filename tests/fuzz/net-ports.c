// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz/net-ports: what a `trace-cmd listen` answers `evtrace record -N` with, to
 * the parsers of tools/evtrace/record-net-parse.c (built here as they are): the
 * first byte picks version 1's port list (text) or version 3's RINIT body, the
 * second the CPU count asked for (1..64), the rest is the listener's bytes. A
 * success must have filled every CPU's port with 1..65535.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/evtrace/record-net-parse.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int ports[64];
	char *buf;
	int nr, ret;

	if (size < 2)
		return 0;
	nr = data[1] % 64 + 1;
	buf = malloc(size - 2 + 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, size - 2);
	buf[size - 2] = 0; /* the v1 list as record keeps it: NUL-terminated */
	memset(ports, 0, sizeof(ports));
	if (data[0] & 1)
		ret = cmd_net_parse_rinit(buf, size - 2, ports, nr);
	else
		ret = cmd_net_parse_ports(buf, ports, nr);
	if (ret == 0)
		for (int i = 0; i < nr; i++)
			if (ports[i] == 0 || ports[i] > 65535)
				abort();
	if (ret != 0 && ret != -EPROTO)
		abort();
	free(buf);
	return 0;
}
