// SPDX-License-Identifier: MIT
/*
 * libjavamap-agent.so: a JVMTI agent that records every piece of code the
 * JVM compiles or generates, with CLOCK_MONOTONIC times, into the javamap
 * file that opjit's javamap handler reads (handlers/javamap/FORMAT.md).
 *
 *   java -agentpath:/path/libjavamap-agent.so[=OPTIONS] ...
 *   jcmd PID JVMTI.agent_load /path/libjavamap-agent.so [OPTIONS]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jvmti.h>
#include <jvmticmlr.h>

#include "agent.h"
#include "../jm_format.h"

FILE *agent_log;
int agent_inline = 1;

static int agent_active;
static char agent_path[4096];
/* set while GenerateEvents replays code older than the agent */
static __thread int agent_replaying;

static const jvmtiCompiledMethodLoadInlineRecord *
inline_record(const void *compile_info)
{
	const jvmtiCompiledMethodLoadRecordHeader *h = compile_info;

	for (; h; h = h->next)
		if (h->kind == JVMTI_CMLR_INLINE_INFO)
			return (const void *)h;
	return NULL;
}

/* Frames of one pc, innermost first as HotSpot gives them; with inlining
 * off only the outermost, the compiled method itself. */
static size_t pc_frames(const PCStackInfo *pc, jint *first)
{
	if (pc->numstackframes <= 0) {
		*first = 0;
		return 0;
	}
	*first = agent_inline ? 0 : pc->numstackframes - 1;
	/* nr_frames is 16 bits: past that, keep the outer frames */
	if (pc->numstackframes - *first > UINT16_MAX)
		*first = pc->numstackframes - UINT16_MAX;
	return (size_t)(pc->numstackframes - *first);
}

static void JNICALL on_compiled_load(jvmtiEnv *jvmti, jmethodID method,
				     jint code_size, const void *code_addr,
				     jint map_length,
				     const jvmtiAddrLocationMap *map,
				     const void *compile_info)
{
	const jvmtiCompiledMethodLoadInlineRecord *ir =
		inline_record(compile_info);
	unsigned char fixed[JM_CODE_LOAD_FIXED];
	unsigned char *pcs = NULL, *p;
	size_t size = 0, nr_pcs = 0;
	uintptr_t base = (uintptr_t)code_addr;
	jint first;

	agent_method_note(jvmti, method);
	if (ir) {
		for (jint i = 0; i < ir->numpcs; i++) {
			size_t n = pc_frames(&ir->pcinfo[i], &first);

			size += JM_PC_FIXED + n * JM_FRAME_SIZE;
			for (jint f = first; f < ir->pcinfo[i].numstackframes;
			     f++)
				agent_method_note(jvmti,
						  ir->pcinfo[i].methods[f]);
		}
	} else if (map && map_length > 0) {
		size = (size_t)map_length * (JM_PC_FIXED + JM_FRAME_SIZE);
	}
	if (size)
		pcs = malloc(size);
	p = pcs;
	if (pcs && ir) {
		for (jint i = 0; i < ir->numpcs; i++) {
			const PCStackInfo *pc = &ir->pcinfo[i];
			size_t n = pc_frames(pc, &first);

			agent_put32(p, (uint32_t)((uintptr_t)pc->pc - base));
			agent_put16(p + 4, (uint16_t)n);
			agent_put16(p + 6, 0);
			p += JM_PC_FIXED;
			for (jint f = first; f < pc->numstackframes; f++) {
				agent_put64(
					p,
					(uint64_t)(uintptr_t)pc->methods[f]);
				agent_put32(p + 8, (uint32_t)pc->bcis[f]);
				p += JM_FRAME_SIZE;
			}
			nr_pcs++;
		}
	} else if (pcs) {
		for (jint i = 0; i < map_length; i++) {
			agent_put32(
				p, (uint32_t)((uintptr_t)map[i].start_address -
					      base));
			agent_put16(p + 4, 1);
			agent_put16(p + 6, 0);
			agent_put64(p + 8, (uint64_t)(uintptr_t)method);
			agent_put32(p + 16, (uint32_t)map[i].location);
			p += JM_PC_FIXED + JM_FRAME_SIZE;
			nr_pcs++;
		}
	}
	agent_put64(fixed, (uint64_t)(uintptr_t)method);
	agent_put64(fixed + 8, (uint64_t)base);
	agent_put32(fixed + 16, (uint32_t)code_size);
	agent_put32(fixed + 20, (uint32_t)nr_pcs);
	agent_out_record(JM_REC_CODE_LOAD,
			 agent_replaying ? JM_REC_REPLAYED : 0, fixed,
			 sizeof(fixed), pcs, pcs ? (size_t)(p - pcs) : 0, NULL,
			 0);
	if (agent_log)
		fprintf(agent_log, "load %p %p+%d pcs=%zu%s\n", (void *)method,
			code_addr, (int)code_size, nr_pcs,
			agent_replaying ? " replayed" : "");
	free(pcs);
}

