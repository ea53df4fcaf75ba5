// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>
#include <oputil/search.h>

#include "kallsyms.h"
#include "out.h"

struct ksym {
	struct report_sym sym;
	const char *module; /* NULL for the kernel */
};

struct kallsyms {
	char *text;	   /* names and modules point into it */
	struct ksym *syms; /* sorted by (module, address) */
	size_t nr;
	/* the modules' symbols (after the kernel's in SYMS) by address
	 * alone, made at the first lookup that needs them */
	struct ksym **by_addr;
	size_t nr_mod;
	struct report_sym nosyms;
};

static int mod_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;
	int c = mod_cmp(a->module, b->module);

	if (c)
		return c;
	return (a->sym.vma > b->sym.vma) - (a->sym.vma < b->sym.vma);
}

/* One line, split in place; *WANT when it names code. */
static int parse_line(char *line, struct ksym *out, bool *want)
{
	struct ops_ksym_line l;

	if (ops_kallsyms_parse_line(line, &l))
		return -EINVAL;
	*want = ops_kallsyms_is_code(&l);
	out->sym.name = l.name;
	out->sym.vma = l.addr;
	out->sym.has_vma = true;
	out->module = l.module;
	return 0;
}

int kallsyms_parse(struct kallsyms **out, const char *buf, size_t len,
		   size_t *nr_bad, size_t *first_bad)
{
	struct kallsyms *ks = calloc(1, sizeof(*ks));
	size_t lines = 0, i, lineno = 0;
	char *p, *next;

	*nr_bad = *first_bad = 0;
	if (!ks)
		return -ENOMEM;
	ks->nosyms.name = "(no symbols)";
	ks->text = malloc(len + 1);
	if (!ks->text)
		goto nomem;
	memcpy(ks->text, buf, len);
	ks->text[len] = '\0';
	for (i = 0; i < len; i++)
		lines += buf[i] == '\n';
	ks->syms = calloc(lines + 1, sizeof(*ks->syms));
	if (!ks->syms)
		goto nomem;
	for (p = ks->text; p < ks->text + len; p = next) {
		char *end = ks->text + len;
		size_t l = strcspn(p, "\n");
		bool want = false;

		lineno++;
		if (p + l < end && p[l] == '\0') {
			/* a NUL inside a line: binary junk */
			char *nl = memchr(p + l, '\n', (size_t)(end - p - l));

			next = nl ? nl + 1 : end;
			if (!(*nr_bad)++)
				*first_bad = lineno;
			continue;
		}
		next = p + l + (p + l < end);
		p[l] = '\0';
		if (!l)
			continue;
		if (parse_line(p, &ks->syms[ks->nr], &want)) {
			if (!(*nr_bad)++)
				*first_bad = lineno;
			continue;
		}
		if (want)
			ks->nr++;
	}
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), ksym_cmp);
	/* each symbol ends where the next of the same module starts */
	for (i = 0; i < ks->nr; i++) {
		struct ksym *s = &ks->syms[i];

		if (i + 1 < ks->nr && !mod_cmp(s->module, s[1].module))
			s->sym.size = s[1].sym.vma - s->sym.vma;
		else
			s->sym.size = 4096; /* the last one: a page at most */
	}
	*out = ks;
	return 0;
nomem:
	kallsyms_free(ks);
	return -ENOMEM;
}

/* The last symbol of MODULE, or NULL. */
static struct ksym *module_last(struct kallsyms *ks, const char *module)
{
	size_t lo = oputil_partition(0, ks->nr, m,
				     mod_cmp(ks->syms[m].module, module) <= 0);

	if (!lo || mod_cmp(ks->syms[lo - 1].module, module))
		return NULL;
	return &ks->syms[lo - 1];
}

void kallsyms_parse_modules(struct kallsyms *ks, const char *buf, size_t len,
			    size_t *nr_bad, size_t *first_bad)
{
	const char *p = buf, *end = buf + len;
	size_t lineno = 0;

	*nr_bad = *first_bad = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);
		char line[512], name[128], state[32];
		unsigned long long size, base;
		struct ksym *last;
		bool ok = false;

		lineno++;
		if (l && l < sizeof(line) && !memchr(p, '\0', l)) {
			memcpy(line, p, l);
			line[l] = '\0';
			ok = sscanf(line, "%127s %llu %*s %*s %31s %llx", name,
				    &size, state, &base) == 4;
		}
		if (l && !ok) {
			if (!(*nr_bad)++)
				*first_bad = lineno;
		} else if (l && base && (last = module_last(ks, name)) &&
			   base + size > last->sym.vma) {
			last->sym.size = base + size - last->sym.vma;
		}
		p += l + 1;
	}
}

