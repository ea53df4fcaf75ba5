/* SPDX-License-Identifier: MIT */
/*
 * What a handler's claim() does for maps: offer the process's candidate
 * maps of the kinds it reads, in the host's order, to its loader, and
 * claim with the first that loads.  A header of inline code for handler
 * authors, beside opjit/anon_handler.h; not part of the ABI.
 *
 *	static int my_load(const struct opjit_host *host,
 *			   const struct opjit_process *proc,
 *			   const struct opjit_map_candidate *c, void **state,
 *			   char *err, size_t errlen);
 *
 *	return opjit_claim_first_map(host, proc, OPJIT_KIND(OPJIT_MAP_PERF),
 *				     my_load, state, err, errlen);
 */
#ifndef OPJIT_ANON_HANDLER_CLAIM_H
#define OPJIT_ANON_HANDLER_CLAIM_H

#include <opjit/anon_handler.h>

/* The kinds a handler reads, as a mask. */
#define OPJIT_KIND(kind) (1u << (kind))

/* Load candidate C: 1 and *STATE when it is the handler's, 0 when not
 * (another candidate is tried), or a negative errno with ERR (ERRLEN
 * bytes) saying why it is the handler's but cannot be read. */
typedef int (*opjit_map_loader)(const struct opjit_host *host,
				const struct opjit_process *proc,
				const struct opjit_map_candidate *c,
				void **state, char *err, size_t errlen);

/* claim() through LOAD for the candidates of the KINDS mask: 1 with
 * *STATE, 0, or LOAD's negative errno. */
static inline int opjit_claim_first_map(const struct opjit_host *host,
					const struct opjit_process *proc,
					uint32_t kinds, opjit_map_loader load,
					void **state, char *err, size_t errlen)
{
	const size_t need =
		OPJIT_SIZE_THROUGH(struct opjit_map_candidate, kind);
	size_t i;
	int rc;

	*state = NULL;
	if (!proc ||
	    proc->struct_size <
		    OPJIT_SIZE_THROUGH(struct opjit_process, nr_maps) ||
	    !proc->maps || host->struct_size < OPJIT_HOST_SIZE_1_0 ||
	    !host->open_map)
		return 0;
	for (i = 0; i < proc->nr_maps; i++) {
		const struct opjit_map_candidate *c = proc->maps[i];

		if (!c || c->struct_size < need || !c->path || c->kind >= 32 ||
		    !(kinds & OPJIT_KIND(c->kind)))
			continue;
		rc = load(host, proc, c, state, err, errlen);
		if (rc)
			return rc < 0 ? rc : 1;
	}
	return 0;
}

#endif
