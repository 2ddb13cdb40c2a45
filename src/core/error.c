// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/error.c - text for evtrace return values.
 *
 * A negative errno value gets the C library's description of it (glibc:
 * strerrordesc_np(), a static string, thread- and async-signal-safe,
 * unlike strerror()); elsewhere a table of the codes evtrace returns.
 * The EVT_ERRNO range (below -4095) has no codes yet: when codes are
 * added there, their texts go in a table here.
 */
#include <errno.h>
#include <string.h>

#include <evtrace/error.h>

#if !(defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32)))
/* The errno values evtrace functions return, with glibc's wording. */
static const char *const errno_text[] = {
	[EPERM] = "Operation not permitted",
	[ENOENT] = "No such file or directory",
	[ESRCH] = "No such process",
	[EINTR] = "Interrupted system call",
	[EIO] = "Input/output error",
	[ENXIO] = "No such device or address",
	[E2BIG] = "Argument list too long",
	[EBADF] = "Bad file descriptor",
	[EAGAIN] = "Resource temporarily unavailable",
	[ENOMEM] = "Cannot allocate memory",
	[EACCES] = "Permission denied",
	[EFAULT] = "Bad address",
	[EBUSY] = "Device or resource busy",
	[EEXIST] = "File exists",
	[ENODEV] = "No such device",
	[ENOTDIR] = "Not a directory",
	[EISDIR] = "Is a directory",
	[EINVAL] = "Invalid argument",
	[ENFILE] = "Too many open files in system",
	[EMFILE] = "Too many open files",
	[EFBIG] = "File too large",
	[ENOSPC] = "No space left on device",
	[ESPIPE] = "Illegal seek",
	[EROFS] = "Read-only file system",
	[EPIPE] = "Broken pipe",
	[ERANGE] = "Numerical result out of range",
	[EDEADLK] = "Resource deadlock avoided",
	[ENAMETOOLONG] = "File name too long",
	[ENOSYS] = "Function not implemented",
	[ENOTEMPTY] = "Directory not empty",
	[ENODATA] = "No data available",
	[EOVERFLOW] = "Value too large for defined data type",
	[EBADMSG] = "Bad message",
	[EOPNOTSUPP] = "Operation not supported",
	[ENOBUFS] = "No buffer space available",
	[ETIMEDOUT] = "Connection timed out",
	[EALREADY] = "Operation already in progress",
	[EINPROGRESS] = "Operation now in progress",
	[ECANCELED] = "Operation canceled",
};

static const char *errno_desc(int e)
{
	return e > 0 && (size_t)e < sizeof(errno_text) / sizeof(errno_text[0]) ? errno_text[e]
									       : NULL;
}
#else
static const char *errno_desc(int e)
{
	return strerrordesc_np(e);	/* NULL for numbers without a name */
}
#endif

const char *evt_strerror(int err)
{
	const char *s;

	if (err == 0)
		return "Success";
	/* -4095..-1: errno; positive values and the rest are not errors we return */
	if (err < 0 && err > -4096) {
		s = errno_desc(-err);
		if (s)
			return s;
	}
	return "Unknown error";
}
