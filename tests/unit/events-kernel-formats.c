// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-kernel-formats: the print-format interpreter on every event
 * format of the running kernel (/sys/kernel/tracing/events/<sys>/<ev>/format).
 * Each format's fields become descriptors, its `print fmt:` is parsed, and a
 * record of zeros and one of 0xff bytes are printed. Nothing may crash or
 * read outside the record (run it under ASan); most formats must parse (the
 * rest use kernel-only helpers, e.g. __get_bitmask, and print raw fields).
 * Skips without tracefs.
 */
#include <dirent.h>
#include <stdlib.h>

#include "events/event_internal.h"

#include "events-util.h"

#define MAX_FIELDS	128

static int parse_field(char *line, struct evt_field *f, char *names, size_t *npos)
{
	char decl[512], *name, *br;
	unsigned int off, size, sgn = 0;

	if (sscanf(line, "\tfield:%511[^;];\toffset:%u;\tsize:%u;\tsigned:%u;", decl, &off, &size,
		   &sgn) < 3)
		return -1;
	name = strrchr(decl, ' ');
	if (!name)
		return -1;
	*name++ = '\0';
	memset(f, 0, sizeof(*f));
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->elem_size = (uint16_t)size;
	f->is_signed = (uint8_t)sgn;
	br = strchr(name, '[');
	if (!strncmp(decl, "__data_loc", 10))
		f->kind = strstr(decl, "char") ? EVT_FIELD_DYN_STRING : EVT_FIELD_DYN_ARRAY;
	else if (!strncmp(decl, "__rel_loc", 9))
		f->kind = EVT_FIELD_REL_STRING;
	else if (br) {
		unsigned long n = strtoul(br + 1, NULL, 0);

		f->kind = strstr(decl, "char") ? EVT_FIELD_STRING : EVT_FIELD_ARRAY;
		if (n && f->kind == EVT_FIELD_ARRAY)
			f->elem_size = (uint16_t)(size / n);
		*br = '\0';
	} else if (strchr(decl, '*'))
		f->kind = EVT_FIELD_PTR;
	else
		f->kind = EVT_FIELD_INT;
	if (*npos + strlen(name) + strlen(decl) + 2 > 65536)
		return -1;
	f->name = strcpy(names + *npos, name);
	*npos += strlen(name) + 1;
	f->type = strcpy(names + *npos, decl);
	*npos += strlen(decl) + 1;
	return 0;
}

int main(void)
{
	static char names[65536], text[1 << 16], out[8192];
	const char *root = "/sys/kernel/tracing/events";
	unsigned int total = 0, parsed = 0;
	struct evt_field fields[MAX_FIELDS];
	struct dirent *sd, *ed;
	DIR *sys;

	sys = opendir(root);
	if (!sys)
		t_skip("no %s", root);
	while ((sd = readdir(sys))) {
		char path[1024];
		DIR *evs;

		if (sd->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, sd->d_name);
		evs = opendir(path);
		if (!evs)
			continue;
		while ((ed = readdir(evs))) {
			static char line[1 << 16];
			char fpath[1536];
			size_t nf = 0, npos = 0, rec_size = 0;
			const char *pfmt = NULL;
			struct print_fmt *pf;
			FILE *f;

			if (ed->d_name[0] == '.')
				continue;
			snprintf(fpath, sizeof(fpath), "%s/%s/format", path, ed->d_name);
			f = fopen(fpath, "r");
			if (!f)
				continue;
			text[0] = '\0';
			while (fgets(line, sizeof(line), f)) {
				if (!strncmp(line, "\tfield:", 7) && nf < MAX_FIELDS) {
					if (!parse_field(line, &fields[nf], names, &npos)) {
						size_t end = (size_t)fields[nf].offset + fields[nf].size;

						rec_size = end > rec_size ? end : rec_size;
						nf++;
					}
				} else if (!strncmp(line, "print fmt: ", 11)) {
					snprintf(text, sizeof(text), "%s", line + 11);
					pfmt = text;
				} else if (pfmt) {
					/* a format string with newlines in it goes on */
					size_t l = strlen(text);

					snprintf(text + l, sizeof(text) - l, "%s", line);
				}
			}
			fclose(f);
			if (!pfmt)
				continue;
			{
				size_t l = strlen(text);

				while (l && text[l - 1] == '\n')
					text[--l] = '\0';
			}
			total++;
			pf = print_fmt_parse(pfmt, fields, nf);
			if (pf) {
				for (int fill = 0; fill < 2; fill++) {
					unsigned char *rec = malloc(rec_size + 64);
					struct evt_seq s;

					T_ASSERT(rec);
					memset(rec, fill ? 0xff : 0, rec_size + 64);
					evt_seq_init(&s, out, sizeof(out));
					print_fmt_print(pf, rec, rec_size + (fill ? 64 : 0), &s);
					free(rec);
				}
				print_fmt_free(pf);
				parsed++;
			} else if (getenv("T_VERBOSE")) {
				printf("not parsed: %s/%s: %s\n", sd->d_name, ed->d_name, pfmt);
			}
		}
		closedir(evs);
	}
	closedir(sys);
	printf("%u of %u kernel print formats parsed\n", parsed, total);
	if (!total)
		t_skip("no event formats (tracefs without events?)");
	/* what does not parse uses kernel-only helpers (jiffies_to_msecs, ({ ... })) */
	T_ASSERT(parsed * 100 >= total * 95);
	return T_PASS;
}
