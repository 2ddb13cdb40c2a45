// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf/rb_page.c - the event encoding: writing headers, and walking
 * entries in a page without trusting a single byte of it.
 *
 * The encoding is the kernel's (kernel/trace/ring_buffer.c,
 * rb_update_event / rb_event_length), as libtraceevent's kbuffer reads
 * it; docs/format.md has the tables. Every parser here takes the bytes
 * available and refuses an entry that would run past them.
 */
#include <errno.h>
#include <string.h>

#include "ringbuf/rb_internal.h"

static inline uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * rb_entry_parse() - length of the entry at @p.
 * @p: start of an entry, 4-byte aligned.
 * @avail: bytes from @p to the end of valid data.
 * @len: the entry's total length.
 *
 * A padding entry with fewer than 8 bytes available is the 4-byte
 * "null" padding that ends a page.
 *
 * Return: the entry's type_len (0..31), or -EBADMSG if it does not fit
 * in @avail or its length word is malformed.
 */
int rb_entry_parse(const unsigned char *p, uint32_t avail, uint32_t *len)
{
	uint32_t hdr, type, a0;

	if (avail < RB_HDR_SIZE)
		return -EBADMSG;
	hdr = get_u32(p);
	type = hdr & 31;

	if (type >= 1 && type <= EVT_RINGBUF_TYPE_DATA_TYPE_LEN_MAX) {
		*len = RB_HDR_SIZE + type * 4;
	} else if (type == EVT_RINGBUF_TYPE_TIME_EXTEND || type == EVT_RINGBUF_TYPE_TIME_STAMP) {
		*len = 2 * RB_HDR_SIZE;
	} else if (type == EVT_RINGBUF_TYPE_PADDING && avail < 2 * RB_HDR_SIZE) {
		*len = RB_HDR_SIZE;
	} else {
		if (avail < 2 * RB_HDR_SIZE)
			return -EBADMSG;
		a0 = get_u32(p + 4);
		/* array[0] counts itself; it is a multiple of 4 and at least 4 */
		if (a0 < 4 || (a0 & 3) || a0 > avail - RB_HDR_SIZE)
			return -EBADMSG;
		*len = RB_HDR_SIZE + a0;
	}
	if (*len > avail)
		return -EBADMSG;
	return (int)type;
}

/**
 * rb_entry_ts() - time of the entry at @p given the time of the one before.
 * @p: a parsed entry.
 * @ts: time of the previous entry (or the page time stamp).
 *
 * Return: the entry's absolute time stamp.
 */
uint64_t rb_entry_ts(const unsigned char *p, uint64_t ts)
{
	uint32_t hdr = get_u32(p);
	uint64_t delta = hdr >> 5;

	switch (hdr & 31) {
	case EVT_RINGBUF_TYPE_TIME_EXTEND:
		return ts + ((uint64_t)get_u32(p + 4) << EVT_RB_TS_DELTA_BITS | delta);
	case EVT_RINGBUF_TYPE_TIME_STAMP:
		/* bits 0-26 in the delta, 27-58 in array[0], 59-63 kept from ts */
		return (ts & ~((UINT64_C(1) << 59) - 1)) |
		       ((uint64_t)get_u32(p + 4) << EVT_RB_TS_DELTA_BITS) | delta;
	default:
		return ts + delta;
	}
}

/**
 * rb_time_at() - the time base at offset @off of a page's data.
 * @data: a copy of the page's data, at least @off bytes.
 * @off: where a reader starts; must be the start of an entry.
 * @page_ts: the page's time stamp (the time of its first entry).
 * @ts: set to the time of the entry before @off (@page_ts for 0): the
 *      base the delta of the entry at @off applies to.
 *
 * A reader that starts in the middle of a page (where another consumer,
 * or this one in an earlier mapping, stopped) has no other way to know
 * it: the page header gives the time of offset 0 only, and a consumer's
 * running time lives in its own process. Walking the entries is what the
 * kernel's iterator does too (rb_iter_head_event over a page's deltas).
 *
 * Return: 0, or -EBADMSG when the entries from 0 do not end exactly at
 * @off (*@ts is then the time where the walk stopped).
 */
int rb_time_at(const unsigned char *data, uint32_t off, uint64_t page_ts, uint64_t *ts)
{
	uint32_t pos = 0, len;

	*ts = page_ts;
	while (pos < off) {
		if (rb_entry_parse(data + pos, off - pos, &len) < 0)
			return -EBADMSG;
		*ts = rb_entry_ts(data + pos, *ts);
		pos += len;
	}
	return 0;
}

static inline bool rb_is_data(int type)
{
	return type <= EVT_RINGBUF_TYPE_DATA_TYPE_LEN_MAX;
}

/**
 * rb_scan() - validate the entries of @data from @from and count events.
 * @data: a page's data area.
 * @from: offset of the first entry.
 * @limit: end of the bytes that may hold entries.
 * @closed: the page was closed by a writer: a padding entry that reaches
 *          @limit (or a 4-byte one) marks the end of its data.
 * @end: where the data ends (@limit, or the closing padding).
 * @events: number of data events in [@from, @end).
 *
 * Return: 0, or -EBADMSG at the first malformed entry (@end and @events
 * then describe the valid prefix).
 */
