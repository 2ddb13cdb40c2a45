/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * events/field.h - how a field of an event record is described.
 *
 * One descriptor per field of an event, common fields included: the
 * event layer builds them from TRACE_EVENT() definitions, the filter
 * compiler resolves `field op value` against them, the printer and the
 * `format` file read them. It is the one contract between those layers:
 * nothing here knows about instances, ring buffers or filters.
 *
 * The definitions (enum evt_field_kind, struct evt_field, evt_data_loc_*)
 * are public, in evtrace/events.h, because the TRACE_EVENT() expansion in
 * user code builds the descriptors.
 *
 * Offsets are from the start of the record (the ring buffer event's
 * payload), as in the kernel's `format` file: common_type is at 0.
 */
#ifndef EVT_EVENTS_FIELD_H
#define EVT_EVENTS_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/events.h>

#endif /* EVT_EVENTS_FIELD_H */
