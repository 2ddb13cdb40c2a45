// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat/elfsym.c - the symbols of the loaded objects (compat/elfsym.h).
 *
 * Three sources, in this order of trust: the dynamic linker (dlsym, dladdr1:
 * what calls bind to), the objects' files (.symtab, .dynsym: static
 * functions, sizes), and the unwind tables the objects carry in memory
 * (.eh_frame_hdr: the ranges of functions no symbol names). The unwind
 * table's layout is the one of the LSB ("Exception Frame Header") and DWARF
 * call frame information (CIE/FDE, pointer encodings DW_EH_PE_*).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/elfsym.h"

/* --- files --------------------------------------------------------------------------------- */

int elfsym_open(const char *path, struct elfsym_file *ef)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ef->map = NULL;
	ef->size = 0;
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
	    st.st_size > ((off_t)1 << 32)) {
		close(fd);
		return -ENOENT;
	}
	ef->size = (size_t)st.st_size;
	ef->map = mmap(NULL, ef->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (ef->map == MAP_FAILED) {
		ef->map = NULL;
		return -ENOMEM;
	}
	if (memcmp(ef->map, ELFMAG, SELFMAG) || ef->map[EI_CLASS] != ELFCLASS64) {
		elfsym_close(ef);
		return -ENOENT;
	}
	return 0;
}

void elfsym_close(struct elfsym_file *ef)
{
	if (ef->map)
		munmap((void *)ef->map, ef->size);
	ef->map = NULL;
	ef->size = 0;
}

/* Is [off, off + len) inside the file? */
static bool elf_in(const struct elfsym_file *ef, uint64_t off, uint64_t len)
{
	return off <= ef->size && len <= ef->size - off;
}

