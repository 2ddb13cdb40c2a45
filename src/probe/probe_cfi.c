// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe_cfi.c - unwind information for the trampolines.
 *
 * A trampoline is code written at run time: no .eh_frame describes it, and an unwinder
 * (backtrace() under the stacktrace trigger, a debugger, a profiler) that reaches one of its
 * return addresses stops there. Each trampoline gets a CIE and an FDE of its own, in the
 * .eh_frame form, registered with __register_frame() of libgcc_s, the unwinder glibc's
 * backtrace() and C++ exceptions use. The architecture's code says what the rules are
 * (probe_arch_*: where the CFA is, where each register was saved, what the return address
 * is); this file only encodes and registers them.
 *
 * The stack traces of the events layer skip the frames of the machinery: the pages that hold
 * trampolines are noted here, and the events layer asks (its stack skip hook).
 *
 * The records are never freed, as the trampolines they describe are never unmapped.
 * Registration is best effort: without libgcc_s (a static unwinder, LLVM's libunwind, whose
 * __register_frame() takes one FDE) stack traces stop at the trampoline, as before.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compat/atomic.h"
#include "events/event_internal.h"
#include "probe/probe_arch.h"
#include "probe/probe_cfi.h"

/* Trampoline pages, append-only (never unmapped once noted); more are not skipped. */
#define TRAMP_PAGES_MAX 4096
static uint64_t tramp_pages[TRAMP_PAGES_MAX];
static unsigned int nr_tramp_pages; /* written under event_mutex, read lock-free */

void probe_tramp_note(const void *page)
{
	unsigned int n = nr_tramp_pages;

	if (n == TRAMP_PAGES_MAX)
		return;
	tramp_pages[n] = (uint64_t)(uintptr_t)page;
	/* Release: the entry before the count (pairs with the acquire in probe_is_tramp()). */
	st_release(&nr_tramp_pages, n + 1);
	if (!n)
		event_set_stack_skip_hook(probe_is_tramp);
}

bool probe_is_tramp(uint64_t pc)
{
	/* Acquire: pairs with the release in probe_tramp_note(). */
	unsigned int n = ld_acquire(&nr_tramp_pages);

	/* Not a page's first byte: the return trampoline's entry, a return address that a
	 * return probe hijacked, marks a frame of the program, not one of ours. */
	for (unsigned int i = 0; i < n; i++)
		if (pc - tramp_pages[i] - 1 < PROBE_TRAMP_SIZE - 1)
			return true;
	return false;
}

/* DWARF call frame instructions and expression operators used here. */
enum {
	DW_CFA_nop = 0x00,
	DW_CFA_offset = 0x80,	      /* | reg: reg saved at CFA + uleb * data_align */
	DW_CFA_def_cfa = 0x0c,	      /* reg, offset */
	DW_CFA_offset_extended_sf = 0x11, /* reg, sleb * data_align */
	DW_CFA_val_expression = 0x16, /* reg, block: reg's value is the expression */
	DW_OP_const8u = 0x0e,
};

#define DATA_ALIGN (-8)

static void put(struct probe_cfi *c, uint8_t b)
{
	if (c->len < sizeof(c->insn))
		c->insn[c->len] = b;
	c->len++; /* an overflow is seen by probe_cfi_register() */
}

static void put_uleb(struct probe_cfi *c, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		put(c, v ? b | 0x80 : b);
	} while (v);
}

static void put_sleb(struct probe_cfi *c, int64_t v)
{
	for (;;) {
		uint8_t b = v & 0x7f;

		v >>= 7; /* arithmetic: gcc and clang shift signed values so */
		if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
			put(c, b);
			return;
		}
		put(c, b | 0x80);
	}
}

void probe_cfi_def_cfa(struct probe_cfi *c, unsigned int reg, uint64_t off)
{
	put(c, DW_CFA_def_cfa);
	put_uleb(c, reg);
	put_uleb(c, off);
}

