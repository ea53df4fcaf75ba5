// SPDX-License-Identifier: MIT
/*
 * An event sample of the calling thread: its Java stack, each frame a
 * method declared to the log (the table CPU samples are named with) and
 * a bytecode index, logged with the class the event is about.
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "jitlog_event.h"

#define STACK_DEPTH 128 /* deeper stacks keep their innermost frames */

void agent_event_log(jvmtiEnv *jvmti, JNIEnv *jni, unsigned kind,
		     uint64_t value, uint64_t aux, jclass cls)
{
	struct opjit_jitlog_frame fr[STACK_DEPTH];
	jvmtiFrameInfo fi[STACK_DEPTH];
	struct opjit_jl_event ev = {
		.kind = kind,
		.value = value,
		.aux = aux,
		.frames = fr,
	};
	char what[512] = "?";
	char *sig = NULL;
	jint n = 0;

	if (!agent_jitlog)
		return;
	if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, STACK_DEPTH, fi, &n) !=
	    JVMTI_ERROR_NONE)
		n = 0;
	for (jint i = 0; i < n; i++) {
		uint64_t id = agent_method_id(jvmti, fi[i].method);

		/* a method the JVM cannot name ends the stack: the frames
		 * beyond it would hang under nothing */
		if (!id)
			break;
		fr[ev.nr_frames].method = id;
		fr[ev.nr_frames].location =
			fi[i].location < 0 ? 0 : (uint32_t)fi[i].location;
		fr[ev.nr_frames].reserved = 0;
		ev.nr_frames++;
	}
	if (cls && (*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) ==
			   JVMTI_ERROR_NONE) {
		agent_type_format(what, sizeof(what), sig);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	}
	ev.what = what;
	ev.tid = (uint64_t)syscall(SYS_gettid);
	if (opjit_jl_event(agent_jitlog, &ev) && agent_log)
		fprintf(agent_log, "javamap-agent: event of kind %u lost\n",
			kind);
}
