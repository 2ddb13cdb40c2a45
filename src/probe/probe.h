/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe/probe.h - dynamic probe events (kprobe_events, dynamic_events "p:" and
 * "r:" lines) on the functions of the traced program itself (docs/probes.md).
 *
 * The layer sits above events and synth: it registers its type of dynamic
 * event with dyn_event_register() (synth/synth.h) from a constructor, and
 * its events with event_register_locked(); nothing below calls into it.
 *
 * Pieces:
 *   probe_sym.c    ELF symbols of the loaded objects (.dynsym and .symtab):
 *                  name -> address, address -> "sym+0xoff/0xsize"
 *   probe_patch.c, probe_evac.c, probe_shadow.c, probe_unwind.c
 *                  the mechanism: sites, cross-modification, threads, return
 *                  probes (probe_arch.h lists them)
 *   probe_x86.c    its x86-64 instructions: trampolines, relocation (Zydis)
 *   probe_arm64.c  its aarch64 instructions
 *   probe_fetch.c  fetch arguments: parse, fetch at a hit, record layout
 *   probe.c        definitions, events, the dyn_event_ops, printing
 *
 * Locking: every probe is created, enabled and deleted under event_mutex.
 * A hit (probe_hit(), probe_ret_hit()) runs in the traced thread, in writer
 * context: no lock, no allocation, async-signal-safe.
 */
#ifndef EVT_PROBE_PROBE_H
#define EVT_PROBE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <evtrace/events.h>
#include <evtrace/seq.h>

#define PROBE_GROUP_DEFAULT "kprobes"
#define PROBE_ARGS_MAX	    128 /* the kernel's MAX_TRACE_ARGS */
#define PROBE_DEREF_MAX	    8	/* nested +OFFS(...) (the kernel's FETCH_INSN_MAX / 2) */
#define PROBE_ARRAY_MAX	    64	/* TYPE[N], N < 64 */
#define PROBE_STR_MAX	    4096 /* bytes of one string argument (the kernel's MAX_STRING_SIZE) */
#define PROBE_NAME_MAX	    64	/* group and event names (MAX_EVENT_NAME_LEN) */

/*
 * struct probe_regs - what a trampoline saves on the traced thread's stack,
 * lowest address first (probe_x86.c pushes it in reverse). A handler may
 * change them: the trampoline restores them when it returns (all but sp and
 * pc on aarch64).
 */
#if defined(__aarch64__)
struct probe_regs {
	uint64_t x[31];	   /* x0..x30 (x30: the link register) */
	uint64_t sp;	   /* at the probed instruction */
	uint64_t pc;	   /* the probed instruction */
	uint64_t nzcv;	   /* the condition flags (bits 31..28) */
	uint64_t fpsr, fpcr;
	uint64_t q[32][2]; /* the SIMD and floating-point registers */
};
#else
struct probe_regs {
	uint64_t xmm[16][2];
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t di, si, bp, bx, dx, cx, ax;
	uint64_t flags;
};
#endif

/* What a fetch sees at a hit. */
struct probe_ctx {
	struct probe_regs *regs;
	uint64_t sp;	 /* the stack pointer at the probed instruction */
	uint64_t ip;	 /* the probed instruction */
	uint64_t retval; /* return probes: %ax at the return */
	bool is_return;
};

/* --- symbols (probe_sym.c) --------------------------------------------------------------- */

struct probe_sym {
	uint64_t addr;	   /* of the function in memory */
	uint64_t size;	   /* st_size (0 if unknown) */
	uint64_t base;	   /* load bias of its object (dlpi_addr) */
	char obj[256];	   /* its object's path ("" for the main program) */
};

/*
 * probe_sym_lookup() - the function @name of object @lib (NULL: any; a path,
 * or a file name with or without its version suffix: "libm", "libm.so.6").
 * Function symbols of .symtab and .dynsym, defined in the object.
 * Return: 0, -ENOENT (none), -EADDRNOTAVAIL (in several objects: name one).
 * Context: opens and maps the objects' files; not from a hit.
 */
int probe_sym_lookup(const char *lib, const char *name, struct probe_sym *out);

/*
 * probe_sym_format() - "sym+0xoff/0xsize" (@with_size) or "sym+0xoff" of a
 * code address into @buf, or its hex when no symbol covers it.
 * Context: any thread but a hit (takes a mutex, may open files).
 */
void probe_sym_format(uint64_t addr, bool with_size, char *buf, size_t len);

/* Data symbol @name (any object); 0 or -ENOENT. */
int probe_sym_data(const char *name, uint64_t *addr);

/*
 * probe_obj_alive() - is the object loaded at @base from @obj still mapped (no
 * dlclose() since)? Context: not from a hit.
 */
bool probe_obj_alive(const char *obj, uint64_t base);

/* --- the mechanism (probe_patch.c and the files of probe_arch.h) ----------------------------- */

struct probe;
struct probe_site;

/* Called by the trampoline at every hit (entry): writer context. */
typedef void (*probe_handler_t)(struct probe *p, struct probe_ctx *ctx);

/*
 * probe_site_install() - patch a jump to a fresh trampoline over the
 * instruction(s) at @addr (inside the function [@func, @func + @size)):
 * every thread that reaches @addr from then on runs @handler(@p, ...) first.
 * On error nothing is changed and @why says why (a static string).
 * Context: event_mutex held; other threads may be running the code.
 * Return: 0, -EOPNOTSUPP (no mechanism for this architecture), -EINVAL
 * (cannot relocate, too short, a jump into the patched range), -ENOMEM
 * (no trampoline within reach), -EFAULT (not mapped), -EPERM (mprotect
 * refused), -EBUSY (a thread did not answer).
 */
