// SPDX-License-Identifier: MIT
/*
 * Methods: each jmethodID that compiled code mentions is declared to the
 * log once, with its readable name, source file and line table, and its
 * jitlog id is kept here, so that code and inlining chains name it by id.
 */
#include <stdlib.h>
#include <string.h>

#include <oputil/u64map.h>

#include <opjit/jitlog.h>

#include "agent.h"

/* jmethodID -> jitlog method id, under agent_lock() */
static struct oputil_u64map methods;

struct method_text {
	char name[1024], file[512];
	struct opjit_jitlog_line *lines;
	size_t nr_lines;
};

/* M's name, file and lines as the JVM gives them; false when it cannot
 * name M. */
static int method_text_get(jvmtiEnv *jvmti, jmethodID m,
			   struct method_text *mt)
{
	char *mname = NULL, *msig = NULL, *csig = NULL, *src = NULL;
	jvmtiLineNumberEntry *lt = NULL;
	jint nr_lt = 0;
	jclass cls;

	mt->file[0] = 0;
	mt->lines = NULL;
	mt->nr_lines = 0;
	if ((*jvmti)->GetMethodName(jvmti, m, &mname, &msig, NULL) !=
	    JVMTI_ERROR_NONE)
		return 0;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) ==
	    JVMTI_ERROR_NONE)
		(*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL);
	agent_name_format(mt->name, sizeof(mt->name), csig, mname, msig);
	if (csig &&
	    (*jvmti)->GetSourceFileName(jvmti, cls, &src) == JVMTI_ERROR_NONE)
		agent_source_format(mt->file, sizeof(mt->file), csig, src);
	if ((*jvmti)->GetLineNumberTable(jvmti, m, &nr_lt, &lt) !=
	    JVMTI_ERROR_NONE)
		nr_lt = 0;
	if (nr_lt > 0)
		mt->lines = malloc((size_t)nr_lt * sizeof(*mt->lines));
	for (jint i = 0; mt->lines && i < nr_lt; i++) {
		/* a line starts at a bytecode index: the frames' location */
		mt->lines[i].offset = (uint32_t)lt[i].start_location;
		mt->lines[i].line = (uint32_t)lt[i].line_number;
		mt->nr_lines++;
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)mname);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)msig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)src);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)lt);
	return 1;
}

/* HotSpot's line tables come in bytecode order mostly, not always: the
 * log wants them sorted by where each line starts. */
static int line_cmp(const void *a, const void *b)
{
	const struct opjit_jitlog_line *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

uint64_t agent_method_find(jmethodID m)
{
	uint64_t id = 0;

	agent_lock();
	oputil_u64map_get(&methods, (uintptr_t)m, &id);
	agent_unlock();
	return id;
}

uint64_t agent_method_id(jvmtiEnv *jvmti, jmethodID m)
{
	struct opjit_jitlog_method jm = { .struct_size = sizeof(jm) };
	struct method_text *mt;
	uint64_t id = 0;
	int declared = 0;

	if (!m || !agent_jitlog)
		return 0;
	id = agent_method_find(m);
	if (id)
		return id;
	/* asking the JVM takes long: not under the lock, and another
	 * thread asking for M meanwhile costs a second look, not a second
	 * declaration */
	mt = malloc(sizeof(*mt));
	if (!mt || !method_text_get(jvmti, m, mt)) {
		free(mt);
		return 0;
	}
	if (mt->nr_lines)
		qsort(mt->lines, mt->nr_lines, sizeof(*mt->lines), line_cmp);
	jm.name = mt->name;
	jm.file = mt->file[0] ? mt->file : NULL;
	jm.lines = mt->lines;
	jm.nr_lines = mt->nr_lines;
	agent_lock();
	if (!oputil_u64map_get(&methods, (uintptr_t)m, &id) &&
	    !opjit_jitlog_method(agent_jitlog, &jm) &&
	    oputil_u64map_put(&methods, (uintptr_t)m, jm.id, NULL) >= 0) {
		id = jm.id;
		declared = 1;
	}
	agent_unlock();
	if (agent_log && declared)
		fprintf(agent_log, "method %p %s %s lines=%zu\n", (void *)m,
			mt->name, mt->file[0] ? mt->file : "-", mt->nr_lines);
	free(mt->lines);
	free(mt);
	return id;
}
