/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/lib/net-test.h - the network tests' peers on 127.0.0.1 (record -N): sockets, the
 * byte reads of a fake listener, and a real `trace-cmd listen`. Meant for test processes,
 * parent or child: a failure ends the process (_exit with the status named), which fails
 * the test either way.
 */
#ifndef EVT_TESTS_NET_TEST_H
#define EVT_TESTS_NET_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A listening socket on 127.0.0.1 at a free port: its fd, the port in *@port (exit 2). */
int tnet_listen_any(unsigned int *port);

/* A port of 127.0.0.1 free when asked (exit 2). */
unsigned int tnet_free_port(void);

/* Does 127.0.0.1:@port accept a connection? */
bool tnet_can_connect(unsigned int port);

/* Exactly @len bytes from @fd (exit 3 at an error or the end). */
void tnet_read_full(int fd, void *buf, size_t len);

/* A NUL-terminated string of at most @cap bytes from @fd (exit 6 if longer). */
void tnet_read_string(int fd, char *buf, size_t cap);

/*
 * A fake listener's side of the v1 handshake (trace-cmd's protocol 1, as `record -N` falls
 * back to it): the first connection on @lfd is the version probe ("tracecmd", "-1V3",
 * closed), the second sends the CPU count, returned in *@cpus (1 to 8). Return: the second
 * connection, its options (page size and the rest) not read yet. Exits the (child) process
 * with 2 at a socket error, 5 at an answer not of protocol 1.
 */
int tnet_v1_accept(int lfd, int *cpus);

/*
 * A listener's reading: everything the client sends on @fds (@n of them, at most 9; the
 * first is the metadata's connection), each to its file in @out[], until each ends or
 * none says anything for 15 s; each closed as it ends (the client waits for the CPUs'
 * before it ends the metadata's). Return: how many had not ended. Exits (the child) with 4
 * when a file cannot be written.
 */
int tnet_take_all(int *fds, int n, int *out);

/*
 * `trace-cmd listen -p @port -d @dir`, its output to /dev/null, in a process group of its
 * own (kill(-pid) ends it and the children it forks per client), killed if the test dies;
 * returns once it accepts connections (exit 2 if it never does).
 */
pid_t tnet_trace_cmd_listen(unsigned int port, const char *dir);

#endif
