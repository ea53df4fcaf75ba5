// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Open one handler file and check everything about it before the report
 * trusts its table: a handler that is wrong in any way is refused with a
 * reason the user can act on, and nothing of it stays loaded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handler_internal.h"

static int check_table(const struct opjit_handler *t, const char *name,
		       char *reason, size_t len)
{
	if (!t) {
		snprintf(reason, len, "%s() returned no table for ABI %u.%u",
			 OPJIT_HANDLER_ENTRY_NAME, OPJIT_HANDLER_ABI_MAJOR,
			 OPJIT_HANDLER_ABI_MINOR);
		return -EPROTO;
	}
	if (t->struct_size < OPJIT_HANDLER_V1_SIZE) {
		snprintf(reason, len,
			 "handler table of %zu bytes, at least %zu expected",
			 t->struct_size, (size_t)OPJIT_HANDLER_V1_SIZE);
		return -EPROTO;
	}
	if (t->abi_major != OPJIT_HANDLER_ABI_MAJOR) {
		snprintf(reason, len, "ABI major %u, opreport speaks %u",
			 t->abi_major, OPJIT_HANDLER_ABI_MAJOR);
		return -EPROTO;
	}
	if (t->struct_size > HANDLER_STRUCT_MAX) {
		snprintf(reason, len,
			 "handler table of %zu bytes, more than "
			 "any 1.x table can be",
			 t->struct_size);
		return -EPROTO;
	}
	if (!handler_tail_zero(t, OPJIT_HANDLER_SIZE_1_4, t->struct_size)) {
		snprintf(reason, len,
			 "handler table of %zu bytes sets fields "
			 "past ABI %u.%u, which this opreport cannot honour",
			 t->struct_size, OPJIT_HANDLER_ABI_MAJOR,
			 OPJIT_HANDLER_ABI_MINOR);
		return -EPROTO;
	}
	if (!t->name || strcmp(t->name, name)) {
		snprintf(reason, len, "calls itself '%.64s', expected '%s'",
			 t->name ? t->name : "(null)", name);
		return -EPROTO;
	}
	if (!t->claim || !t->resolve || !t->release) {
		snprintf(reason, len, "handler table has no %s function",
			 !t->claim     ? "claim"
			 : !t->resolve ? "resolve"
				       : "release");
		return -EPROTO;
	}
	return 0;
}

int handler_open(struct anon_handler *h, const char *path, const char *name,
		 char *reason, size_t len)
{
	const char *why;
	char buf[256];

	memset(h, 0, sizeof(*h));
	/* its constructor runs as whoever runs opreport: check who could
	 * have put it there before dlopen runs any of it */
	why = handler_trust_lib(path, geteuid(), buf, sizeof(buf));
	if (why) {
		snprintf(reason, len, "%s", why);
		return -EPERM;
	}
	return handler_open_checked(h, path, path, name, reason, len);
}

int handler_open_checked(struct anon_handler *h, const char *path,
			 const char *dlpath, const char *name, char *reason,
			 size_t len)
{
	const struct opjit_handler *t;
	opjit_handler_entry_fn entry;
	void *dl = NULL;
	int rc;

	memset(h, 0, sizeof(*h));
	dl = dlopen(dlpath, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *e = dlerror();
		size_t n = strlen(dlpath);

		rc = -ENOEXEC;
		/* the error names the file, not the helper's copy of it */
		if (e && strncmp(e, dlpath, n) == 0)
			snprintf(reason, len, "%s%s", path, e + n);
		else
			snprintf(reason, len, "%s", e ? e : "dlopen failed");
		goto out;
	}
	dlerror();
	*(void **)&entry = dlsym(dl, OPJIT_HANDLER_ENTRY_NAME);
	if (!entry) {
		rc = -ENOENT;
		snprintf(reason, len, "no entry point %s",
			 OPJIT_HANDLER_ENTRY_NAME);
		goto out;
	}
	t = entry(OPJIT_HANDLER_ABI_MAJOR, OPJIT_HANDLER_ABI_MINOR);
	rc = check_table(t, name, reason, len);
	if (rc < 0)
		goto out;
	/* A newer handler's table may be longer: keep what this host knows. */
	memcpy(&h->tab, t,
	       t->struct_size < sizeof(h->tab) ? t->struct_size
					       : sizeof(h->tab));
	h->name = strdup(name);
	h->path = strdup(path);
	if (!h->name || !h->path) {
		rc = -ENOMEM;
		snprintf(reason, len, "out of memory");
		goto out;
	}
	h->dl = dl;
	dl = NULL;
	rc = 0;
out:
	if (dl)
		dlclose(dl);
	if (rc < 0) {
		free(h->name);
		free(h->path);
		memset(h, 0, sizeof(*h));
	}
	return rc;
}

void handler_close(struct anon_handler *h)
{
	if (h->dl)
		dlclose(h->dl);
	free(h->name);
	free(h->path);
	memset(h, 0, sizeof(*h));
}
