/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat/elfsym.h - the symbols of the objects loaded in this process, read
 * from their ELF files (.symtab when the object is not stripped, .dynsym),
 * and the function ranges of their unwind tables (.eh_frame_hdr).
 *
 * Users: the probe layer (names of probe definitions, "sym+0xoff/0xsize" for
 * printing) and the filter compiler (the kernel's kallsyms for
 * `field.function == name`). Internal (elfsym_ prefix), not exported; knows
 * nothing of tracing. Nothing here runs on a write path.
 *
 * A file is input like any other: every offset and size read from it is
 * checked against the file's size. Files are opened read-only and mapped
 * privately for as long as the caller holds them.
 */
#ifndef EVT_COMPAT_ELFSYM_H
#define EVT_COMPAT_ELFSYM_H

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mapped ELF file (ELFCLASS64). */
struct elfsym_file {
	const unsigned char *map;
	size_t size;
};

/* Symbol types for elfsym_foreach(), as a mask. */
#define ELFSYM_T(stt) (1u << (stt))
#define ELFSYM_FUNC   ELFSYM_T(STT_FUNC)
#define ELFSYM_IFUNC  ELFSYM_T(STT_GNU_IFUNC)
#define ELFSYM_OBJECT ELFSYM_T(STT_OBJECT)

/**
 * elfsym_open() - map the ELF file at @path.
 * @path: a regular file of at most 4 GiB.
 * @ef:   filled on success; give it back with elfsym_close().
 *
 * Context: any thread; open, fstat, mmap.
 * Return: 0; -ENOENT: no such file, not a regular file, not a 64-bit ELF
 * file; -ENOMEM: it could not be mapped.
 */
int elfsym_open(const char *path, struct elfsym_file *ef);

/* elfsym_close() - unmap what elfsym_open() mapped (a zeroed @ef is fine). */
void elfsym_close(struct elfsym_file *ef);

/**
 * elfsym_foreach() - call @fn for each defined symbol of the file.
 * @ef:    a file from elfsym_open().
 * @types: ELFSYM_FUNC, ELFSYM_IFUNC, ELFSYM_OBJECT, or'ed.
 * @fn:    called with the symbol's name and entry (st_value as in the file);
 *         a non-zero return stops the walk and is returned.
 * @arg:   passed to @fn.
 *
 * Both .symtab and .dynsym are read (a symbol in both is seen twice).
 * Symbols that are undefined or have the value 0 are skipped.
 * Context: any thread.
 * Return: 0, or what @fn returned to stop.
 */
int elfsym_foreach(const struct elfsym_file *ef, unsigned int types,
		   int (*fn)(const char *name, const Elf64_Sym *sym, void *arg), void *arg);

/**
 * elfsym_obj_path() - the file of a loaded object, for elfsym_open().
 * @info: an object from dl_iterate_phdr().
 *
 * Return: its path; "/proc/self/exe" for the main program (which has no
 * name); NULL for the vDSO (no file).
 */
const char *elfsym_obj_path(const struct dl_phdr_info *info);

/**
 * elfsym_lookup_name() - the address a call to function (or object) @name
 * reaches, as the kernel's kallsyms_lookup_name().
 * @name: a symbol name.
 *
 * First the dynamic linker's answer, dlsym(RTLD_DEFAULT): the definition
 * the program's own references bind to. For an IFUNC (glibc's strcmp,
 * memcpy, ...) that is the implementation its resolver chose, which is
 * also what the PLT/GOT slots of the program hold after relocation: the
 * resolver is never called here, ld.so has called it (or calls it now, with
 * the arguments it alone knows, such as the hardware capabilities). Then
 * the functions and objects of every loaded object's .symtab, in load order
 * (static functions are only there); an IFUNC found there only (a local
 * one) cannot be resolved and is not an answer.
 *
 * Context: any thread; reads files, takes the dynamic linker's lock.
 * Return: the address, or 0 when nothing of that name is loaded.
 */
uint64_t elfsym_lookup_name(const char *name);

/**
 * elfsym_func_range() - the function holding @addr, as the kernel's
 * kallsyms_lookup_size_offset().
 * @addr:  an address in a loaded object.
 * @start: its first byte.
 * @end:   one past its last byte.
 *
 * The symbol (a function or object with a size) that holds @addr, from the
 * dynamic linker's table, then the object's .symtab and .dynsym; else, for
 * code no symbol names (an IFUNC's implementation in a stripped library:
 * __strcmp_avx2 in libc.so.6), the function the object's unwind table
 * (PT_GNU_EH_FRAME, its sorted search table and the FDE it points to)
 * says holds it.
 *
 * Context: any thread; reads files.
 * Return: true with @start and @end set, false when nothing holds @addr.
 */
bool elfsym_func_range(uint64_t addr, uint64_t *start, uint64_t *end);

#endif /* EVT_COMPAT_ELFSYM_H */
