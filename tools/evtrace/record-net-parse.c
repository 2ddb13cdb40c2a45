// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record-net-parse.c - the port lists a `trace-cmd listen` answers `evtrace record
 * -N` with (record-net.c), parsed: bytes from the network, trusted in nothing.
 * Alone in its file, with no header but its own, so that the fuzz target
 * (tests/fuzz/net-ports.c) builds it as it is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../include/evtrace-net.h"

int cmd_net_parse_ports(const char *text, unsigned int *ports, int nr)
{
	const char *s = text;
	char *end = NULL;
	int i = 0;

	for (; i < nr; i++) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v == 0 || v > 65535 || (*end != ',' && *end))
			return -EPROTO;
		ports[i] = (unsigned int)v;
		s = end + (*end == ',');
		if (!*end)
			break;
	}
	return nr > 0 && i == nr - 1 && !*end ? 0 : -EPROTO;
}

int cmd_net_parse_rinit(const char *body, size_t len, unsigned int *ports, int nr)
{
	const char *p = body + 4, *end = body + len;
	uint32_t cpus;

	if (len < 4 || nr <= 0)
		return -EPROTO;
	memcpy(&cpus, body, 4);
	if (ntohl(cpus) != (uint32_t)nr) /* big-endian, as the whole header */
		return -EPROTO;
	for (int cpu = 0; cpu < nr; cpu++) {
		const char *nul = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
		unsigned long v = 0;
		char *e = NULL;

		if (nul)
			v = strtoul(p, &e, 10);
		if (!nul || e == p || e != nul || v == 0 || v > 65535)
			return -EPROTO;
		ports[cpu] = (unsigned int)v;
		p = nul + 1;
	}
	return 0;
}
