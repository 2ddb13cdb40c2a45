/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * control/ctl_proto.h - the control socket's wire format (docs/control.md).
 *
 * Every message is a frame: a fixed header, then @len bytes of payload.
 * Numbers are in the host's byte order (both ends are on one machine).
 *
 *   request  (client -> server): struct ctl_req_hdr, payload
 *   response (server -> client): struct ctl_resp_hdr, payload
 *
 * On connect the server sends one CTL_OP_HELLO response before anything
 * else: status 0 and a struct ctl_hello, or -EACCES (peer not the owner
 * or root) after which it closes.
 *
 * A request is answered by one or more responses with the same op:
 * every one but the last has CTL_RF_MORE set and carries data; the last
 * carries the status (>= 0 or -errno) and maybe data (see each op).
 * CTL_OP_GETBUF's last response carries a file descriptor (SCM_RIGHTS).
 *
 * Internal to libevtrace and the evtrace command (the ctl_ prefix):
 * the protocol version moves with the library, both ends check it.
 */
#ifndef EVT_CONTROL_CTL_PROTO_H
#define EVT_CONTROL_CTL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define CTL_MAGIC		0x43545645u	/* "EVTC" little-endian */
#define CTL_VERSION		2u

/* Largest request payload: a 1 MiB write (set_event's limit) with its path. */
#define CTL_PATH_MAX		4096u
#define CTL_DATA_MAX		(1u << 20)
#define CTL_REQ_MAX		(CTL_DATA_MAX + CTL_PATH_MAX + 16u)
/* Largest response payload the server sends in one frame (a client may accept more). */
#define CTL_RESP_CHUNK		(64u * 1024u)
#define CTL_RESP_MAX		(1u << 21)
#define CTL_COMM_MAX		64u

enum ctl_op {
	CTL_OP_HELLO = 1,	/* (server only) */
	CTL_OP_READ = 2,	/* u64 offset, u64 max (0: all), path -> data chunks */
	CTL_OP_WRITE = 3,	/* u32 flags, u32 path_len, path, data -> status = bytes, text */
	CTL_OP_READDIR = 4,	/* path -> chunks of entries (u32 mode, u16 len, name) */
	CTL_OP_STAT = 5,	/* path -> u32 mode */
	CTL_OP_STREAM = 6,	/* u32 flags, path -> chunks until the file ends or CTL_OP_STOP */
	CTL_OP_STOP = 7,	/* (during a stream) end it */
	CTL_OP_GETBUF = 8,	/* instance path ("" top) -> struct ctl_bufinfo + memfd */
	CTL_OP_PUTBUF = 9,	/* release the consumer role taken by GETBUF */
	CTL_OP_PING = 10,	/* -> struct ctl_ping */
	CTL_OP_MKDIR = 11,	/* path */
	CTL_OP_RMDIR = 12,	/* path */
	CTL_OP_HOLD = 13,	/* -> status: 0 no hold pending, 1 armed, 2 a thread is parked */
	CTL_OP_RELEASE = 14,	/* end the start-up hold -> status: threads that were parked */
	CTL_OP_MAX = 14,
};

/* struct ctl_resp_hdr.flags */
#define CTL_RF_MORE		(1u << 0)	/* more responses to this request follow */
#define CTL_RF_FD		(1u << 1)	/* a descriptor came with this frame */

/* CTL_OP_WRITE flags: EVT_TRACEFS_TRUNC / EVT_TRACEFS_APPEND, passed through */
#define CTL_WF_TRUNC		(1u << 2)
#define CTL_WF_APPEND		(1u << 3)
#define CTL_WF_MASK		(CTL_WF_TRUNC | CTL_WF_APPEND)

struct ctl_req_hdr {
	uint32_t magic;
	uint16_t op;
	uint16_t version;
	uint32_t len;		/* payload bytes that follow, <= CTL_REQ_MAX */
} __attribute__((packed));

struct ctl_resp_hdr {
	uint32_t magic;
	uint16_t op;
	uint16_t flags;		/* CTL_RF_* */
	int32_t status;		/* last frame: >= 0 or -errno */
	uint32_t len;		/* payload bytes that follow, <= CTL_RESP_MAX */
} __attribute__((packed));

struct ctl_hello {
	uint32_t version;	/* CTL_VERSION */
	uint32_t pid;
	uint32_t uid;		/* the server's effective uid */
	uint32_t nr_cpus;	/* CPUs of the top instance's buffer */
	char comm[CTL_COMM_MAX];	/* the program's name, NUL-terminated */
} __attribute__((packed));

struct ctl_bufinfo {
	uint32_t nr_cpus;
	uint32_t page_size;
	uint64_t size;		/* bytes of pages per CPU */
	char clock[32];		/* the instance's trace clock, NUL-terminated */
} __attribute__((packed));

struct ctl_ping {
	uint32_t exiting;	/* 1: the process is in exit(), waiting for consumers */
	uint32_t clients;
	uint64_t events;	/* number of registered events */
	uint32_t accept_errors; /* evt_control_stats(3): accept() failures (backed off) */
	uint32_t refused;	/* peers refused (another user) */
	uint32_t start_failures; /* earlier starts that failed */
	int32_t last_error;	 /* -errno of the last of those, 0 */
} __attribute__((packed));

/*
 * struct ctl_request - a request as ctl_parse_request() checked it.
 * Pointers point into the frame given (@path NUL-terminated by the
 * parser: the frame is copied by the server with one spare byte).
 */
struct ctl_request {
	unsigned int op;
	uint32_t flags;
	uint64_t offset, max;
	char *path;		/* "" if none */
	size_t path_len;
	const unsigned char *data;
	size_t data_len;
};

/**
 * ctl_parse_request() - check one request frame and split it.
 * @frame: header and payload, with at least one writable byte after @len
 *         (the parser NUL-terminates the path in place).
 * @len:   bytes of the frame (header included).
 * @req:   filled on success.
 *
 * Context: any; pure function of its input.
 * Return: 0, -EPROTO (bad magic or version), -EMSGSIZE (lengths that do
 * not add up or exceed the limits), -EINVAL (bad op, flags, a path with a
 * NUL byte or longer than CTL_PATH_MAX).
 */
int ctl_parse_request(unsigned char *frame, size_t len, struct ctl_request *req);

#endif /* EVT_CONTROL_CTL_PROTO_H */
