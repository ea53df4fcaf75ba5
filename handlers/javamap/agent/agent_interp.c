// SPDX-License-Identifier: MIT
/*
 * Interpreted frames.  HotSpot's interpreter runs every method from one
 * piece of code, "Interpreter": a frame-pointer chain through it names
 * no method.  Each interpreted frame holds its method's Method* at a
 * fixed offset from its frame pointer, and a jmethodID is a pointer to
 * a slot holding that Method*; so the agent logs, for every method of
 * every prepared class, the Method* as a DATA range that names the
 * method, and a reader that finds the value in a frame names it.
 *
 * Only with -XX:+PreserveFramePointer: without it no chain reaches the
 * interpreted callers, and the records would be bytes for nothing.
 */
#include <stdint.h>

#include <oputil/u64map.h>

#include <opjit/jitlog.h>

#include "agent.h"

/* Method* values logged, under agent_lock() */
static struct oputil_u64map logged;

static void interp_method(jvmtiEnv *jvmti, jmethodID m, int older)
{
	struct opjit_jitlog_code c = {
		.struct_size = sizeof(c),
		.size = 8,
		.flags = OPJIT_JITLOG_CODE_DATA |
			 (older ? OPJIT_JITLOG_CODE_OLDER : 0),
	};
	uint64_t one = 1;
	int seen;

	/* HotSpot's jmethodID: the address of a slot that holds the
	 * Method*, for as long as the class lives */
	c.addr = m ? (uintptr_t) * (void *const *)m : 0;
	if (!c.addr)
		return;
	agent_lock();
	seen = oputil_u64map_get(&logged, c.addr, &one);
	if (!seen)
		oputil_u64map_put(&logged, c.addr, 1, NULL);
	agent_unlock();
	if (seen)
		return;
	c.method = agent_method_id(jvmti, m);
	if (!c.method || opjit_jitlog_load(agent_jitlog, &c))
		return;
	if (agent_log)
		fprintf(agent_log, "data %p Method*=%#llx\n", (void *)m,
			(unsigned long long)c.addr);
}

static void interp_class(jvmtiEnv *jvmti, jclass cls, int older)
{
	jmethodID *ms = NULL;
	jint n = 0;

	if ((*jvmti)->GetClassMethods(jvmti, cls, &n, &ms) != JVMTI_ERROR_NONE)
		return;
	for (jint i = 0; i < n; i++)
		interp_method(jvmti, ms[i], older);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
}

void JNICALL agent_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni,
				    jthread thread, jclass cls)
{
	(void)jni;
	(void)thread;
	if (agent_jitlog)
		interp_class(jvmti, cls, 0);
}

void agent_interp_start(jvmtiEnv *jvmti)
{
	jclass *cs = NULL;
	jint n = 0, st;

	if (!agent_jitlog)
		return;
	/* the event first: a class prepared during the sweep is seen
	 * twice and logged once */
	if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					       JVMTI_EVENT_CLASS_PREPARE,
					       NULL) != JVMTI_ERROR_NONE ||
	    (*jvmti)->GetLoadedClasses(jvmti, &n, &cs) != JVMTI_ERROR_NONE)
		return;
	for (jint i = 0; i < n; i++) {
		if ((*jvmti)->GetClassStatus(jvmti, cs[i], &st) ==
			    JVMTI_ERROR_NONE &&
		    (st & JVMTI_CLASS_STATUS_PREPARED))
			interp_class(jvmti, cs[i], 1);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)cs);
}