void probe_cfi_saved_at(struct probe_cfi *c, unsigned int reg, int64_t cfa_off)
{
	int64_t f = cfa_off / DATA_ALIGN;

	if (reg < 64 && f >= 0) {
		put(c, (uint8_t)(DW_CFA_offset | reg));
		put_uleb(c, (uint64_t)f);
		return;
	}
	put(c, DW_CFA_offset_extended_sf);
	put_uleb(c, reg);
	put_sleb(c, f);
}

void probe_cfi_value(struct probe_cfi *c, unsigned int reg, uint64_t value)
{
	put(c, DW_CFA_val_expression);
	put_uleb(c, reg);
	put_uleb(c, 9); /* the block: DW_OP_const8u and its 8 bytes */
	put(c, DW_OP_const8u);
	for (int i = 0; i < 8; i++)
		put(c, (uint8_t)(value >> (8 * i)));
}

void *probe_libgcc_s(void)
{
	void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD);

	return h ? h : dlopen("libgcc_s.so.1", RTLD_NOW);
}

/* The unwinder's registration function: libgcc_s's, loaded by glibc's backtrace() already. */
static void (*register_fn(void))(const void *)
{
	static void (*fn)(const void *); /* event_mutex */
	void *h;

	if (fn)
		return fn;
	h = probe_libgcc_s();
	if (h)
		fn = (void (*)(const void *))dlsym(h, "__register_frame");
	return fn;
}

struct out {
	uint8_t *p;
	size_t len;
};

static void out_bytes(struct out *o, const void *b, size_t n)
{
	memcpy(o->p + o->len, b, n);
	o->len += n;
}

static void out_u32(struct out *o, uint32_t v)
{
	out_bytes(o, &v, 4);
}

static void out_u64(struct out *o, uint64_t v)
{
	out_bytes(o, &v, 8);
}

/* Pad the record begun at @start with DW_CFA_nop to a multiple of 8 and set its length. */
static void out_close(struct out *o, size_t start)
{
	uint32_t len;

	while ((o->len - start) % 8)
		o->p[o->len++] = DW_CFA_nop;
	len = (uint32_t)(o->len - start - 4);
	memcpy(o->p + start, &len, 4);
}

int probe_cfi_register(uint64_t lo, uint64_t hi, const struct probe_cfi *c, unsigned int ra_reg,
		       bool signal_frame)
{
	static const char aug_sig[] = "zRS", aug[] = "zR";
	void (*reg)(const void *) = register_fn();
	size_t cie, fde;
	struct out o;

	if (c->len > sizeof(c->insn))
		return -E2BIG;
	if (!reg)
		return -ENOSYS;
	/* CIE (at most 32 bytes) + FDE (at most 40 + insn) + the terminator */
	o.p = calloc(1, 32 + 40 + sizeof(c->insn) + 8);
	if (!o.p)
		return -ENOMEM;
	o.len = 0;

	cie = o.len;
	out_u32(&o, 0);		/* length, set by out_close() */
	out_u32(&o, 0);		/* CIE id */
	o.p[o.len++] = 1;	/* version */
	if (signal_frame)	/* S: the caller's pc is exact, not a return address */
		out_bytes(&o, aug_sig, sizeof(aug_sig));
	else
		out_bytes(&o, aug, sizeof(aug));
	o.p[o.len++] = 1;			  /* code alignment factor */
	o.p[o.len++] = DATA_ALIGN & 0x7f;	  /* data alignment factor, sleb128 -8 */
	o.p[o.len++] = (uint8_t)ra_reg;		  /* return address column */
	o.p[o.len++] = 1;			  /* z: augmentation data length */
	o.p[o.len++] = 0;			  /* R: DW_EH_PE_absptr */
	out_close(&o, cie);

	fde = o.len;
	out_u32(&o, 0);
	out_u32(&o, (uint32_t)(o.len - cie)); /* back to the CIE, from this field */
	out_u64(&o, lo);
	out_u64(&o, hi - lo);
	o.p[o.len++] = 0; /* z: no augmentation data */
	out_bytes(&o, c->insn, c->len);
	out_close(&o, fde);
	out_u32(&o, 0); /* the end of the "section" */

	reg(o.p); /* keeps the pointer: never freed */
	return 0;
}
