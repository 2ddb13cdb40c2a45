// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe/probe_sym.c - the function symbols of the objects loaded in the
 * process, read from their ELF files: .symtab when the object is not
 * stripped (static functions too), and .dynsym. Names resolve to addresses
 * for probe definitions; addresses resolve to "sym+0xoff/0xsize" for
 * printing. Nothing here runs at a hit. The files are read with
 * compat/elfsym.h (which the filter compiler's `.function` uses too).
 *
 * The files are opened read-only and mapped privately for the duration of
 * one call (one file is kept mapped as a cache for the printer, under
 * sym_mutex). Every offset and size read from a file is checked against
 * the file's size: a file is input like any other.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/elfsym.h"
#include "probe/probe.h"

/* The file of a loaded object: the main program's through /proc/self/exe. */
static const char *obj_path(const char *name)
{
	return name && name[0] ? name : "/proc/self/exe";
}

/* Does @lib name object @path? A path, or its file name with or without the ".so..." part. */
static bool lib_matches(const char *lib, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(lib);

	if (!strcmp(lib, path))
		return true;
	base = base ? base + 1 : path;
	if (!strcmp(lib, base))
		return true;
	return !strncmp(base, lib, n) && (base[n] == '.' || base[n] == '-');
}

struct lookup {
	const char *lib;
	const char *name;
	struct probe_sym *out;
	int found;	/* objects that define it */
	bool in_this;	/* found in the object being read */
	unsigned int type;
	uint64_t value, size;
};

static int lookup_sym(const char *name, const Elf64_Sym *sym, void *arg)
{
	struct lookup *l = arg;

	if (strcmp(name, l->name))
		return 0;
	l->in_this = true;
	l->value = sym->st_value;
	l->size = sym->st_size;
	return 1;
}

static int lookup_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *path = obj_path(info->dlpi_name);
	struct lookup *l = arg;
	struct elfsym_file ef;

	(void)size;
	if (l->lib && !lib_matches(l->lib, info->dlpi_name[0] ? info->dlpi_name : "")) {
		/* the main program answers to its own file name too */
		char exe[256];
		ssize_t n;

		if (info->dlpi_name[0])
			return 0;
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return 0;
		exe[n] = '\0';
		if (!lib_matches(l->lib, exe))
			return 0;
	}
	if (elfsym_open(path, &ef))
		return 0;
	l->in_this = false;
	elfsym_foreach(&ef, ELFSYM_T(l->type), lookup_sym, l);
	elfsym_close(&ef);
	if (l->in_this) {
		if (l->found++ == 0) {
			l->out->addr = info->dlpi_addr + l->value;
			l->out->size = l->size;
			l->out->base = info->dlpi_addr;
			snprintf(l->out->obj, sizeof(l->out->obj), "%s", info->dlpi_name);
		}
	}
	return 0;
}

int probe_sym_lookup(const char *lib, const char *name, struct probe_sym *out)
{
	struct lookup l = { .lib = lib, .name = name, .out = out, .type = STT_FUNC };

	memset(out, 0, sizeof(*out));
	dl_iterate_phdr(lookup_obj, &l);
	if (!l.found)
		return -ENOENT;
	return l.found > 1 ? -EADDRNOTAVAIL : 0;
}

int probe_sym_data(const char *name, uint64_t *addr)
{
	struct probe_sym out;
	struct lookup l = { .name = name, .out = &out, .type = STT_OBJECT };
	void *p;

	memset(&out, 0, sizeof(out));
	dl_iterate_phdr(lookup_obj, &l);
	if (l.found) { /* the first object that defines it: the program's own first */
		*addr = out.addr;
		return 0;
	}
	p = dlsym(RTLD_DEFAULT, name);
	if (!p)
		return -ENOENT;
	*addr = (uint64_t)(uintptr_t)p;
	return 0;
}

struct alive {
	const char *obj;
	uint64_t base;
	bool alive;
};

static int alive_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct alive *a = arg;

	(void)size;
	if (info->dlpi_addr == a->base && !strcmp(info->dlpi_name, a->obj))
		a->alive = true;
	return a->alive;
}

bool probe_obj_alive(const char *obj, uint64_t base)
{
	struct alive a = { obj, base, false };

	dl_iterate_phdr(alive_obj, &a);
	return a.alive;
}

/* --- address -> symbol (the printer) ---------------------------------------------------- */

static pthread_mutex_t sym_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct elfsym_file sym_cache;	/* the last file read, sym_mutex */
static char sym_cache_path[256];

struct nearest {
	uint64_t off;		/* the address, relative to the object's base */
	uint64_t best;		/* st_value of the best so far */
	uint64_t size;
	const char *name;
};

static int nearest_sym(const char *name, const Elf64_Sym *sym, void *arg)
{
	struct nearest *n = arg;

	if (sym->st_value > n->off || (n->name && sym->st_value < n->best))
		return 0;
	if (sym->st_size && n->off >= sym->st_value + sym->st_size)
		return 0;
	if (n->name && sym->st_value == n->best && n->size)
		return 0; /* keep the first of aliases */
	n->best = sym->st_value;
	n->size = sym->st_size;
	n->name = name;
	return 0;
}

void probe_sym_format(uint64_t addr, bool with_size, char *buf, size_t len)
{
	struct nearest n = { 0 };
	const char *path;
	Dl_info info;

	if (!dladdr((void *)(uintptr_t)addr, &info) || !info.dli_fname) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return;
	}
	pthread_mutex_lock(&sym_mutex);
	path = info.dli_fname;
	/* dladdr names the main program by argv[0]: read it through /proc/self/exe */
	{
		Dl_info self;
		extern char **environ;

		if (dladdr((void *)&environ, &self) && self.dli_fbase == info.dli_fbase &&
		    !strchr(path, '/'))
			path = "/proc/self/exe";
	}
	if (strcmp(sym_cache_path, path)) {
		elfsym_close(&sym_cache);
		sym_cache_path[0] = '\0';
		if (!elfsym_open(path, &sym_cache))
			snprintf(sym_cache_path, sizeof(sym_cache_path), "%s", path);
	}
	if (sym_cache.map) {
		const Elf64_Ehdr *eh = (const void *)sym_cache.map;

		/* an executable (ET_EXEC) has absolute symbol values */
		n.off = eh->e_type == ET_EXEC ? addr : addr - (uint64_t)(uintptr_t)info.dli_fbase;
		elfsym_foreach(&sym_cache, ELFSYM_FUNC, nearest_sym, &n);
	}
	if (n.name) {
		if (with_size)
			snprintf(buf, len, "%s+0x%llx/0x%llx", n.name,
				 (unsigned long long)(n.off - n.best), (unsigned long long)n.size);
		else
			snprintf(buf, len, "%s", n.name);
	} else if (info.dli_sname) {
		snprintf(buf, len, "%s+0x%llx", info.dli_sname,
			 (unsigned long long)(addr - (uint64_t)(uintptr_t)info.dli_saddr));
	} else {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	}
	pthread_mutex_unlock(&sym_mutex);
}
