/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evtrace/error.h - error codes.
 *
 * Every int-returning evtrace function returns 0 (or a count) on success
 * and a negative errno value on failure; errno itself is never touched.
 * Codes that errno has no word for live in their own range, far below
 * -4095, and evt_strerror() gives text for both kinds.
 */
#ifndef EVTRACE_ERROR_H
#define EVTRACE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define EVT_ERRNO__START	(-100000)

/**
 * evt_strerror() - text for an evtrace return value.
 * @err: a negative errno value or an EVT_ERRNO code.
 *
 * Return: a static string; never NULL.
 */
const char *evt_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* EVTRACE_ERROR_H */
