// SPDX-License-Identifier: MIT
/*
 * alloc=BYTES: JVMTI's SampledObjectAlloc (JDK 11+), one sample about
 * every BYTES allocated by each thread, each logged with the object's
 * class and size and the allocating stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jitlog_event.h"

static long long alloc_interval = -1;

static void JNICALL alloc_on_sample(jvmtiEnv *jvmti, JNIEnv *jni,
				    jthread thread, jobject object,
				    jclass klass, jlong size)
{
	agent_event_log(jvmti, jni, OPJIT_JL_EVENT_ALLOC,
			size < 0 ? 0 : (uint64_t)size,
			(uint64_t)alloc_interval, klass);
}

/* Whether the JVM offers sampled allocations; JAVAMAP_AGENT_DENY=alloc
 * makes it seem not to, as a JDK before 11 would, for the tests. */
static int alloc_offered(jvmtiEnv *jvmti)
{
	const char *deny = getenv("JAVAMAP_AGENT_DENY");
	jvmtiCapabilities pc = { 0 };

	if (deny && !strcmp(deny, "alloc"))
		return 0;
	if ((*jvmti)->GetPotentialCapabilities(jvmti, &pc) != JVMTI_ERROR_NONE)
		return 0;
	return pc.can_generate_sampled_object_alloc_events;
}

int agent_alloc_caps(jvmtiEnv *jvmti, long long interval)
{
	jvmtiCapabilities caps = { 0 };

	if (interval < 0)
		return 0;
	caps.can_generate_sampled_object_alloc_events = 1;
	if (!alloc_offered(jvmti) ||
	    (*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
		fprintf(stderr,
			"javamap-agent: this JVM cannot sample allocations "
			"(SampledObjectAlloc needs JDK 11 or later); "
			"alloc= is off, the rest records as usual\n");
		return 0;
	}
	alloc_interval = interval;
	return 1;
}

void agent_alloc_setup(jvmtiEventCallbacks *cb)
{
	if (alloc_interval >= 0)
		cb->SampledObjectAlloc = alloc_on_sample;
}

int agent_alloc_enable(jvmtiEnv *jvmti)
{
	jvmtiError e;

	if (alloc_interval < 0)
		return 0;
	e = (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)alloc_interval);
	if (e == JVMTI_ERROR_NONE)
		e = (*jvmti)->SetEventNotificationMode(
			jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
			NULL);
	return e == JVMTI_ERROR_NONE ? 0 : -(int)e;
}
