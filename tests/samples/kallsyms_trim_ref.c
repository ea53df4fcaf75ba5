// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>
#include <oputil/search.h>

#include "kallsyms_trim_ref.h"

struct ref_key {
	const char *module; /* NUL-terminated, "" for the kernel */
	uint64_t addr;
	size_t line;
	bool keep;
};

static int ref_cmp(const void *pa, const void *pb)
{
	const struct ref_key *a = pa, *b = pb;
	int c = strcmp(a->module, b->module);

	if (c)
		return c;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

static int addr_cmp(const void *pa, const void *pb)
{
	const struct ref_key *a = *(struct ref_key *const *)pa,
			     *b = *(struct ref_key *const *)pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

/* A kernel sample may lie in a module's code: among every module's lines
 * together, the last at or below it (every line at that address) and the
 * first above it are kept too. */
static int ref_modules(struct ref_key *syms, size_t nsyms,
		       const struct ref_key *samples, size_t n)
{
	struct ref_key **mod = calloc(nsyms + 1, sizeof(*mod));
	size_t i, k, nm = 0;

	if (!mod)
		return -ENOMEM;
	for (i = 0; i < nsyms; i++)
		if (syms[i].module[0])
			mod[nm++] = &syms[i];
	qsort(mod, nm, sizeof(*mod), addr_cmp);
	for (i = 0; i < n; i++) {
		uint64_t a = samples[i].addr;
		size_t lo;

		if (samples[i].module[0])
			continue;
		lo = oputil_partition(0, nm, m, mod[m]->addr <= a);
		if (!lo)
			continue;
		for (k = lo; k && mod[k - 1]->addr == mod[lo - 1]->addr; k--)
			mod[k - 1]->keep = true;
		if (lo < nm)
			mod[lo]->keep = true;
	}
	free(mod);
	return 0;
}

int kallsyms_trim_ref(const char *orig, size_t len,
		      const struct ops_ksym_want *want, size_t n,
		      struct ops_buf *out)
{
	char *text = malloc(len + 1), **mods = calloc(n + 1, sizeof(*mods));
	size_t cap = 1, i, pos, nsyms = 0, nlines = 0, lo = 0;
	struct ref_key *syms = NULL,
		       *samples = calloc(n + 1, sizeof(*samples));
	size_t *starts = NULL, *lens = NULL;
	int ret = -ENOMEM;

	if (!text || !mods || !samples)
		goto out;
	memcpy(text, orig, len);
	for (i = 0; i < len; i++)
		cap += text[i] == '\n';
	syms = calloc(cap, sizeof(*syms));
	starts = calloc(cap, sizeof(*starts));
	lens = calloc(cap, sizeof(*lens));
	if (!syms || !starts || !lens)
		goto out;
	for (pos = 0; pos < len;) {
		char *nl = memchr(text + pos, '\n', len - pos);
		size_t l = (size_t)((nl ? nl : text + len) - (text + pos));
		struct ops_ksym_line kl;
		size_t k = nlines++;

		starts[k] = pos;
		lens[k] = l;
		text[pos + l] = '\0';
		if (!memchr(text + pos, '\0', l) &&
		    !ops_kallsyms_parse_line(text + pos, &kl) &&
		    ops_kallsyms_is_code(&kl)) {
			syms[nsyms].module = kl.module ? kl.module : "";
			syms[nsyms].addr = kl.addr;
			syms[nsyms++].line = k;
		}
		pos += l + 1;
	}
	if (!nsyms) {
		ret = 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		mods[i] = strndup(want[i].module, want[i].module_len);
		if (!mods[i])
			goto out;
		samples[i] = (struct ref_key){ mods[i], want[i].addr,
					       (size_t)-1, false };
	}
	qsort(samples, n, sizeof(*samples), ref_cmp);
	qsort(syms, nsyms, sizeof(*syms), ref_cmp);
	ret = ref_modules(syms, nsyms, samples, n);
	if (ret)
		goto out;
	ret = -ENOMEM;
	for (i = 0; i < n; i++) {
		size_t first, k;

		lo = oputil_partition(lo, nsyms, m,
				      ref_cmp(&syms[m], &samples[i]) <= 0);
		if (!lo || strcmp(syms[lo - 1].module, samples[i].module))
			continue;
		first = lo - 1;
		while (first && syms[first - 1].addr == syms[lo - 1].addr &&
		       !strcmp(syms[first - 1].module, samples[i].module))
			first--;
		for (k = first; k < lo; k++)
			syms[k].keep = true;
		if (lo < nsyms && !strcmp(syms[lo].module, samples[i].module))
			syms[lo].keep = true;
	}
	{
		bool *keep = calloc(nlines, 1);

		if (!keep)
			goto out;
		for (i = 0; i < nsyms; i++)
			keep[syms[i].line] |= syms[i].keep;
		ret = 0;
		for (i = 0; i < nlines && !ret; i++) {
			if (!keep[i])
				continue;
			ret = ops_buf_put(out, orig + starts[i], lens[i]);
			ret = ret ? ret : ops_buf_put_u8(out, '\n');
		}
		free(keep);
	}
out:
	for (i = 0; mods && i < n; i++)
		free(mods[i]);
	free(mods);
	free(samples);
	free(text);
	free(syms);
	free(starts);
	free(lens);
	return ret;
}

int kallsyms_trim_own_index(const char *text, size_t len,
			    const struct ops_ksym_want *want, size_t n,
			    struct ops_buf *out)
{
	struct ops_ksym_index ix;
	uint8_t *bytes;
	size_t blen;
	int ret;

	if (ops_kallsyms_index_build(text, len, &bytes, &blen))
		return -EPROTO;
	ret = ops_kallsyms_index_parse(bytes, blen, &ix);
	if (!ret) {
		ret = ops_kallsyms_trim_index(text, len, &ix, want, n, out);
		ops_kallsyms_index_free(&ix);
	} else {
		ret = -EPROTO;
	}
	free(bytes);
	return ret;
}
