// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe/tp_page.c - the parser of the on-pipe page format
 * (include/evtrace/tracepipe.h, docs/tracepipe.md).
 *
 * The bytes come from a pipe anybody may write to: every length is
 * checked against the buffer before it is used, nothing is assumed
 * about alignment (fields are copied out with memcpy).
 */
#include <errno.h>
#include <string.h>

#include <evtrace/tracepipe.h>

_Static_assert(sizeof(struct evt_tracepipe_page_header) == EVT_TRACEPIPE_PAGE_HDR,
	       "page header layout");
_Static_assert(sizeof(struct evt_tracepipe_record_header) == EVT_TRACEPIPE_REC_HDR,
	       "record header layout");
_Static_assert(sizeof(struct evt_tracepipe_stream_info) == EVT_TRACEPIPE_STREAM_INFO,
	       "stream info layout");

/**
 * evt_tracepipe_page_parse() - check the page at the start of @buf.
 * @buf: bytes read from the stream, starting at a page boundary.
 * @len: how many.
 * @page: filled in on success.
 *
 * A stream page (hdr.cpu == EVT_TRACEPIPE_STREAM_CPU) must be exactly
 * header + struct evt_tracepipe_stream_info; @page->stream is then 1 and
 * @page->info holds it, and evt_tracepipe_record_next() finds no record.
 *
 * Return: the page's size in bytes (> 0: the next page starts there),
 * -EAGAIN if @len is shorter than the header or than the page it
 * announces (read more), -EBADMSG if the header is not a page header.
 */
int evt_tracepipe_page_parse(const void *buf, size_t len, struct evt_tracepipe_page *page)
{
	struct evt_tracepipe_page_header h;

	if (!buf || !page)
		return -EINVAL;
	if (len < sizeof(h))
		return -EAGAIN;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != EVT_TRACEPIPE_MAGIC || h.version != EVT_TRACEPIPE_VERSION ||
	    h.hdr_size != EVT_TRACEPIPE_PAGE_HDR || h.size < EVT_TRACEPIPE_PAGE_HDR ||
	    h.size > EVT_TRACEPIPE_PAGE_SIZE)
		return -EBADMSG;
	if (h.cpu == EVT_TRACEPIPE_STREAM_CPU && h.size != EVT_TRACEPIPE_PAGE_HDR +
							    EVT_TRACEPIPE_STREAM_INFO)
		return -EBADMSG;
	if (len < h.size)
		return -EAGAIN;
	memset(&page->info, 0, sizeof(page->info));
	page->stream = h.cpu == EVT_TRACEPIPE_STREAM_CPU;
	if (page->stream) {
		memcpy(&page->info, (const unsigned char *)buf + EVT_TRACEPIPE_PAGE_HDR,
		       sizeof(page->info));
		if (page->info.shift >= 64)
			return -EBADMSG;
	}
	page->hdr = h;
	page->data = buf;
	/* A stream page has no records: the walk is over before it begins. */
	page->next = page->stream ? h.size : h.hdr_size;
	return (int)h.size;
}

/**
 * evt_tracepipe_record_next() - the next record of a parsed page.
 * @page: from evt_tracepipe_page_parse().
 * @rec: filled in when a record is returned.
 *
 * Return: 1 and the record, 0 at the end of the page, -EBADMSG if the
 * record would cross the page's end (the page is then exhausted).
 */
int evt_tracepipe_record_next(struct evt_tracepipe_page *page, struct evt_tracepipe_record *rec)
{
	struct evt_tracepipe_record_header rh;
	uint32_t size, off, total;

	if (!page || !rec || !page->data)
		return -EINVAL;
	size = page->hdr.size;
	off = page->next;
	if (size > EVT_TRACEPIPE_PAGE_SIZE || off >= size)
		return 0;
	if (size - off < EVT_TRACEPIPE_REC_HDR) {
		page->next = size;
		return -EBADMSG;
	}
	memcpy(&rh, page->data + off, sizeof(rh));
	total = (EVT_TRACEPIPE_REC_HDR + (uint32_t)rh.len + EVT_TRACEPIPE_REC_ALIGN - 1) &
		~(uint32_t)(EVT_TRACEPIPE_REC_ALIGN - 1);
	if (total > size - off) {
		page->next = size;
		return -EBADMSG;
	}
	rec->cycles = rh.cycles;
	rec->cpu = rh.cpu;
	rec->len = rh.len;
	rec->payload = page->data + off + EVT_TRACEPIPE_REC_HDR;
	page->next = off + total;
	return 1;
}
