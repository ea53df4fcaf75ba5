// SPDX-License-Identifier: MIT
/*
 * lock=NANOSECONDS: a thread that waited at least that long to enter a
 * contended monitor logs the time it waited, the monitor's class and its
 * stack when it gets in.
 */
#include <stdio.h>
#include <time.h>

#include <oputil/clock.h>

#include "agent.h"
#include "jitlog_event.h"

static long long lock_threshold = -1;
/* when this thread began to wait, 0 when it is not waiting */
static __thread uint64_t lock_since;

static void JNICALL lock_on_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				  jobject object)
{
	lock_since = oputil_clock_ns(CLOCK_MONOTONIC);
}

static void JNICALL lock_on_entered(jvmtiEnv *jvmti, JNIEnv *jni,
				    jthread thread, jobject object)
{
	uint64_t now = oputil_clock_ns(CLOCK_MONOTONIC);
	uint64_t waited;
	jclass cls;

	/* the agent attached while this thread waited */
	if (!lock_since)
		return;
	waited = now - lock_since;
	lock_since = 0;
	if (waited < (uint64_t)lock_threshold)
		return;
	cls = (*jni)->GetObjectClass(jni, object);
	agent_event_log(jvmti, jni, OPJIT_JL_EVENT_LOCK, waited,
			(uint64_t)lock_threshold, cls);
	if (cls)
		(*jni)->DeleteLocalRef(jni, cls);
}

int agent_lock_caps(jvmtiEnv *jvmti, long long threshold)
{
	jvmtiCapabilities caps = { 0 };

	if (threshold < 0)
		return 0;
	caps.can_generate_monitor_events = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
		fprintf(stderr, "javamap-agent: this JVM gives no monitor "
				"events; lock= is off, the rest records as "
				"usual\n");
		return 0;
	}
	lock_threshold = threshold;
	return 1;
}

void agent_lock_setup(jvmtiEventCallbacks *cb)
{
	if (lock_threshold < 0)
		return;
	cb->MonitorContendedEnter = lock_on_enter;
	cb->MonitorContendedEntered = lock_on_entered;
}

int agent_lock_enable(jvmtiEnv *jvmti)
{
	jvmtiError e;

	if (lock_threshold < 0)
		return 0;
	e = (*jvmti)->SetEventNotificationMode(
		jvmti, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
		NULL);
	if (e == JVMTI_ERROR_NONE)
		e = (*jvmti)->SetEventNotificationMode(
			jvmti, JVMTI_ENABLE,
			JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
	return e == JVMTI_ERROR_NONE ? 0 : -(int)e;
}
