/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * session-dir.h - the session directory of `evtrace record -- CMD`: a
 * directory of the recorder's own that the command's tree serves its
 * control sockets in (EVTRACE_CONTROL_DIR), docs/control.md.
 */
#ifndef EVT_TOOLS_SESSION_DIR_H
#define EVT_TOOLS_SESSION_DIR_H

struct session_dir {
	char path[108]; /* its path (for the environment, socket paths); "" none */
	char name[32];	/* its name in its parent */
	int fd;		/* the directory, opened once (O_NOFOLLOW), -1 */
	int parent_fd;	/* its parent, -1 */
};

/*
 * session_dir_create() - <socket dir>/record-XXXXXX, mode 0700, in the usual
 * socket directory if that one is ours and nobody else can write to it (a
 * refused one is named in a warning), else /tmp/evtrace-record-XXXXXX.
 * Created and opened relative to its parent's descriptor, checked (fstat).
 * Return: 0 or -errno.
 */
int session_dir_create(struct session_dir *sd);

/*
 * session_dir_remove() - unlink what is left in it (through its descriptor)
 * and remove it, if its name still is that directory; close the descriptors.
 * Nothing outside the directory is touched, whatever was done to its name.
 */
void session_dir_remove(struct session_dir *sd);

#endif /* EVT_TOOLS_SESSION_DIR_H */