/* The whole of FILE, NUL-terminated, through the session reader's gate
 * (a regular file no larger than MAX).  0, *BUF NULL and a warning
 * naming it when it cannot be read (reported), or -ENOMEM (not). */
static int read_whole(const char *file, uint64_t max, const char *what,
		      char **buf, size_t *len)
{
	int ret = ops_file_read(file, max, buf, len);

	if (ret == -ENOMEM)
		return ret;
	if (ret)
		out_warnf("cannot read %s: %s; %s", file,
			  ops_file_strerror(ret), what);
	return 0;
}

int kallsyms_load(struct kallsyms **out, const char *dir, const char *file,
		  const char *modules)
{
	size_t len = 0, nr_bad, first_bad;
	char *buf = NULL;
	int ret;

	if (file) {
		ret = read_whole(file, OPS_KALLSYMS_MAX,
				 "kernel samples show as (no symbols)", &buf,
				 &len);
		if (ret)
			return ret;
	} else {
		out_warnf(
			"cannot read %s/kallsyms: missing from the session; kernel samples show as (no symbols)",
			dir);
	}
	ret = kallsyms_parse(out, buf ? buf : "", len, &nr_bad, &first_bad);
	free(buf);
	if (ret)
		return ret;
	if (nr_bad)
		out_warnf("%s: %zu malformed lines (first at line %zu)", file,
			  nr_bad, first_bad);
	if (!(*out)->nr && len)
		out_warnf(
			"%s: no kernel addresses (recorded without privilege?); kernel samples show as (no symbols)",
			file);
	if (!modules)
		return 0;
	ret = read_whole(modules, OPS_MODULES_MAX,
			 "module symbols are not bounded", &buf, &len);
	if (ret || !buf)
		return ret;
	kallsyms_parse_modules(*out, buf, len, &nr_bad, &first_bad);
	free(buf);
	if (nr_bad)
		out_warnf("%s: %zu malformed lines (first at line %zu)",
			  modules, nr_bad, first_bad);
	return 0;
}

void kallsyms_free(struct kallsyms *ks)
{
	if (!ks)
		return;
	free(ks->by_addr);
	free(ks->syms);
	free(ks->text);
	free(ks);
}

size_t kallsyms_count(const struct kallsyms *ks)
{
	return ks->nr;
}

const struct report_sym *kallsyms_resolve(struct kallsyms *ks,
					  const char *module, uint64_t addr)
{
	struct ksym key = { .sym.vma = addr, .module = module };
	struct ksym *s;
	/* last symbol not after (module, addr) */
	size_t lo = oputil_partition(0, ks->nr, m,
				     ksym_cmp(&ks->syms[m], &key) <= 0);

	if (!lo)
		return &ks->nosyms;
	s = &ks->syms[lo - 1];
	if (mod_cmp(s->module, module) || addr - s->sym.vma >= s->sym.size)
		return &ks->nosyms;
	s->sym.referenced = true;
	return &s->sym;
}

static int ksym_addr_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = *(struct ksym *const *)pa,
			  *b = *(struct ksym *const *)pb;

	if (a->sym.vma != b->sym.vma)
		return a->sym.vma < b->sym.vma ? -1 : 1;
	return (a > b) - (a < b);
}

/* The modules' symbols by address: 0 or -ENOMEM. */
static int make_by_addr(struct kallsyms *ks)
{
	size_t first, i;

	if (ks->by_addr)
		return 0;
	/* the kernel's (module NULL) sort first */
	first = oputil_partition(0, ks->nr, m, !ks->syms[m].module);
	ks->nr_mod = ks->nr - first;
	ks->by_addr = calloc(ks->nr_mod + 1, sizeof(*ks->by_addr));
	if (!ks->by_addr)
		return -ENOMEM;
	for (i = 0; i < ks->nr_mod; i++)
		ks->by_addr[i] = &ks->syms[first + i];
	qsort(ks->by_addr, ks->nr_mod, sizeof(*ks->by_addr), ksym_addr_cmp);
	return 0;
}

int kallsyms_resolve_kernel(struct kallsyms *ks, uint64_t addr,
			    const struct report_sym **sym, const char **module)
{
	size_t lo;
	int ret;

	*module = NULL;
	*sym = kallsyms_resolve(ks, NULL, addr);
	if (*sym != &ks->nosyms)
		return 0;
	ret = make_by_addr(ks);
	if (ret)
		return ret;
	/* the module whose symbol is the last at or below ADDR, when that
	 * symbol holds it: module code lies apart from the kernel's */
	lo = oputil_partition(0, ks->nr_mod, m,
			      ks->by_addr[m]->sym.vma <= addr);
	if (!lo)
		return 0;
	*sym = kallsyms_resolve(ks, ks->by_addr[lo - 1]->module, addr);
	if (*sym != &ks->nosyms)
		*module = ks->by_addr[lo - 1]->module;
	return 0;
}
