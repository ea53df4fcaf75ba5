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

size_t handler_table_size(uint32_t minor)
{
	if (minor >= 5)
		return OPJIT_HANDLER_SIZE_1_5;
	if (minor == 4)
		return OPJIT_HANDLER_SIZE_1_4;
	if (minor == 3)
		return OPJIT_HANDLER_SIZE_1_3;
	return OPJIT_HANDLER_SIZE_1_0;
}

/* The table's minor says how long it is: a table of a minor this host
 * knows is exactly that long; a later one is at least as long as this
 * host's, and its further slots are optional, so ignored here. */
static int check_size(const struct opjit_handler *t, char *reason, size_t len)
{
	size_t want = handler_table_size(t->abi_minor);

	/* Before 1.5 the host did not check this, and the example taught
	 * minor 3 with a 1.0 table: such a table is still read as the
	 * shorter table it is (opjit-handler-check reports it), so that a
	 * handler built then keeps loading. */
	if (t->abi_minor < 5 && t->struct_size < want &&
	    (t->struct_size == OPJIT_HANDLER_SIZE_1_0 ||
	     t->struct_size == OPJIT_HANDLER_SIZE_1_3))
		return 0;
	if (t->abi_minor <= OPJIT_HANDLER_ABI_MINOR &&
	    t->struct_size != want) {
		snprintf(reason, len,
			 "handler table of %zu bytes says ABI %u.%u, whose "
			 "table is %zu bytes",
			 t->struct_size, t->abi_major, t->abi_minor, want);
		return -EPROTO;
	}
	if (t->abi_minor > OPJIT_HANDLER_ABI_MINOR && t->struct_size < want) {
		snprintf(reason, len,
			 "handler table of %zu bytes says ABI %u.%u, whose "
			 "table is at least %zu bytes",
			 t->struct_size, t->abi_major, t->abi_minor, want);
		return -EPROTO;
	}
	return 0;
}

static int check_table(const struct opjit_handler *t, const char *name,
		       char *reason, size_t len)
{
	uint64_t unknown;
	int rc;

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
	rc = check_size(t, reason, len);
	if (rc < 0)
		return rc;
	unknown = t->struct_size >= OPJIT_HANDLER_SIZE_1_5
			  ? t->required_features & ~HANDLER_FEATURES_KNOWN
			  : 0;
	if (unknown) {
		snprintf(reason, len,
			 "requires features 0x%llx, which this opreport "
			 "(ABI %u.%u) does not have",
			 (unsigned long long)unknown, OPJIT_HANDLER_ABI_MAJOR,
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
	char dlpath[64];
	int fd, rc;

	memset(h, 0, sizeof(*h));
	/* its constructor runs as whoever runs opreport: check who could
	 * have put it there before dlopen runs any of it, on the file
	 * dlopen then loads */
	fd = handler_trust_lib_open(path, geteuid(), reason, len);
	if (fd < 0)
		return fd;
	snprintf(dlpath, sizeof(dlpath), "/proc/self/fd/%d", fd);
	rc = handler_open_checked(h, path, dlpath, name, reason, len);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	h->dl_fd = fd;
	h->has_dl_fd = true;
	return 0;
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
	if (h->has_dl_fd)
		close(h->dl_fd);
	free(h->name);
	free(h->path);
	memset(h, 0, sizeof(*h));
}
