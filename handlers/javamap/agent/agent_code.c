// SPDX-License-Identifier: MIT
/*
 * The JVMTI events that log code: compiled methods with the inlining
 * chain at each pc, their unloads, and the stubs the JVM generates.  The
 * log names a piece of code by the id it gave at load; JVMTI names it at
 * unload by its address, so the live code is kept here by address.
 */
#include <stdlib.h>
#include <string.h>

#include <opjit/jitlog.h>
#include <oputil/u64map.h>

#include "agent.h"
#include <jvmticmlr.h> /* after jvmti.h, which it needs */

/* code address -> jitlog code id, and the stubs' addresses (stubs live
 * as long as the JVM), both under agent_lock() */
static struct oputil_u64map live, stubs;

/* Whether code being replayed is at ADDR in TABLE, logged already: the
 * VM's start replays what the agent saw being made. */
static int already_logged(struct oputil_u64map *table, uintptr_t addr)
{
	int seen;

	if (!agent_replaying)
		return 0;
	agent_lock();
	seen = oputil_u64map_get(table, addr, NULL);
	agent_unlock();
	return seen;
}

static const jvmtiCompiledMethodLoadInlineRecord *
inline_record(const void *compile_info)
{
	const jvmtiCompiledMethodLoadRecordHeader *h = compile_info;

	for (; h; h = h->next)
		if (h->kind == JVMTI_CMLR_INLINE_INFO)
			return (const void *)h;
	return NULL;
}

/* The frames of one pc to log, innermost first as HotSpot gives them;
 * with inlining off only the outermost, the compiled method itself. */
static jint pc_first_frame(const PCStackInfo *pc)
{
	jint first = agent_inline ? 0 : pc->numstackframes - 1;

	/* a pc holds at most 65535 frames: past that, keep the outer */
	if (pc->numstackframes - first > UINT16_MAX)
		first = pc->numstackframes - UINT16_MAX;
	return first < 0 ? 0 : first;
}

/* The pcs of a compiled method, from its inline record IR or, without
 * one, its location map; the frames are allocated with them. */
struct code_pcs {
	struct opjit_jitlog_pc *pcs;
	struct opjit_jitlog_frame *frames;
	size_t nr_pcs;
};

static void pcs_from_inline(jvmtiEnv *jvmti,
			    const jvmtiCompiledMethodLoadInlineRecord *ir,
			    uintptr_t base, struct code_pcs *out)
{
	size_t nr_frames = 0, k = 0;
	uint32_t start = 0;

	for (jint i = 0; i < ir->numpcs; i++)
		nr_frames += (size_t)(ir->pcinfo[i].numstackframes -
				      pc_first_frame(&ir->pcinfo[i]));
	out->pcs = malloc((size_t)ir->numpcs * sizeof(*out->pcs));
	out->frames =
		malloc((nr_frames ? nr_frames : 1) * sizeof(*out->frames));
	if (!out->pcs || !out->frames)
		return;
	for (jint i = 0; i < ir->numpcs; i++) {
		const PCStackInfo *pc = &ir->pcinfo[i];
		struct opjit_jitlog_pc *lp = &out->pcs[out->nr_pcs++];

		/* HotSpot puts a pc's frames at the end of the code they
		 * cover, after the pc before it (a call's at its return
		 * address, where a caller frame points); the log's pcs
		 * start their ranges */
		lp->offset = start;
		start = (uint32_t)((uintptr_t)pc->pc - base) + 1;
		lp->frames = &out->frames[k];
		lp->nr_frames = 0;
		for (jint f = pc_first_frame(pc); f < pc->numstackframes;
		     f++) {
			struct opjit_jitlog_frame *fr = &out->frames[k++];

			fr->method = agent_method_id(jvmti, pc->methods[f]);
			fr->location = (uint32_t)pc->bcis[f];
			fr->reserved = 0;
			lp->nr_frames++;
		}
	}
}

