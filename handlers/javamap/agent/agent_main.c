// SPDX-License-Identifier: MIT
/*
 * libjavamap-agent.so: a JVMTI agent that records every piece of code the
 * JVM compiles or generates, with CLOCK_MONOTONIC times, names, lines and
 * inlining chains, through libopjit-jitlog into the time-stamped map that
 * opjit's jitlog (alias javamap) handler reads.
 *
 *   java -agentpath:/path/libjavamap-agent.so[=OPTIONS] ...
 *   jcmd PID JVMTI.agent_load /path/libjavamap-agent.so [OPTIONS]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>

#include <jvmti.h>

#include <opjit/jitlog.h>

#include "agent.h"

FILE *agent_log;
int agent_inline = 1;
struct opjit_jitlog *agent_jitlog;
/* set while GenerateEvents replays code older than the agent */
__thread int agent_replaying;

static pthread_mutex_t agent_mutex = PTHREAD_MUTEX_INITIALIZER;
static char agent_path[4096];

void agent_lock(void)
{
	pthread_mutex_lock(&agent_mutex);
}

void agent_unlock(void)
{
	pthread_mutex_unlock(&agent_mutex);
}

/* Code that existed before the agent could see it being made. */
static void agent_replay(jvmtiEnv *jvmti)
{
	agent_replaying = 1;
	(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
	(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
	agent_replaying = 0;
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thr)
{
	agent_replay(jvmti);
	if (agent_fp_check(jni))
		agent_interp_start(jvmti);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	/* flushed, not closed: a compiler thread may still be inside a
	 * callback that logs */
	opjit_jitlog_flush(agent_jitlog);
	if (agent_log)
		fflush(agent_log);
}

static int agent_enable(jvmtiEnv *jvmti, int live, const struct agent_opts *o)
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
	int ret;

	caps.can_generate_compiled_method_load_events = 1;
	caps.can_get_source_file_name = 1;
	caps.can_get_line_numbers = 1;
	e = (*jvmti)->AddCapabilities(jvmti, &caps);
	if (e != JVMTI_ERROR_NONE)
		return -(int)e;
	agent_alloc_caps(jvmti, o->alloc);
	agent_lock_caps(jvmti, o->lock);
	agent_alloc_setup(&cb);
	agent_lock_setup(&cb);
	cb.CompiledMethodLoad = agent_on_compiled_load;
	cb.CompiledMethodUnload = agent_on_compiled_unload;
	cb.DynamicCodeGenerated = agent_on_dynamic_code;
	cb.ClassPrepare = agent_on_class_prepare;
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
	ret = agent_alloc_enable(jvmti);
	if (!ret)
		ret = agent_lock_enable(jvmti);
	return ret;
}

/*
 * The debug log is made without following a link, and an existing file
 * is appended to only when it is this user's own plain file (a log of an
 * earlier run): a JVM run by root must not write where another user's
 * link or file points.
 */
static FILE *agent_open_log(const char *path)
{
	const int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC;
	const char *why = NULL;
	struct stat st;
	FILE *f = NULL;
	int fd;

	if (!strcmp(path, "-"))
		return stderr;
	fd = open(path, flags | O_CREAT | O_EXCL, 0600);
	if (fd < 0 && errno == EEXIST) {
		fd = open(path, flags | O_NONBLOCK);
		if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
				st.st_uid != geteuid() || st.st_nlink != 1)) {
			close(fd);
			fd = -1;
			why = "exists and is not this user's own log file";
		}
	}
	if (fd >= 0)
		f = fdopen(fd, "a");
	if (!f) {
		if (!why)
			why = errno == ELOOP ? "is a symbolic link"
					     : strerror(errno);
		if (fd >= 0)
			close(fd);
		fprintf(stderr,
			"javamap-agent: cannot open debug log %s: %s; "
			"going on without it\n",
			path, why);
	}
	return f;
}

/* Returns JNI_OK even when it gives up, so that a profiler's agent never
 * stops the application from running. */
static jint agent_start(JavaVM *vm, const char *options, int live)
{
	struct opjit_jitlog_options lo = { .struct_size = sizeof(lo) };
	struct agent_opts o;
	char err[512];
	jvmtiEnv *jvmti = NULL;
	int ret;

	if (agent_jitlog) {
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
	lo.path = agent_path;
	if (o.code > 0) {
		/* CompiledMethodLoad's code is readable where it says */
		lo.flags = OPJIT_JITLOG_OPT_CODE_BYTES;
		lo.code_budget = (uint64_t)o.code;
	}
	ret = opjit_jitlog_open(&lo, &agent_jitlog);
	if (ret) {
		fprintf(stderr,
			"javamap-agent: cannot create %s: %s; "
			"not recording\n",
			agent_path, opjit_jitlog_strerror(ret));
		goto out;
	}
	if (agent_log)
		fprintf(agent_log, "javamap-agent: writing %s\n", agent_path);
	ret = agent_enable(jvmti, live, &o);
	if (ret) {
		fprintf(stderr,
			"javamap-agent: cannot enable JVMTI events "
			"(error %d); the map stays empty\n",
			-ret);
		goto out;
	}
	if (live) {
		JNIEnv *jni = NULL;

		agent_replay(jvmti);
		if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) ==
		    JNI_OK)
			if (agent_fp_check(jni))
				agent_interp_start(jvmti);
	}
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
	/* the JVM is gone or going; the log stays mapped, whole to its
	 * last record, for any callback still running */
	opjit_jitlog_flush(agent_jitlog);
}
