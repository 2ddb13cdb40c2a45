/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe_cfi.h - DWARF unwind rules for code written at run time (probe_cfi.c).
 *
 * The architecture's trampoline builder states the rules that hold at its call into C
 * (registers are DWARF numbers, offsets in bytes), then registers them for the trampoline's
 * address range.
 */
#ifndef EVT_PROBE_CFI_H
#define EVT_PROBE_CFI_H

#include <stdbool.h>
#include <stdint.h>

struct probe_cfi {
	uint8_t insn[192]; /* call frame instructions */
	size_t len;	   /* may exceed sizeof(insn): probe_cfi_register() refuses it */
};

/* The CFA is @reg + @off. */
void probe_cfi_def_cfa(struct probe_cfi *c, unsigned int reg, uint64_t off);

/* The caller's @reg was saved at CFA + @cfa_off (a multiple of 8). */
void probe_cfi_saved_at(struct probe_cfi *c, unsigned int reg, int64_t cfa_off);

/* The caller's @reg is @value (a constant: the probed address, for a signal frame's pc). */
void probe_cfi_value(struct probe_cfi *c, unsigned int reg, uint64_t value);

/*
 * probe_libgcc_s() - libgcc_s, the unwinder of glibc's backtrace() and of C++ exceptions:
 * its handle, loaded if it was not yet, or NULL. Context: not from a hit (dlopen).
 */
void *probe_libgcc_s(void);

/*
 * probe_cfi_register() - register @c for the code in [@lo, @hi), @ra_reg being the
 * return-address column; @signal_frame: the return address is the exact pc of the caller
 * (an interrupted instruction), not the address after a call.
 * Return: 0, -ENOSYS (no libgcc_s unwinder to register with), -E2BIG, -ENOMEM.
 * Context: event_mutex held; never undone (the code stays mapped).
 */
int probe_cfi_register(uint64_t lo, uint64_t hi, const struct probe_cfi *c, unsigned int ra_reg,
		       bool signal_frame);

/*
 * probe_tramp_note() - @page (PROBE_TRAMP_SIZE bytes) holds a trampoline from now on:
 * stack traces skip its frames (the events layer's stack skip hook, set by the first
 * call). Context: event_mutex held.
 */
void probe_tramp_note(const void *page);

/* Whether @pc is inside a noted trampoline page (but its first byte: the return trampoline's
 * entry, a hijacked return address). Lock-free: any context, a hit included. */
bool probe_is_tramp(uint64_t pc);

#endif