static void pcs_from_map(const jvmtiAddrLocationMap *map, jint map_length,
			 uintptr_t base, struct code_pcs *out)
{
	out->pcs = malloc((size_t)map_length * sizeof(*out->pcs));
	out->frames = malloc((size_t)map_length * sizeof(*out->frames));
	if (!out->pcs || !out->frames)
		return;
	for (jint i = 0; i < map_length; i++) {
		/* one frame: the code's own method */
		out->frames[i] = (struct opjit_jitlog_frame){
			0, (uint32_t)map[i].location, 0
		};
		out->pcs[i] = (struct opjit_jitlog_pc){
			(uint32_t)((uintptr_t)map[i].start_address - base), 1,
			&out->frames[i]
		};
	}
	out->nr_pcs = (size_t)map_length;
}

void JNICALL agent_on_compiled_load(jvmtiEnv *jvmti, jmethodID method,
				    jint code_size, const void *code_addr,
				    jint map_length,
				    const jvmtiAddrLocationMap *map,
				    const void *compile_info)
{
	const jvmtiCompiledMethodLoadInlineRecord *ir =
		inline_record(compile_info);
	struct code_pcs p = { 0 };
	struct opjit_jitlog_code c = {
		.struct_size = sizeof(c),
		.addr = (uintptr_t)code_addr,
		.size = (uint64_t)code_size,
		.flags = agent_replaying ? OPJIT_JITLOG_CODE_OLDER : 0,
	};
	int rc;

	if (!agent_jitlog || code_size <= 0 || already_logged(&live, c.addr))
		return;
	c.method = agent_method_id(jvmti, method);
	if (!c.method)
		c.name = "(a method the JVM could not name)";
	if (ir)
		pcs_from_inline(jvmti, ir, c.addr, &p);
	else if (map && map_length > 0)
		pcs_from_map(map, map_length, c.addr, &p);
	if (p.pcs && p.frames) {
		c.pcs = p.pcs;
		c.nr_pcs = p.nr_pcs;
	}
	rc = opjit_jitlog_load(agent_jitlog, &c);
	if (!rc) {
		agent_lock();
		oputil_u64map_put(&live, c.addr, c.id, NULL);
		agent_unlock();
	}
	if (agent_log)
		fprintf(agent_log, "load %p %p+%d pcs=%zu%s%s%s\n",
			(void *)method, code_addr, (int)code_size, c.nr_pcs,
			agent_replaying ? " replayed" : "", rc ? ": " : "",
			rc ? opjit_jitlog_strerror(rc) : "");
	free(p.pcs);
	free(p.frames);
}

void JNICALL agent_on_compiled_unload(jvmtiEnv *jvmti, jmethodID method,
				      const void *code_addr)
{
	struct opjit_jitlog_code c = {
		.struct_size = sizeof(c),
		.addr = (uintptr_t)code_addr,
	};
	int found;

	if (!agent_jitlog)
		return;
	agent_lock();
	found = oputil_u64map_del(&live, c.addr, &c.id);
	agent_unlock();
	/* the method may be gone with its class: it is looked up, never
	 * asked of the JVM */
	(void)jvmti;
	c.method = agent_method_find(method);
	if (found)
		opjit_jitlog_unload(agent_jitlog, &c);
	if (agent_log)
		fprintf(agent_log, "unload %p %p%s\n", (void *)method,
			code_addr, found ? "" : " (its load was not seen)");
}

void JNICALL agent_on_dynamic_code(jvmtiEnv *jvmti, const char *name,
				   const void *address, jint length)
{
	struct opjit_jitlog_code c = {
		.struct_size = sizeof(c),
		.addr = (uintptr_t)address,
		.size = (uint64_t)length,
		.name = name ? name : "(unnamed stub)",
		.flags = agent_replaying ? OPJIT_JITLOG_CODE_OLDER : 0,
	};

	(void)jvmti;
	if (!agent_jitlog || length <= 0 || already_logged(&stubs, c.addr))
		return;
	/* a stub is never unloaded: only its address is kept */
	if (!opjit_jitlog_load(agent_jitlog, &c)) {
		agent_lock();
		oputil_u64map_put(&stubs, c.addr, 1, NULL);
		agent_unlock();
	}
	if (agent_log)
		fprintf(agent_log, "dynamic %s %p+%d\n", c.name, address,
			(int)length);
}
