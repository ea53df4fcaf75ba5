// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Where a process's JIT maps live and what a map file's name says it is:
 * the one answer for the recorder, which archives the maps, and the
 * report, which offers them to the handlers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <opjit/samples.h>

enum ops_jit_map_kind ops_jit_map_kind(const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(name, "anon.", 5))
		return OPS_JIT_MAP_ANON;
	if (n > 9 && !strncmp(name, "perf-", 5) &&
	    !strcmp(name + n - 4, ".map"))
		return OPS_JIT_MAP_PERF;
	if (n > 9 && !strncmp(name, "jit-", 4) &&
	    !strcmp(name + n - 5, ".dump"))
		return OPS_JIT_MAP_JITDUMP;
	return OPS_JIT_MAP_NONE;
}

static int jit_map_fit(int n, size_t size)
{
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ops_jit_map_path(char *buf, size_t size, const char *dir,
		     enum ops_jit_map_kind kind, uint32_t pid)
{
	switch (kind) {
	case OPS_JIT_MAP_ANON:
		return jit_map_fit(snprintf(buf, size, "%s/anon.%u", dir, pid),
				   size);
	case OPS_JIT_MAP_PERF:
		return jit_map_fit(
			snprintf(buf, size, "%s/perf-%u.map", dir, pid), size);
	default:
		return -EINVAL;
	}
}

int ops_jit_map_dump_path(char *buf, size_t size, uint32_t tgid,
			  bool other_mntns, const char *dump)
{
	if (other_mntns)
		return jit_map_fit(snprintf(buf, size, "/proc/%u/root%s", tgid,
					    dump),
				   size);
	return jit_map_fit(snprintf(buf, size, "%s", dump), size);
}