int elfsym_foreach(const struct elfsym_file *ef, unsigned int types,
		   int (*fn)(const char *name, const Elf64_Sym *sym, void *arg), void *arg)
{
	const Elf64_Ehdr *eh = (const void *)ef->map;
	const Elf64_Shdr *sh;

	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !elf_in(ef, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return 0;
	sh = (const void *)(ef->map + eh->e_shoff);
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *strs;
		const Elf64_Sym *syms;
		uint64_t n;

		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		if (sh[i].sh_link >= eh->e_shnum || sh[i].sh_entsize != sizeof(Elf64_Sym) ||
		    !elf_in(ef, sh[i].sh_offset, sh[i].sh_size))
			continue;
		strs = &sh[sh[i].sh_link];
		if (!elf_in(ef, strs->sh_offset, strs->sh_size) || strs->sh_size == 0)
			continue;
		syms = (const void *)(ef->map + sh[i].sh_offset);
		n = sh[i].sh_size / sizeof(Elf64_Sym);
		for (uint64_t j = 0; j < n; j++) {
			unsigned int type = ELF64_ST_TYPE(syms[j].st_info);
			const char *name;
			int ret;

			if (type >= 32 || !(types & ELFSYM_T(type)) ||
			    syms[j].st_shndx == SHN_UNDEF || !syms[j].st_value ||
			    syms[j].st_name >= strs->sh_size)
				continue;
			name = (const char *)ef->map + strs->sh_offset + syms[j].st_name;
			if (!memchr(name, '\0', strs->sh_size - syms[j].st_name))
				continue;
			ret = fn(name, &syms[j], arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

const char *elfsym_obj_path(const struct dl_phdr_info *info)
{
	if (info->dlpi_name && info->dlpi_name[0])
		return strchr(info->dlpi_name, '/') ? info->dlpi_name : NULL; /* linux-vdso.so.1 */
	/* no name: the main program, or a vDSO that has none */
	if (info->dlpi_phdr != (const void *)getauxval(AT_PHDR))
		return NULL;
	return "/proc/self/exe";
}

/* --- by name --------------------------------------------------------------------------------- */

struct by_name {
	const char *name;
	uint64_t base;
	uint64_t addr;
};

static int name_sym(const char *name, const Elf64_Sym *sym, void *arg)
{
	struct by_name *q = arg;

	if (!sym->st_size || strcmp(name, q->name))
		return 0;
	q->addr = q->base + sym->st_value;
	return 1;
}

static int name_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *path = elfsym_obj_path(info);
	struct by_name *q = arg;
	struct elfsym_file ef;
	int found;

	(void)size;
	if (!path || elfsym_open(path, &ef))
		return 0;
	q->base = info->dlpi_addr;
	found = elfsym_foreach(&ef, ELFSYM_FUNC | ELFSYM_OBJECT, name_sym, q);
	elfsym_close(&ef);
	return found;
}

uint64_t elfsym_lookup_name(const char *name)
{
	struct by_name q = { .name = name };
	void *p = dlsym(RTLD_DEFAULT, name);

	if (p)
		return (uint64_t)(uintptr_t)p;
	dl_iterate_phdr(name_obj, &q);
	return q.addr;
}

/* --- by address: symbols ------------------------------------------------------------------------ */

struct by_addr {
	uint64_t off;		/* the address less the object's base */
	uint64_t start, end;	/* the object's relative range found */
	bool found;
};

static bool in_object(const struct dl_phdr_info *info, uint64_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && addr >= lo && addr - lo < ph->p_memsz)
			return true;
	}
	return false;
}

static int addr_sym(const char *name, const Elf64_Sym *sym, void *arg)
{
	struct by_addr *q = arg;

	(void)name;
	if (!sym->st_size || q->off < sym->st_value || q->off - sym->st_value >= sym->st_size)
		return 0;
	q->start = sym->st_value;
	q->end = sym->st_value + sym->st_size;
	q->found = true;
	return 1;
}

/* --- by address: the unwind table ----------------------------------------------------------- */

#define DW_EH_PE_omit	 0xff
#define DW_EH_PE_absptr	 0x00
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2	 0x02
#define DW_EH_PE_udata4	 0x03
#define DW_EH_PE_udata8	 0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2	 0x0a
#define DW_EH_PE_sdata4	 0x0b
#define DW_EH_PE_sdata8	 0x0c
#define DW_EH_PE_pcrel	 0x10
#define DW_EH_PE_datarel 0x30

/* A bounded reader of loaded memory [p, end). */
struct rd {
	const uint8_t *p, *end;
};

static bool rd_bytes(struct rd *r, void *out, size_t n)
{
	if ((size_t)(r->end - r->p) < n)
		return false;
	memcpy(out, r->p, n);
	r->p += n;
	return true;
}

static bool rd_uleb(struct rd *r, uint64_t *out, bool is_signed)
{
	unsigned int shift = 0;
	uint64_t v = 0;
	uint8_t b;

	do {
		if (r->p >= r->end || shift >= 64)
			return false;
		b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	*out = v;
	return true;
}

/* One pointer in encoding @enc; pcrel and datarel (to @data) applied; no indirect. */
static bool rd_enc(struct rd *r, uint8_t enc, uint64_t data, uint64_t *out)
{
	uint64_t here = (uint64_t)(uintptr_t)r->p, v;
	uint16_t u16;
	uint32_t u32;

	if (enc == DW_EH_PE_omit)
		return false;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (!rd_bytes(r, &v, 8))
			return false;
		break;
	case DW_EH_PE_udata4:
		if (!rd_bytes(r, &u32, 4))
			return false;
		v = u32;
		break;
	case DW_EH_PE_sdata4:
		if (!rd_bytes(r, &u32, 4))
			return false;
		v = (uint64_t)(int64_t)(int32_t)u32;
		break;
	case DW_EH_PE_udata2:
		if (!rd_bytes(r, &u16, 2))
			return false;
		v = u16;
		break;
	case DW_EH_PE_sdata2:
		if (!rd_bytes(r, &u16, 2))
			return false;
		v = (uint64_t)(int64_t)(int16_t)u16;
		break;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		if (!rd_uleb(r, &v, (enc & 0x0f) == DW_EH_PE_sleb128))
			return false;
		break;
	default:
		return false;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		v += here;
		break;
	case DW_EH_PE_datarel:
		v += data;
		break;
	default:
		return false;
	}
	*out = v;
	return true;
}

/* The FDE pointer encoding of the CIE at @cie (its 'R' augmentation; absptr without). */
static bool cie_fde_enc(const struct dl_phdr_info *info, const uint8_t *cie, uint8_t *enc)
{
	struct rd r = { cie, cie + 8 };
	const char *aug;
	uint32_t len, id;
	uint64_t skip;
	uint8_t ver;

	if (!in_object(info, (uint64_t)(uintptr_t)cie) || !rd_bytes(&r, &len, 4) ||
	    !rd_bytes(&r, &id, 4) || len < 8 || len == 0xffffffffu || id != 0)
		return false;
	r.end = cie + 4 + len;
	if (!in_object(info, (uint64_t)(uintptr_t)r.end - 1) || !rd_bytes(&r, &ver, 1))
		return false;
	aug = (const char *)r.p;
	if (!memchr(aug, '\0', (size_t)(r.end - r.p)))
		return false;
	r.p += strlen(aug) + 1;
	*enc = DW_EH_PE_absptr;
	if (aug[0] != 'z')
		return !aug[0];
	if (!rd_uleb(&r, &skip, false) || !rd_uleb(&r, &skip, true))	/* code, data align */
		return false;
	if (ver == 1 ? !rd_bytes(&r, &ver, 1) : !rd_uleb(&r, &skip, false)) /* return column */
		return false;
	if (!rd_uleb(&r, &skip, false))					/* augmentation length */
		return false;
	for (aug++; *aug; aug++) {
		uint8_t b;

		if (*aug == 'R')
			return rd_bytes(&r, enc, 1);
		if (*aug == 'L' && !rd_bytes(&r, &b, 1))
			return false;
		if (*aug == 'P' && (!rd_bytes(&r, &b, 1) || !rd_enc(&r, b & 0x7f, 0, &skip)))
			return false;
		if (*aug != 'L' && *aug != 'P' && *aug != 'S' && *aug != 'B')
			return false;
	}
	return true;	/* no 'R': absptr */
}

/* The FDE at @fde: does its range hold @addr? */
static bool fde_range(const struct dl_phdr_info *info, const uint8_t *fde, uint64_t addr,
		      uint64_t *start, uint64_t *end)
{
	struct rd r = { fde, fde + 8 };
	uint64_t begin, range;
	uint32_t len, cie_off;
	uint8_t enc;

	if (!in_object(info, (uint64_t)(uintptr_t)fde) || !rd_bytes(&r, &len, 4) ||
	    !rd_bytes(&r, &cie_off, 4) || len < 8 || len == 0xffffffffu || !cie_off)
		return false;
	r.end = fde + 4 + len;
	if (!in_object(info, (uint64_t)(uintptr_t)r.end - 1) ||
	    !cie_fde_enc(info, fde + 4 - cie_off, &enc))
		return false;
	if (!rd_enc(&r, enc, 0, &begin) || !rd_enc(&r, enc & 0x0f, 0, &range))
		return false;
	if (addr < begin || addr - begin >= range)
		return false;
	*start = begin;
	*end = begin + range;
	return true;
}

/* The object's .eh_frame_hdr search table: the FDE whose initial location is the last <= @addr. */
static bool unwind_range(const struct dl_phdr_info *info, uint64_t addr, uint64_t *start,
			 uint64_t *end)
{
	const ElfW(Phdr) *hdr_ph = NULL;
	uint64_t frame, count, lo, hi;
	const uint8_t *hdr, *table;
	struct rd r;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr_ph = &info->dlpi_phdr[i];
	if (!hdr_ph || hdr_ph->p_memsz < 4)
		return false;
	hdr = (const uint8_t *)(uintptr_t)(info->dlpi_addr + hdr_ph->p_vaddr);
	r.p = hdr + 4;
	r.end = hdr + hdr_ph->p_memsz;
	/* version 1; the table: pairs of sdata4 relative to the header, sorted */
	if (hdr[0] != 1 || hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    !rd_enc(&r, hdr[1], (uint64_t)(uintptr_t)hdr, &frame) ||
	    !rd_enc(&r, hdr[2], (uint64_t)(uintptr_t)hdr, &count) ||
	    count > (uint64_t)(r.end - r.p) / 8 || !count)
		return false;
	table = r.p;
	lo = 0;
	hi = count;	/* the answer is in [lo, hi) */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		int32_t loc;

		memcpy(&loc, table + mid * 8, 4);
		if ((uint64_t)(uintptr_t)hdr + (uint64_t)(int64_t)loc <= addr)
			lo = mid;
		else
			hi = mid;
	}
	int32_t fde_rel;

	memcpy(&fde_rel, table + lo * 8 + 4, 4);
	return fde_range(info, hdr + fde_rel, addr, start, end);
}

