// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-macros: TRACE_EVENT() for every field kind: the record a call
 * site writes holds the common fields and every field where the
 * descriptors say, with the values given; dynamic fields are encoded as
 * the kernel's __data_loc (len << 16 | offset); a disabled event writes
 * nothing (its arguments are evaluated, as in the kernel: trace_<name>() is
 * an inline function; trace_<name>_enabled() guards costly ones).
 */
#include <stdlib.h>
#include <sys/syscall.h>

#define CREATE_TRACE_POINTS
#include "events-test-tp.h"
#include "events-class-tp.h"

#include "events-util.h"

static int ints_seen, arrays_seen;

static void check_ints(const void *rec, unsigned int len, void *arg)
{
	const struct evt_raw_evtest_ints *e = rec;
	int64_t v = *(int64_t *)arg;

	if (e->ent.common_type != evt_event_id(__evt_def_evtest_ints.event))
		return;
	T_ASSERT(len >= sizeof(*e));
	T_ASSERT_EQ(e->ent.common_pid, syscall(SYS_gettid));
	T_ASSERT_EQ(e->ent.common_tgid, getpid());
	T_ASSERT_EQ(e->ent.common_preempt_count, 0);
	T_ASSERT_EQ(e->s8, (int8_t)v);
	T_ASSERT_EQ(e->u8, (uint8_t)v);
	T_ASSERT_EQ(e->s16, (int16_t)v);
	T_ASSERT_EQ(e->u16, (uint16_t)v);
	T_ASSERT_EQ(e->s32, (int32_t)v);
	T_ASSERT_EQ(e->u32, (uint32_t)v);
	T_ASSERT_EQ(e->s64, v);
	T_ASSERT_EQ(e->u64, (uint64_t)v);
	T_ASSERT_EQ(e->b, v != 0);
	T_ASSERT_EQ(e->c, 'A');
	T_ASSERT_EQ(e->l, (long)v);
	T_ASSERT_EQ(e->ptr, 0x1234);
	ints_seen++;
}

static void check_arrays(const void *rec, unsigned int len, void *arg)
{
	const struct evt_raw_evtest_arrays *e = rec;
	const unsigned char *base = rec;
	uint32_t loc;

	(void)arg;
	if (e->ent.common_type != evt_event_id(__evt_def_evtest_arrays.event))
		return;
	T_ASSERT(!strcmp(e->comm, "evtest"));
	T_ASSERT_EQ(e->fixed[0], -1);
	T_ASSERT_EQ(e->fixed[2], -3);
	loc = e->__data_loc_name;
	T_ASSERT_EQ(evt_data_loc_offset(loc), sizeof(*e));
	T_ASSERT_EQ(evt_data_loc_len(loc), 6);		/* "hello" + NUL */
	T_ASSERT(!memcmp(base + evt_data_loc_offset(loc), "hello", 6));
	loc = e->__data_loc_vals;
	T_ASSERT_EQ(evt_data_loc_offset(loc), sizeof(*e) + 6);
	T_ASSERT_EQ(evt_data_loc_len(loc), 3 * sizeof(int));
	{
		int v[3];

		memcpy(v, base + evt_data_loc_offset(loc), sizeof(v));
		T_ASSERT(v[0] == 7 && v[1] == -8 && v[2] == 9);
	}
	loc = e->__data_loc_bytes;
	T_ASSERT_EQ(evt_data_loc_len(loc), 2);
	T_ASSERT(base[evt_data_loc_offset(loc)] == 0xab);
	T_ASSERT(base[evt_data_loc_offset(loc) + 1] == 0xcd);
	T_ASSERT(len >= (unsigned int)evt_data_loc_offset(loc) + 2);
	arrays_seen++;
}

static int evaluated;

static int side_effect(void)
{
	return ++evaluated;
}

