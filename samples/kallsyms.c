// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The session's copy of /proc/kallsyms: its line format, and the trim at
 * a clean stop.  The whole table is 5 MB and more, while a report needs
 * only the symbols its kernel samples fall in; so at the stop the copy
 * keeps just those lines, each with the code symbol after it, which
 * bounds it.  A recorder killed before its stop leaves the whole copy,
 * which reports the same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/hex.h>
#include <oputil/search.h>

#include "reader_internal.h"
#include "writer_internal.h"

int ops_kallsyms_parse_line(char *line, struct ops_ksym_line *out)
{
	char *end, *type, *name, *mod;
	uint64_t addr = 0;
	int d;

	/* 1 to 16 hex digits: strtoull() cost a third of a 5 MB table's
	 * parse, for forms (signs, 0x, blanks) the kernel never writes */
	for (end = line; (d = oputil_hex_digit(*end)) >= 0; end++) {
		if (end - line == 16)
			return -EINVAL;
		addr = addr << 4 | (uint64_t)d;
	}
	if (end == line || *end != ' ')
		return -EINVAL;
	type = end + 1;
	if (!type[0] || type[1] != ' ')
		return -EINVAL;
	name = type + 2;
	end = name + strcspn(name, " \t");
	if (end == name)
		return -EINVAL;
	mod = NULL;
	if (*end) {
		*end++ = '\0';
		end += strspn(end, " \t");
		if (*end) {
			size_t mlen = strlen(end);

			if (end[0] != '[' || mlen < 3 || end[mlen - 1] != ']')
				return -EINVAL;
			end[mlen - 1] = '\0';
			mod = end + 1;
		}
	}
	out->addr = addr;
	out->type = *type;
	out->name = name;
	out->module = mod;
	return 0;
}

bool ops_kallsyms_is_code(const struct ops_ksym_line *l)
{
	return l->addr && (l->type == 't' || l->type == 'T' ||
			   l->type == 'w' || l->type == 'W');
}

/* A code symbol of the copy, or a kernel sample: ordered by module (the
 * kernel itself, "", first), then address, then place in the file. */
struct ksym_key {
	const char *module;
	uint64_t addr;
	size_t line; /* index of the line, for symbols */
	bool keep;
};

/* The kernel's module name: one pointer, so that most comparisons of
 * modules are one of pointers. */
static const char kernel_module[] = "";

static int key_cmp(const void *pa, const void *pb)
{
	const struct ksym_key *a = pa, *b = pb;
	int c = a->module == b->module ? 0 : strcmp(a->module, b->module);

	if (c)
		return c;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

const char *ops_image_module_name(const char *path, size_t *len)
{
	*len = strlen(path);
	if (*len >= 2 && path[0] == '[' && path[*len - 1] == ']') {
		*len -= 2;
		return path + 1;
	}
	return path;
}

/* The module of each image of W the trim needs: "" for the kernel, the
 * module's name for a module, NULL for a file (not the kernel's).  The
 * names are malloc'ed into NAMES[]. */
static int kernel_images(const struct ops_writer *w, const char ***out,
			 char ***names)
{
	const struct ops_keyset *ks = &w->hist.images;
	const char **mods = calloc(ks->nr ? ks->nr : 1, sizeof(*mods));
	char **own = calloc(ks->nr ? ks->nr : 1, sizeof(*own));
	uint32_t i;

	*out = mods;
	*names = own;
	if (!mods || !own)
		return -ENOMEM;
	for (i = 0; i < ks->nr; i++) {
		struct ops_cur c;
		size_t len;
		const uint8_t *k = ops_keyset_key(ks, i, &len);
		uint64_t kind;

		ops_cur_init(&c, k, len);
		kind = ops_cur_varint(&c);
		if (kind == OPS_IMAGE_KERNEL) {
			mods[i] = kernel_module;
		} else if (kind == OPS_IMAGE_MODULE) {
			char *path;
			size_t n;
			const char *name;

			if (!ops_cur_str(&c, &path))
				return -ENOMEM; /* the writer's own keys */
			own[i] = path;
			name = ops_image_module_name(path, &n);
			memmove(path, name, n);
			path[n] = '\0';
			mods[i] = path;
		}
	}
	return 0;
}

/* The image of each context of W. */
static int context_images(const struct ops_writer *w, uint32_t **out)
{
	const struct ops_keyset *ks = &w->hist.contexts;
	uint32_t *img = calloc(ks->nr ? ks->nr : 1, sizeof(*img)), i;

	*out = img;
	if (!img)
		return -ENOMEM;
	for (i = 0; i < ks->nr; i++) {
		struct ops_cur c;
		size_t len;
		const uint8_t *k = ops_keyset_key(ks, i, &len);

		ops_cur_init(&c, k, len);
		ops_cur_varint32(&c); /* app */
		img[i] = ops_cur_varint32(&c);
	}
	return 0;
}

/* The kernel samples' (module, address) keys, from what the writer holds:
 * the counted kernel cells and the kernel frames of its stacks, sorted. */
static int kernel_samples(const struct ops_writer *w, char ***names,
			  struct ksym_key **out, size_t *n)
{
	const struct ops_hist_writer *h = &w->hist;
	const struct oputil_u64map *kf = &h->kframes;
	const char **mods = NULL;
	uint32_t *ctx_image = NULL;
	struct ksym_key *keys;
	size_t i;
	int ret;

	*out = NULL;
	*n = 0;
	ret = kernel_images(w, &mods, names);
	ret = ret ? ret : context_images(w, &ctx_image);
	keys = ret ? NULL
		   : calloc((size_t)h->nr_cells + kf->nr + 1, sizeof(*keys));
	if (!keys) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < kf->cap; i++) {
		uint64_t img = kf->slots[i].val - 1;

		if (!kf->slots[i].key || img >= h->images.nr || !mods[img])
			continue;
		keys[*n].module = mods[img];
		keys[(*n)++].addr = kf->slots[i].key;
	}
	for (i = 0; i < h->nr_cells; i++) {
		const struct ops_hist_cell *c = &h->cells[i];
		uint32_t img;

		if (c->ctx & OPS_STACK_CTX || c->ctx >= h->contexts.nr)
			continue;
		img = ctx_image[c->ctx];
		if (img >= h->images.nr || !mods[img])
			continue;
		keys[*n].module = mods[img];
		keys[(*n)++].addr = c->offset;
	}
	qsort(keys, *n, sizeof(*keys), key_cmp);
	*out = keys;
out:
	free(mods);
	free(ctx_image);
	return ret;
}