static int range_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct by_addr *q = arg;
	uint64_t addr = q->off;
	struct elfsym_file ef;
	const char *path;

	(void)size;
	if (!in_object(info, addr))
		return 0;
	path = elfsym_obj_path(info);
	if (path && !elfsym_open(path, &ef)) {
		const Elf64_Ehdr *eh = (const void *)ef.map;

		/* an executable (ET_EXEC) has absolute symbol values */
		q->off = eh->e_type == ET_EXEC ? addr : addr - info->dlpi_addr;
		elfsym_foreach(&ef, ELFSYM_FUNC | ELFSYM_OBJECT, addr_sym, q);
		elfsym_close(&ef);
		if (q->found) {
			q->start += addr - q->off;
			q->end += addr - q->off;
			return 1;
		}
	}
	q->found = unwind_range(info, addr, &q->start, &q->end);
	return 1;	/* the object that holds it answered */
}

bool elfsym_func_range(uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct by_addr q = { .off = addr };
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (dladdr1((void *)(uintptr_t)addr, &info, (void **)&sym, RTLD_DL_SYMENT) &&
	    info.dli_saddr && sym && sym->st_size &&
	    ELF64_ST_TYPE(sym->st_info) != STT_GNU_IFUNC &&
	    addr - (uint64_t)(uintptr_t)info.dli_saddr < sym->st_size) {
		*start = (uint64_t)(uintptr_t)info.dli_saddr;
		*end = *start + sym->st_size;
		return true;
	}
	dl_iterate_phdr(range_obj, &q);
	if (!q.found)
		return false;
	*start = q.start;
	*end = q.end;
	return true;
}