int probe_site_install(struct probe *p, uint64_t addr, uint64_t func, uint64_t size,
		       probe_handler_t handler, struct probe_site **sitep, const char **why);

/*
 * probe_site_remove() - put the original bytes back (unless @restore is
 * false: the object is gone). The trampoline stays mapped, unused (a thread
 * may still run in it). Context: event_mutex held.
 */
int probe_site_remove(struct probe_site *site, bool restore);

/* Threads found stopped inside a range being patched and moved out of it, ever (tests). */
unsigned long probe_evac_moved(void);

/* Whether this build has a mechanism (x86-64 with Zydis, or aarch64). */
bool probe_supported(void);

/* The address patched (the probed one, or after its endbr64 / bti c). */
uint64_t probe_site_addr(const struct probe_site *site);

/* The bytes probe_site_install() overwrote (for tests): a pointer and a length. */
const uint8_t *probe_site_saved(const struct probe_site *site, size_t *len);

/*
 * Return probes. probe_ret_hijack() (from an entry handler) replaces the
 * return address at @ctx->sp with the return trampoline's and pushes the
 * original on the thread's shadow stack; when the function returns, the
 * trampoline calls probe_ret_record() (probe.c) if the probe still lives.
 * Return: true if hijacked, false if the thread's shadow stack is full, could
 * not be allocated, or holds @maxactive (0: no limit) entries of @p already.
 */
bool probe_ret_hijack(struct probe *p, struct probe_ctx *ctx, unsigned int maxactive);

/* Build the return trampoline (once, before the first return probe). 0 or -errno. */
int probe_ret_prepare(void);

/* probe.c: is @p still the probe of @slot with @serial? Inside rcu_lock(). */
bool probe_live_rcu(struct probe *p, unsigned int slot, uint32_t serial);
void probe_ident(const struct probe *p, unsigned int *slot, uint32_t *serial);
/* probe.c: a return of @p (if it still is the probe of @slot with @serial) that will never be
 * recorded (longjmp, exception, thread exit): counted in its nmissed. Writer context. */
void probe_ret_lost(struct probe *p, unsigned int slot, uint32_t serial);
/* probe.c: record a return event. Writer context, inside probe_enter(). */
void probe_ret_record(struct probe *p, struct probe_ctx *ctx, uint64_t func, uint64_t ret_ip);

/* Drop this thread's shadow-stack entries (tests; thread exit does it). */
unsigned int probe_shadow_depth(void);

/* The per-thread re-entry guard of the handlers: true if the thread may run one. */
bool probe_enter(void);
void probe_leave(void);

/* --- fetch args (probe_fetch.c) -------------------------------------------------------- */

struct probe_arg;

/* A parse error: the kernel's message and the byte of the argument it points at. */
struct probe_err {
	const char *msg;
	unsigned int pos; /* in the argument's text */
};

/* probe_arg_parse()'s @flags */
#define PROBE_ARG_RETURN 1u /* of a return probe: $retval */
#define PROBE_ARG_ENTRY	 2u /* at a function's entry (no offset): $argN */
#define PROBE_ARG_NOSYMS 4u /* look no @SYM up (parse only: it stands for 0) */

/*
 * probe_arg_parse() - one FETCHARG ("[NAME=]FETCH[:TYPE]") of argument
 * number @idx (0-based), with @flags (PROBE_ARG_*).
 * Return: 0 and *@argp, or -EINVAL with @err filled, or -ENOMEM.
 */
int probe_arg_parse(const char *text, unsigned int idx, unsigned int flags,
		    struct probe_arg **argp, struct probe_err *err);
void probe_arg_free(struct probe_arg *a);
const char *probe_arg_name(const struct probe_arg *a);
/* NAME=TEXT as dynamic_events lists it. */
const char *probe_arg_text(const struct probe_arg *a);

/*
 * Lay the arguments out after @off (the record's fixed part so far): fill
 * @fields[i], return the fixed size; the print format into @fmt/@args.
 */
unsigned int probe_args_layout(struct probe_arg **args, unsigned int n, unsigned int off,
			       struct evt_field *fields);
int probe_args_print_fmt(struct probe_arg **args, unsigned int n, char *buf, size_t len,
			 const char *refs);

/* At a hit: the dynamic bytes the args need, then fill the record. Writer context. */
size_t probe_args_fetch(struct probe_arg **args, unsigned int n, struct probe_ctx *ctx,
			void *scratch, size_t scratch_len);
void probe_args_store(struct probe_arg **args, unsigned int n, const void *scratch, char *rec,
		      unsigned int fixed);

/* Print the args of a record (" a=5 b=10"). Context: a reader (may take the symbol mutex). */
void probe_args_print_args(struct probe_arg **args, unsigned int n, const void *rec, size_t len,
			   struct evt_seq *s);

/* --- probe.c -------------------------------------------------------------------------- */

/* Make p:/r: lines known to dynamic_events and kprobe_events (src/init.c does it). */
void probe_register(void);
/* For tests and the API; event_mutex held. */
unsigned int probe_count_locked(void);
struct probe_site *probe_site_of_locked(const char *group, const char *event, uint64_t *addr);
uint64_t probe_nmissed_locked(const char *group, const char *event);
/* Parse a definition, look nothing up, patch nothing (the fuzz target). Takes event_mutex. */
int probe_parse_only(const char *line);

#endif /* EVT_PROBE_PROBE_H */