static void JNICALL on_compiled_unload(jvmtiEnv *jvmti, jmethodID method,
				       const void *code_addr)
{
	unsigned char rec[JM_CODE_UNLOAD_SIZE];

	agent_put64(rec, (uint64_t)(uintptr_t)method);
	agent_put64(rec + 8, (uint64_t)(uintptr_t)code_addr);
	agent_out_record(JM_REC_CODE_UNLOAD, 0, rec, sizeof(rec), NULL, 0,
			 NULL, 0);
	if (agent_log)
		fprintf(agent_log, "unload %p %p\n", (void *)method,
			code_addr);
}

static void JNICALL on_dynamic_code(jvmtiEnv *jvmti, const char *name,
				    const void *address, jint length)
{
	unsigned char fixed[JM_DYNAMIC_FIXED];
	size_t n = name ? strlen(name) : 0;

	agent_put64(fixed, (uint64_t)(uintptr_t)address);
	agent_put32(fixed + 8, (uint32_t)length);
	agent_put32(fixed + 12, (uint32_t)n);
	agent_out_record(JM_REC_DYNAMIC_CODE,
			 agent_replaying ? JM_REC_REPLAYED : 0, fixed,
			 sizeof(fixed), name, n, NULL, 0);
	if (agent_log)
		fprintf(agent_log, "dynamic %s %p+%d\n", name ? name : "?",
			address, (int)length);
}

/* Code that existed before the agent could see it being made. */
static void agent_replay(jvmtiEnv *jvmti)
{
	agent_replaying = 1;
	(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
	(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
	agent_replaying = 0;
	agent_out_flush();
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thr)
{
	agent_replay(jvmti);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	agent_out_close();
	/* flushed, not closed: a compiler thread may still be inside a
	 * callback that logs */
	if (agent_log)
		fflush(agent_log);
}

static int agent_enable(jvmtiEnv *jvmti, int live)
{
	static const jvmtiEvent events[] = {
		JVMTI_EVENT_COMPILED_METHOD_LOAD,
		JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
		JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
		JVMTI_EVENT_VM_DEATH,
		JVMTI_EVENT_VM_INIT,
	};
	jvmtiCapabilities caps = { 0 };
	jvmtiEventCallbacks cb = { 0 };
	jvmtiError e;

	caps.can_generate_compiled_method_load_events = 1;
	caps.can_get_source_file_name = 1;
	caps.can_get_line_numbers = 1;
	e = (*jvmti)->AddCapabilities(jvmti, &caps);
	if (e != JVMTI_ERROR_NONE)
		return -(int)e;
	cb.CompiledMethodLoad = on_compiled_load;
	cb.CompiledMethodUnload = on_compiled_unload;
	cb.DynamicCodeGenerated = on_dynamic_code;
	cb.VMInit = on_vm_init;
	cb.VMDeath = on_vm_death;
	e = (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb));
	if (e != JVMTI_ERROR_NONE)
		return -(int)e;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		/* VMInit has passed already when attaching */
		if (live && events[i] == JVMTI_EVENT_VM_INIT)
			continue;
		e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
						       events[i], NULL);
		if (e != JVMTI_ERROR_NONE)
			return -(int)e;
	}
	return 0;
}

static FILE *agent_open_log(const char *path)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stderr;
	f = fopen(path, "we");
	if (!f)
		fprintf(stderr,
			"javamap-agent: cannot open debug log %s: %s; "
			"going on without it\n",
			path, strerror(errno));
	return f;
}

/* Returns JNI_OK even when it gives up, so that a profiler's agent never
 * stops the application from running. */
static jint agent_start(JavaVM *vm, const char *options, int live)
{
	struct agent_opts o;
	char err[512];
	jvmtiEnv *jvmti = NULL;
	int ret;

	if (agent_active) {
		fprintf(stderr, "javamap-agent: already recording to %s\n",
			agent_path);
		return JNI_OK;
	}
	if (agent_opts_parse(options, &o, err, sizeof(err))) {
		/* jcmd takes NAME=VALUE for itself unless quoted */
		fprintf(stderr,
			"javamap-agent: bad options '%s': %s; "
			"not recording%s\n",
			options, err,
			live ? " (with jcmd, quote them: '\"file=...\"')"
			     : "");
		return JNI_OK;
	}
	agent_inline = o.inline_frames;
	if (o.debug)
		agent_log = agent_open_log(o.debug);
	if (o.file)
		snprintf(agent_path, sizeof(agent_path), "%s", o.file);
	else
		snprintf(agent_path, sizeof(agent_path), "/tmp/anon.%ld",
			 (long)getpid());
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
		fprintf(stderr, "javamap-agent: this JVM offers no JVMTI 1.2; "
				"not recording\n");
		goto out;
	}
	if (agent_out_open(agent_path, agent_log))
		goto out;
	agent_active = 1;
	ret = agent_enable(jvmti, live);
	if (ret) {
		fprintf(stderr,
			"javamap-agent: cannot enable JVMTI events "
			"(error %d); the map stays empty\n",
			-ret);
		goto out;
	}
	agent_out_start_flusher();
	if (live)
		agent_replay(jvmti);
out:
	agent_opts_free(&o);
	return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	return agent_start(vm, options, 0);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options,
				      void *reserved)
{
	return agent_start(vm, options, 1);
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	if (agent_active)
		agent_out_close();
}
