// SPDX-License-Identifier: GPL-3.0-or-later
/* Any name another user can choose goes through oputil_escape_text
 * before a terminal sees it (the text, CSV, folded and pprof writers, via
 * out_safe) or oputil_escape_json before a JSON parser does: whatever the
 * bytes, the result holds no byte a terminal acts on, JSON's is valid
 * UTF-8 with no bare quote, and the sized and unsized calls agree. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/escape.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *out;
	size_t len, i;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	len = oputil_escape_text(NULL, 0, in);
	out = malloc(len + 1);
	if (!out) {
		free(in);
		return 0;
	}
	if (oputil_escape_text(out, len + 1, in) != len || strlen(out) != len)
		abort();
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c < 0x20 || c == 0x7f)
			abort();
		/* U+0080..U+009F written in UTF-8 */
		if (c == 0xc2 && i + 1 < len &&
		    (unsigned char)out[i + 1] >= 0x80 &&
		    (unsigned char)out[i + 1] <= 0x9f)
			abort();
	}
	/* escaped once is escaped; clean text is left as it is */
	if (oputil_escape_needed(out) ||
	    (!oputil_escape_needed(in) && strcmp(out, in)))
		abort();
	free(out);

	len = oputil_escape_json(NULL, 0, in);
	out = malloc(len + 1);
	if (!out) {
		free(in);
		return 0;
	}
	if (oputil_escape_json(out, len + 1, in) != len || strlen(out) != len)
		abort();
	/* no control, no C1, no invalid UTF-8 */
	if (oputil_escape_needed(out))
		abort();
	for (i = 0; i < len; i++) {
		if (out[i] == '\\')
			i++; /* an escape's letter */
		else if (out[i] == '"')
			abort();
	}
	free(out);
	free(in);
	return 0;
}