int rb_scan(const unsigned char *data, uint32_t from, uint32_t limit, bool closed,
	    uint32_t *end, uint64_t *events)
{
	uint32_t pos = from, len;
	uint64_t n = 0;
	int type;

	while (pos < limit) {
		/*
		 * The common entry first, inline: a data entry of up to 112 bytes
		 * (type_len 1..28, its length in the header), checked against the
		 * room left exactly as rb_entry_parse() checks it. The overwrite
		 * writer's page switch counts a whole page this way.
		 */
		if (likely(limit - pos >= RB_HDR_SIZE)) {
			uint32_t t = get_u32(data + pos) & 31;

			if (likely(t >= 1 && t <= EVT_RINGBUF_TYPE_DATA_TYPE_LEN_MAX) &&
			    likely(RB_HDR_SIZE + t * 4 <= limit - pos)) {
				n++;
				pos += RB_HDR_SIZE + t * 4;
				continue;
			}
		}
		type = rb_entry_parse(data + pos, limit - pos, &len);
		if (type < 0) {
			*end = pos;
			*events = n;
			return -EBADMSG;
		}
		if (closed && type == EVT_RINGBUF_TYPE_PADDING && pos + len == limit)
			break;
		if (rb_is_data(type))
			n++;
		pos += len;
	}
	*end = pos;
	*events = n;
	return 0;
}

/**
 * rb_copy_racy() - copy ring bytes that a writer may be rewriting.
 * @dst: destination.
 * @src: source in the ring.
 * @len: bytes.
 *
 * Used where the caller validates afterwards and throws the copy away
 * if a writer got there (overwrite-mode consumers, iterators). The race
 * is the design, as in a seqlock reader; it is named so that the TSan
 * suppression file can name it (tests/tsan.supp) and nothing else.
 */
__attribute__((noinline)) void rb_copy_racy(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}

/* ---- public: a cursor over a standalone page ---------------------------- */

int evt_rb_page_iter_init(struct evt_rb_page_iter *it, const void *page, size_t page_size)
{
	uint64_t ts, commit;

	if (!it || !page)
		return -EINVAL;
	memset(it, 0, sizeof(*it));
	if (page_size < EVT_RB_PAGE_HDR_SIZE || page_size > (size_t)1 << 30) {
		it->error = -EBADMSG;
		return -EBADMSG;
	}
	memcpy(&ts, page, 8);
	memcpy(&commit, (const unsigned char *)page + 8, 8);
	it->page = page;
	it->page_size = page_size;
	it->ts = ts;
	it->pos = EVT_RB_PAGE_HDR_SIZE;
	it->commit_flags = (uint32_t)commit & (EVT_RB_PAGE_MISSED_EVENTS | EVT_RB_PAGE_MISSED_STORED);
	commit &= EVT_RB_PAGE_COMMIT_MASK;
	if (commit > page_size - EVT_RB_PAGE_HDR_SIZE) {
		it->end = EVT_RB_PAGE_HDR_SIZE;
		it->error = -EBADMSG;
		return -EBADMSG;
	}
	it->end = EVT_RB_PAGE_HDR_SIZE + commit;
	return 0;
}

int evt_rb_page_iter_next(struct evt_rb_page_iter *it,
			  const struct evt_ring_buffer_event **event, uint64_t *ts)
{
	const unsigned char *p;
	uint32_t len;
	int type;

	if (!it || !it->page)
		return -EINVAL;
	while (!it->error && it->pos < it->end) {
		p = it->page + it->pos;
		if (it->pos & 3)
			goto bad;
		type = rb_entry_parse(p, (uint32_t)(it->end - it->pos), &len);
		if (type < 0)
			goto bad;
		/* a 4-byte null padding (no room for array[0]) ends the data */
		if (type == EVT_RINGBUF_TYPE_PADDING && len == RB_HDR_SIZE) {
			it->pos = it->end;
			break;
		}
		it->ts = rb_entry_ts(p, it->ts);
		it->pos += len;
		if (rb_is_data(type)) {
			if (event)
				*event = (const struct evt_ring_buffer_event *)p;
			if (ts)
				*ts = it->ts;
			return 1;
		}
	}
	return it->error ? it->error : 0;
bad:
	it->error = -EBADMSG;
	return -EBADMSG;
}

/* ---- public: event accessors ------------------------------------------- */

unsigned int evt_ring_buffer_event_length(const struct evt_ring_buffer_event *event)
{
	uint32_t type = event->type_len;

	if (type >= 1 && type <= EVT_RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
		return type * 4;
	if (type == 0)
		return event->array[0] - 4;
	if (type == EVT_RINGBUF_TYPE_PADDING)
		return event->array[0] + RB_HDR_SIZE;
	return 2 * RB_HDR_SIZE;
}

/* The long form's payload (type_len 0: a length word first), out of line: see below. */
static __attribute__((noinline, cold)) void *rb_event_data_long(struct evt_ring_buffer_event *event)
{
	return &event->array[1];
}

void *evt_ring_buffer_event_data(struct evt_ring_buffer_event *event)
{
	/*
	 * A branch, not a select: the header of a record just reserved holds
	 * its time delta, so its load waits for the writer's clock read
	 * (rdtsc, ~10 ns under KVM). A cmov would make the payload's address,
	 * and every store of the caller into it, wait as well; a predicted
	 * branch does not (docs/performance.md, "Third pass"). The call keeps
	 * the compiler from turning the branch back into a select.
	 */
	if (unlikely(event->type_len == 0))
		return rb_event_data_long(event);
	return &event->array[0];
}

unsigned int evt_ring_buffer_time_delta(const struct evt_ring_buffer_event *event)
{
	return event->time_delta;
}
