/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace-net.h - sending a recorded trace.dat to `trace-cmd listen` (record-net.c).
 */
#ifndef EVTRACE_NET_H
#define EVTRACE_NET_H

#include <stddef.h>
#include <stdint.h>

/*
 * struct cmd_net_file - where the parts of a trace.dat that record wrote lie: the
 * metadata (magic .. saved cmdlines, @meta_len bytes from 0), then, from @data_at,
 * CPU 0's @cpu_bytes[0] bytes of pages, CPU 1's, ...
 */
struct cmd_net_file {
	const char *path;
	size_t meta_len;
	uint64_t data_at;
	const uint64_t *cpu_bytes;
	int nr_cpus;
	unsigned int page_size;
};

/*
 * cmd_net_send() - send @f to the `trace-cmd listen` at @hostport ("HOST:PORT") with
 * trace-cmd's network protocol (version 3 as trace-cmd 3.1's record speaks it, version 1
 * where the listener does not know 3): the listener writes its own trace.dat of it.
 * Prints its own error (which step, which CPU). Return: 0, or a negative errno.
 */
int cmd_net_send(const char *hostport, const struct cmd_net_file *f);

/*
 * cmd_net_parse_ports() - version 1's port list: @text (NUL-terminated) must be
 * exactly @nr decimal ports (1..65535) separated by commas, into @ports.
 * Return: 0, or -EPROTO.
 */
int cmd_net_parse_ports(const char *text, unsigned int *ports, int nr);

/*
 * cmd_net_parse_rinit() - version 3's RINIT body (after its 12-byte header), @len
 * bytes: a big-endian CPU count that must be @nr, then @nr NUL-terminated decimal
 * ports (1..65535), into @ports. Bytes after them are ignored.
 * Return: 0, or -EPROTO.
 */
int cmd_net_parse_rinit(const char *body, size_t len, unsigned int *ports, int nr);

#endif /* EVTRACE_NET_H */
