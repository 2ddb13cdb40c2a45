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
	size_t names_at; /* live: where the saved cmdlines start, held (cmd_net_names()); 0 */
};

/*
 * cmd_net_send() - send @f to the `trace-cmd listen` at @hostport ("HOST:PORT") with
 * trace-cmd's network protocol (version 3 as trace-cmd 3.1's record speaks it, version 1
 * where the listener does not know 3): the listener writes its own trace.dat of it.
 * Prints its own error (which step, which CPU). Return: 0, or a negative errno.
 */
int cmd_net_send(const char *hostport, const struct cmd_net_file *f);

/*
 * Live (tools/evtrace/record-live.c): the connection made and the metadata sent first,
 * then pages as they come, then the end.
 *
 * cmd_net_start() - connect to @hostport, agree on a version, connect to each of
 * @f->nr_cpus CPUs' ports, send the metadata: @in holds a trace.dat's first bytes (up
 * to at least its CPU data, @f->meta_len and @f->data_at say where; @f->cpu_bytes and
 * @f->path are not used). Return: the connection, NULL (no memory); an error is kept
 * in it (cmd_net_errno()) and said by cmd_net_say().
 */
struct cmd_net;
struct cmd_net *cmd_net_start(const char *hostport, int in, const struct cmd_net_file *f);

/*
 * With @f->names_at, the thread names (the saved cmdlines, at that offset of @in) and
 * what follows them are held: they go with cmd_net_names() once final, so that threads
 * named while the trace streams are named in the listener's file too. Meanwhile version
 * 3's listener, which gives up on the metadata 5 s after its last message, gets the
 * bytes before them one at a time: call cmd_net_tick() often (at least every second).
 */

/* cmd_net_put() - @len bytes (pages) on CPU @cpu's connection. Return: 0 or -errno (kept). */
int cmd_net_put(struct cmd_net *n, int cpu, const void *buf, size_t len);

/*
 * cmd_net_tick() - while the names are held (version 3): a byte of the metadata every 2 s.
 * Return: 0; 1 the bytes to send so are all gone: call cmd_net_names() now (a recording
 * of hours: 2 s a byte); or -errno (kept).
 */
int cmd_net_tick(struct cmd_net *n);

/*
 * cmd_net_names() - the rest of the metadata: @in holds the header as it is now (the
 * same formats, newer names; @f->names_at, @f->meta_len, @f->data_at say where), from
 * @f->names_at on. Return: 0, -EINVAL (its bytes before the names differ), -errno (kept).
 */
int cmd_net_names(struct cmd_net *n, int in, const struct cmd_net_file *f);

/*
 * cmd_net_end() - the end: once the listener has taken the metadata, each CPU's
 * connection closed and its reader's end waited for, then the end on the first one,
 * and the listener's close once its file is written. Return: 0 or -errno (kept).
 */
int cmd_net_end(struct cmd_net *n);

/* cmd_net_errno() - @n's first error (-errno), 0; -ENOMEM for a NULL @n. */
int cmd_net_errno(const struct cmd_net *n);

/* cmd_net_sent() - bytes of pages @n sent whole. */
uint64_t cmd_net_sent(const struct cmd_net *n);

/* cmd_net_say() - print @n's error: which step, which CPU, why, then "(@then)". */
void cmd_net_say(const struct cmd_net *n, const char *hostport, const char *then);

/* cmd_net_free() - every connection closed (an abrupt end if cmd_net_end() was not done). */
void cmd_net_free(struct cmd_net *n);

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