/* Mark the symbol holding each sample, its aliases, and the symbol after
 * them in the same module. */
static void mark_needed(struct ksym_key *syms, size_t nsyms,
			const struct ksym_key *samples, size_t nsamples)
{
	size_t i, lo = 0;

	for (i = 0; i < nsamples; i++) {
		struct ksym_key probe = { .module = samples[i].module,
					  .addr = samples[i].addr,
					  .line = (size_t)-1 };
		size_t first, k;

		/* the last symbol <= the sample; samples are sorted, so the
		 * search can start where the last one ended */
		lo = oputil_partition(lo, nsyms, m,
				      key_cmp(&syms[m], &probe) <= 0);
		if (!lo || strcmp(syms[lo - 1].module, probe.module))
			continue;
		first = lo - 1;
		while (first && syms[first - 1].addr == syms[lo - 1].addr &&
		       !strcmp(syms[first - 1].module, probe.module))
			first--;
		for (k = first; k < lo; k++)
			syms[k].keep = true;
		if (lo < nsyms && !strcmp(syms[lo].module, probe.module))
			syms[lo].keep = true;
	}
}

/* Index the copy's code lines in TEXT (split in place); STARTS[k] and
 * LENS[k] say where line k was. */
static int index_lines(char *text, size_t len, struct ksym_key **syms,
		       size_t *nsyms, size_t **starts, size_t **lens,
		       size_t *nlines)
{
	size_t cap = 1, i, pos;

	for (i = 0; i < len; i++)
		cap += text[i] == '\n';
	*syms = calloc(cap, sizeof(**syms));
	*starts = calloc(cap, sizeof(**starts));
	*lens = calloc(cap, sizeof(**lens));
	if (!*syms || !*starts || !*lens)
		return -ENOMEM;
	*nsyms = *nlines = 0;
	for (pos = 0; pos < len;) {
		char *nl = memchr(text + pos, '\n', len - pos);
		size_t l = (size_t)((nl ? nl : text + len) - (text + pos));
		struct ops_ksym_line kl;
		size_t k = (*nlines)++;

		(*starts)[k] = pos;
		(*lens)[k] = l;
		text[pos + l] = '\0'; /* the newline, or the byte past len */
		if (!memchr(text + pos, '\0', l) &&
		    !ops_kallsyms_parse_line(text + pos, &kl) &&
		    ops_kallsyms_is_code(&kl)) {
			(*syms)[*nsyms].module = kl.module ? kl.module
							   : kernel_module;
			(*syms)[*nsyms].addr = kl.addr;
			(*syms)[(*nsyms)++].line = k;
		}
		pos += l + 1;
	}
	return 0;
}

int ops_writer_trim_kallsyms(struct ops_writer *w)
{
	char *path = ops_strfmt("%s/kallsyms", w->dir);
	struct ksym_key *samples = NULL, *syms = NULL;
	char **names = NULL;
	size_t nsamples = 0, nsyms = 0, nlines = 0, i, olen = 0;
	size_t *starts = NULL, *lens = NULL;
	uint8_t *orig = NULL;
	char *text = NULL, *kept = NULL, *keep_line = NULL;
	size_t len;
	int ret;

	if (!path) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ops_read_file(path, &orig, &len);
	if (ret)
		goto out; /* no copy (kernel not recorded): nothing to do */
	text = malloc(len + 1);
	ret = text ? kernel_samples(w, &names, &samples, &nsamples) : -ENOMEM;
	if (ret)
		goto out;
	memcpy(text, orig, len);
	text[len] = '\0';
	ret = index_lines(text, len, &syms, &nsyms, &starts, &lens, &nlines);
	/* a table without addresses (kptr_restrict) is left as it was */
	if (ret || !nsyms)
		goto out;
	qsort(syms, nsyms, sizeof(*syms), key_cmp);
	mark_needed(syms, nsyms, samples, nsamples);
	keep_line = calloc(nlines ? nlines : 1, 1);
	kept = malloc(len + 1);
	if (!keep_line || !kept) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nsyms; i++)
		keep_line[syms[i].line] = syms[i].keep;
	/* the kept lines in their original order, from the untouched copy */
	for (i = 0; i < nlines; i++) {
		if (!keep_line[i])
			continue;
		memcpy(kept + olen, orig + starts[i], lens[i]);
		olen += lens[i];
		kept[olen++] = '\n';
	}
	ret = ops_write_atomic(w->dfd, w->dir, "kallsyms", ".kallsyms.tmp",
			       kept, olen, true, w->err, sizeof(w->err));
out:
	for (i = 0; names && i < w->hist.images.nr; i++)
		free(names[i]);
	free(names);
	free(path);
	free(orig);
	free(text);
	free(kept);
	free(keep_line);
	free(samples);
	free(syms);
	free(starts);
	free(lens);
	return ret == -ENOENT ? 0 : ret;
}
