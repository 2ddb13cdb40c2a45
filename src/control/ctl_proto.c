// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctl_proto.c - what both ends of the control socket share: the request
 * parser (the only code that reads bytes a peer chose; fuzzed by
 * tests/fuzz/control-request.c) and where the sockets live.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control/ctl_client.h"
#include "control/ctl_proto.h"

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The path at @p, @len bytes: no NUL inside, not too long; NUL-terminated in place. */
static int take_path(struct ctl_request *req, unsigned char *p, size_t len)
{
	if (len > CTL_PATH_MAX || memchr(p, '\0', len))
		return -EINVAL;
	req->path_len = len;
	req->path = (char *)p;
	return 0;
}

int ctl_parse_request(unsigned char *frame, size_t len, struct ctl_request *req)
{
	struct ctl_req_hdr h;
	unsigned char *pl;
	size_t plen;
	int ret;

	if (!frame || !req || len < sizeof(h))
		return -EMSGSIZE;
	memcpy(&h, frame, sizeof(h));
	if (h.magic != CTL_MAGIC || h.version != CTL_VERSION)
		return -EPROTO;
	if (h.len > CTL_REQ_MAX || h.len != len - sizeof(h))
		return -EMSGSIZE;
	memset(req, 0, sizeof(*req));
	req->op = h.op;
	pl = frame + sizeof(h);
	plen = h.len;

	switch (h.op) {
	case CTL_OP_READ:
		if (plen < 16)
			return -EMSGSIZE;
		req->offset = get_u64(pl);
		req->max = get_u64(pl + 8);
		ret = take_path(req, pl + 16, plen - 16);
		break;
	case CTL_OP_STREAM:
		if (plen < 4)
			return -EMSGSIZE;
		req->flags = get_u32(pl);
		if (req->flags)
			return -EINVAL;
		ret = take_path(req, pl + 4, plen - 4);
		break;
	case CTL_OP_WRITE: {
		uint32_t plen_path;

		if (plen < 8)
			return -EMSGSIZE;
		req->flags = get_u32(pl);
		plen_path = get_u32(pl + 4);
		if (req->flags & ~CTL_WF_MASK)
			return -EINVAL;
		if (plen_path > plen - 8)
			return -EMSGSIZE;
		req->data_len = plen - 8 - plen_path;
		if (req->data_len > CTL_DATA_MAX)
			return -EMSGSIZE;
		/* The path is NUL-terminated in place: move the data out of the way first. */
		req->data = pl + 8 + plen_path;
		if (plen_path > CTL_PATH_MAX || memchr(pl + 8, '\0', plen_path))
			return -EINVAL;
		/*
		 * The terminator would overwrite the data's first byte: shift the
		 * path down over the 8 header bytes instead (they were read above).
		 */
		memmove(pl, pl + 8, plen_path);
		pl[plen_path] = '\0';
		req->path = (char *)pl;
		req->path_len = plen_path;
		return 0;
	}
	case CTL_OP_READDIR:
	case CTL_OP_STAT:
	case CTL_OP_GETBUF:
	case CTL_OP_MKDIR:
	case CTL_OP_RMDIR:
		ret = take_path(req, pl, plen);
		break;
	case CTL_OP_STOP:
	case CTL_OP_PUTBUF:
	case CTL_OP_PING:
	case CTL_OP_HOLD:
	case CTL_OP_RELEASE:
		if (plen)
			return -EMSGSIZE;
		ret = take_path(req, pl, 0);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	/* The frame has one writable byte after its end (the caller's promise). */
	req->path[req->path_len] = '\0';
	return 0;
}

int ctl_socket_dir(char *buf, size_t len)
{
	/* secure_getenv: a setuid or setgid program ignores the variables (docs/control.md) */
	const char *env = secure_getenv("EVTRACE_CONTROL_DIR");
	unsigned int uid = (unsigned int)geteuid();
	struct stat st;
	int n;

	if (env && *env) {
		/*
		 * A directory others can write to, with the sticky bit (/tmp): our own
		 * subdirectory in it, as /tmp/evtrace-UID is. Without the sticky bit,
		 * secdir_make() and secdir_open() refuse it.
		 */
		if (stat(env, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) &&
		    (st.st_mode & (S_IWGRP | S_IWOTH)))
			n = snprintf(buf, len, "%s/evtrace-%u", env, uid);
		else
			n = snprintf(buf, len, "%s", env);
	} else if (uid == 0) {
		n = snprintf(buf, len, "/run/evtrace");
	} else if ((env = secure_getenv("XDG_RUNTIME_DIR")) && *env == '/') {
		n = snprintf(buf, len, "%s/evtrace", env);
	} else {
		n = snprintf(buf, len, "/tmp/evtrace-%u", uid);
	}
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int ctl_socket_path(pid_t pid, char *buf, size_t len)
{
	char dir[256];
	int ret = ctl_socket_dir(dir, sizeof(dir)), n;

	if (ret)
		return ret;
	n = snprintf(buf, len, "%s/%d.sock", dir, (int)pid);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}
