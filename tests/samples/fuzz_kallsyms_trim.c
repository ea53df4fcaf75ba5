// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the kallsyms trim on arbitrary text and samples.  It
 * keeps what the sort of every line keeps (kallsyms_trim_ref.c), and
 * trimming that again changes nothing; the trim by the text's index
 * (kallsyms_index*.c) keeps the same, and the text read as an index
 * parses or not, and searches the text without a fault. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>

#include "kallsyms_trim_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void trim_both(const char *text, size_t len,
		      const struct ops_ksym_want *want, size_t n,
		      struct ops_buf *out)
{
	struct ops_ksym_want copy[16];
	struct ops_buf ref = { 0 };
	int r1, r2;

	memcpy(copy, want, n * sizeof(*want));
	r1 = ops_kallsyms_trim(text, len, copy, n, out);
	r2 = kallsyms_trim_ref(text, len, want, n, &ref);
	if (r1 != r2 || out->len != ref.len ||
	    (out->len && memcmp(out->data, ref.data, out->len)))
		abort();
	ops_buf_free(&ref);
	r2 = kallsyms_trim_own_index(text, len, want, n, &ref);
	if (r1 != r2 || out->len != ref.len ||
	    (out->len && memcmp(out->data, ref.data, out->len)))
		abort();
	ops_buf_free(&ref);
}

/* TEXT read as an index, and searched with it when it is one. */
static void text_as_index(const char *text, size_t len,
			  const struct ops_ksym_want *want, size_t n)
{
	uint64_t *p = malloc(len / 8 * 8 + 8); /* aligned as read */
	struct ops_ksym_index ix;
	struct ops_buf out = { 0 };

	if (!p)
		return;
	memcpy(p, text, len);
	if (!ops_kallsyms_index_parse(p, len, &ix)) {
		ops_kallsyms_trim_index(text, len, &ix, want, n, &out);
		ops_kallsyms_index_free(&ix);
	}
	ops_buf_free(&out);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const mods[] = { "", "a", "ab", "b" };
	struct ops_ksym_want want[16];
	struct ops_buf once = { 0 }, twice = { 0 };
	size_t n, i;

	if (!size)
		return 0;
	n = data[0] % 17;
	if (size < 1 + n * 9)
		return 0;
	for (i = 0; i < n; i++) {
		const uint8_t *w = data + 1 + i * 9;
		const char *m = mods[w[0] % 4];

		want[i].module = m;
		want[i].module_len = strlen(m);
		memcpy(&want[i].addr, w + 1, 8);
	}
	data += 1 + n * 9;
	size -= 1 + n * 9;
	text_as_index((const char *)data, size, want, n);
	trim_both((const char *)data, size, want, n, &once);
	if (once.len) {
		trim_both((const char *)once.data, once.len, want, n, &twice);
		if (twice.len != once.len ||
		    memcmp(twice.data, once.data, once.len))
			abort();
	}
	ops_buf_free(&once);
	ops_buf_free(&twice);
	return 0;
}
