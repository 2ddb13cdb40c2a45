/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output/out_field.h - reading a field of a record, for the writers of src/output/ and the
 * report of the evtrace command: one copy.
 */
#ifndef EVT_OUTPUT_OUT_FIELD_H
#define EVT_OUTPUT_OUT_FIELD_H

#include <stdint.h>
#include <string.h>

/*
 * out_rd_uint - the unsigned integer of @size bytes (1, 2, 4, anything else: 8) at @p, in
 * the byte order of this machine (the records'), read with memcpy (@p may be unaligned).
 */
static inline unsigned long long out_rd_uint(const unsigned char *p, unsigned int size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

#endif /* EVT_OUTPUT_OUT_FIELD_H */
