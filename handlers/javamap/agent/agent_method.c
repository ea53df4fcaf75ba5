// SPDX-License-Identifier: MIT
/*
 * METHOD records: a method's readable name, source file and line table,
 * written once per jmethodID, the first time compiled code mentions it.
 * Code records then refer to methods by id, which keeps inlining chains
 * small.
 */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "../jm_format.h"

/* open-addressing set of the jmethodIDs already written */
static uintptr_t *seen;
static size_t seen_cap, seen_used;

static size_t seen_slot(uintptr_t id, size_t cap)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (cap - 1);
}

static int seen_grow(void)
{
	size_t cap = seen_cap ? seen_cap * 2 : 4096;
	uintptr_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < seen_cap; i++) {
		size_t j;

		if (!seen[i])
			continue;
		j = seen_slot(seen[i], cap);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = seen[i];
	}
	free(seen);
	seen = t;
	seen_cap = cap;
	return 0;
}

/* With the lock held: 1 when ID was new and is now marked. */
static int seen_add(uintptr_t id)
{
	size_t j;

	if ((seen_used + 1) * 2 > seen_cap && seen_grow())
		return 0;
	for (j = seen_slot(id, seen_cap); seen[j];
	     j = (j + 1) & (seen_cap - 1))
		if (seen[j] == id)
			return 0;
	seen[j] = id;
	seen_used++;
	return 1;
}

static void method_write(jvmtiEnv *jvmti, jmethodID m)
{
	char *mname = NULL, *msig = NULL, *csig = NULL, *src = NULL;
	jvmtiLineNumberEntry *lt = NULL;
	jint nr_lt = 0;
	jclass cls;
	char name[1024], file[512];
	unsigned char fixed[JM_METHOD_FIXED] = { 0 };
	unsigned char *lines = NULL;
	size_t nlen, flen = 0;

	if ((*jvmti)->GetMethodName(jvmti, m, &mname, &msig, NULL) !=
	    JVMTI_ERROR_NONE)
		return;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) ==
	    JVMTI_ERROR_NONE)
		(*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL);
	nlen = agent_name_format(name, sizeof(name), csig, mname, msig);
	if (nlen >= sizeof(name))
		nlen = sizeof(name) - 1;
	if (csig && (*jvmti)->GetSourceFileName(jvmti, cls, &src) ==
			    JVMTI_ERROR_NONE) {
		flen = agent_source_format(file, sizeof(file), csig, src);
		if (flen >= sizeof(file))
			flen = sizeof(file) - 1;
	}
	if ((*jvmti)->GetLineNumberTable(jvmti, m, &nr_lt, &lt) !=
	    JVMTI_ERROR_NONE)
		nr_lt = 0;
	if (nr_lt > 0)
		lines = malloc((size_t)nr_lt * JM_LINE_SIZE);
	if (!lines)
		nr_lt = 0;
	for (jint i = 0; i < nr_lt; i++) {
		agent_put32(lines + i * JM_LINE_SIZE,
			    (uint32_t)lt[i].start_location);
		agent_put32(lines + i * JM_LINE_SIZE + 4,
			    (uint32_t)lt[i].line_number);
	}
	agent_put64(fixed, (uint64_t)(uintptr_t)m);
	agent_put32(fixed + 8, (uint32_t)nlen);
	agent_put32(fixed + 12, (uint32_t)flen);
	agent_put32(fixed + 16, (uint32_t)nr_lt);
	/* name and file go out as one part: copy file behind name */
	{
		char both[sizeof(name) + sizeof(file)];

		memcpy(both, name, nlen);
		memcpy(both + nlen, file, flen);
		agent_out_record(JM_REC_METHOD, 0, fixed, sizeof(fixed), both,
				 nlen + flen, lines,
				 (size_t)nr_lt * JM_LINE_SIZE);
	}
	if (agent_log)
		fprintf(agent_log, "method %p %s %s lines=%d\n", (void *)m,
			name, flen ? file : "-", (int)nr_lt);
	free(lines);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)mname);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)msig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)src);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)lt);
}

void agent_method_note(jvmtiEnv *jvmti, jmethodID m)
{
	int fresh;

	if (!m)
		return;
	agent_lock();
	fresh = seen_add((uintptr_t)m);
	agent_unlock();
	/* marked before it is written: another thread that sees the mark
	 * may write code that names M first, which the reader allows */
	if (fresh)
		method_write(jvmti, m);
}