int main(void)
{
	struct evt_instance *inst = t_instance("macros");
	const struct evt_event_def *d = &__evt_def_evtest_ints;
	int vals[3] = { 7, -8, 9 };
	uint8_t bytes[2] = { 0xab, 0xcd };
	char big[4000];
	int64_t v;

	/* the descriptors */
	T_ASSERT(d->event != NULL);
	T_ASSERT_EQ(d->nr_fields, 13);
	T_ASSERT(!strcmp(d->fields[0].name, "s8") && d->fields[0].is_signed == 1);
	T_ASSERT_EQ(d->fields[0].offset, 12);
	T_ASSERT(!strcmp(d->fields[1].type, "uint8_t") && d->fields[1].is_signed == 0);
	T_ASSERT_EQ(d->fields[7].size, 8);
	T_ASSERT_EQ(d->fields[7].offset % 4, 0);
	T_ASSERT_EQ(d->fields[12].kind, EVT_FIELD_PTR);
	T_ASSERT_EQ(__evt_def_evtest_arrays.fields[0].kind, EVT_FIELD_STRING);
	T_ASSERT(!strcmp(__evt_def_evtest_arrays.fields[0].type, "char[16]"));
	T_ASSERT_EQ(__evt_def_evtest_arrays.fields[1].kind, EVT_FIELD_ARRAY);
	T_ASSERT_EQ(__evt_def_evtest_arrays.fields[1].elem_size, 2);
	T_ASSERT_EQ(__evt_def_evtest_arrays.fields[2].kind, EVT_FIELD_DYN_STRING);
	T_ASSERT_EQ(__evt_def_evtest_arrays.fields[3].kind, EVT_FIELD_DYN_ARRAY);
	T_ASSERT(!strcmp(__evt_def_evtest_arrays.fields[3].type, "__data_loc int[]"));

	/* off: nothing written */
	T_ASSERT(!trace_evtest_ints_enabled());
	trace_evtest_ints(side_effect());
	if (trace_evtest_ints_enabled())
		trace_evtest_ints(side_effect());
	T_ASSERT_EQ(evaluated, 1);
	T_ASSERT_EQ(t_consume(inst, NULL, NULL), 0);

	T_ASSERT_EQ(evt_instance_event_enable(inst, "evtest", "evtest_ints", true), 1);
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evtest", "evtest_arrays", true), 1);
	T_ASSERT(trace_evtest_ints_enabled());
	for (v = -300; v <= 300; v += 100) {
		ints_seen = 0;
		trace_evtest_ints(v);
		T_ASSERT_EQ(t_consume(inst, check_ints, &v), 1);
		T_ASSERT_EQ(ints_seen, 1);
	}
	v = INT64_MIN;
	trace_evtest_ints(v);
	T_ASSERT_EQ(t_consume(inst, check_ints, &v), 1);

	trace_evtest_arrays("hello", vals, 3, bytes, 2);
	T_ASSERT_EQ(t_consume(inst, check_arrays, NULL), 1);
	T_ASSERT_EQ(arrays_seen, 1);

	/* NULL string: "(null)"; a huge string is cut to EVT_STRING_MAX - 1 bytes */
	trace_evtest_arrays(NULL, vals, 0, bytes, 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	trace_evtest_arrays(big, vals, 0, bytes, 0);
	{
		const char *t = t_trace_text(inst, -1);

		T_ASSERT(strstr(t, "name=(null) vals={} bytes= n=0"));
		T_ASSERT(strstr(t, "name=xxxx"));
	}
	T_ASSERT_EQ(t_consume(inst, NULL, NULL), 2);

	/* conditions: tested at the call site, on the arguments */
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evclass", "evclass_big_read", true), 1);
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evclass", "evclass_odd", true), 1);
	trace_evclass_big_read(1, 100, "small");
	trace_evclass_big_read(1, 8192, "big");
	for (int n = 0; n < 6; n++)
		trace_evclass_odd(n);
	{
		const char *t = t_trace_text(inst, -1);

		T_ASSERT(!strstr(t, "what=small"));
		T_ASSERT(strstr(t, "evclass_big_read: fd=1 len=8192 what=big\n"));
		T_ASSERT_EQ(t_count(t, "evclass_odd: "), 3);
		T_ASSERT(strstr(t, "evclass_odd: n=5\n") && !strstr(t, "evclass_odd: n=4\n"));
	}
	T_ASSERT_EQ(t_consume(inst, NULL, NULL), 4);
	evt_instance_event_enable(inst, "evclass", NULL, false);

	/* an event class: three events, one layout, their own IDs and call sites */
	T_ASSERT_EQ(evt_event_count("evclass", NULL), 5);
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evclass", "evclass_[rsw]*", true), 3);
	trace_evclass_read(3, 100, "r");
	trace_evclass_write(4, 200, "w");
	trace_evclass_sync(5, 0, "s");
	{
		const char *t = t_trace_text(inst, -1);
		char fmt[4096];

		T_ASSERT(strstr(t, "evclass_read: fd=3 len=100 what=r\n"));
		T_ASSERT(strstr(t, "evclass_write: fd=4 len=200 what=w\n"));
		T_ASSERT(strstr(t, "evclass_sync: sync fd=5\n"));
		T_ASSERT(evt_event_id(__evt_def_evclass_read.event) !=
			 evt_event_id(__evt_def_evclass_write.event));
		evt_event_format_text("evclass", "evclass_write", fmt, sizeof(fmt));
		T_ASSERT(strstr(fmt, "\tfield:unsigned long len;\toffset:16;\tsize:8;"
				     "\tsigned:0;\n"));
		T_ASSERT(strstr(fmt, "print fmt: \"fd=%d len=%lu what=%s\", REC->fd, REC->len, "
				     "__get_str(what)\n"));
	}
	T_ASSERT_EQ(t_consume(inst, NULL, NULL), 3);
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evclass", "evclass_write", false), 1);
	trace_evclass_write(4, 200, "w");
	T_ASSERT(!trace_evclass_write_enabled() && trace_evclass_read_enabled());
	T_ASSERT_EQ(t_consume(inst, NULL, NULL), 0);
	evt_instance_event_enable(inst, "evclass", NULL, false);

	/* off again */
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evtest", "*", false), 5);
	T_ASSERT(!trace_evtest_ints_enabled());
	trace_evtest_ints(1);
	T_ASSERT_EQ(t_consume(inst, NULL, NULL), 0);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
