/* SPDX-License-Identifier: MIT */
/* The javamap JVMTI agent's private interface.  The agent logs through
 * libopjit-jitlog, as any JIT would. */
#ifndef OPJIT_JM_AGENT_H
#define OPJIT_JM_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jvmti.h>

struct opjit_jitlog;

struct agent_opts {
	char *file; /* output path, NULL: /tmp/anon.<pid> */
	int inline_frames;
	char *debug;	 /* debug log path, "-" for stderr, NULL: none */
	long long alloc; /* sampling interval in bytes, -1: off */
	long long lock;	 /* threshold in ns, -1: off */
	long long code;	 /* most bytes of code to copy, -1: none */
};
/* code's default: the jitlog library's (OPJIT_JITLOG_CODE_BUDGET) */
#define AGENT_CODE_BUDGET (64ll << 20)

/* agent_opts.c: parse "file=PATH,inline=yes|no,debug[=PATH]" and the
 * rest (README.md, "Agent options").  0, or
 * -EINVAL with a one-line reason in ERR. */
int agent_opts_parse(const char *s, struct agent_opts *o, char *err,
		     size_t errlen);
void agent_opts_free(struct agent_opts *o);

/* agent_names.c: "com.example.Foo.bar(int, java.lang.String)" from a
 * class signature, method name and method signature.  Writes at most
 * LEN bytes, always terminated; returns the length it wanted. */
size_t agent_name_format(char *buf, size_t len, const char *class_sig,
			 const char *name, const char *sig);
/* "com/example/Foo.java" from "Lcom/example/Foo;" and "Foo.java". */
size_t agent_source_format(char *buf, size_t len, const char *class_sig,
			   const char *source);

/* "java.lang.String", "byte[]" from a field type signature. */
size_t agent_type_format(char *buf, size_t len, const char *sig);

/* agent_method.c: the jitlog id of method M, declared to the log the
 * first time it is asked for; 0 when the JVM cannot name M. */
uint64_t agent_method_id(jvmtiEnv *jvmti, jmethodID m);
/* The id of M if it was declared, else 0; asks the JVM nothing. */
uint64_t agent_method_find(jmethodID m);

/* agent_code.c: the JVMTI events that log code. */
void JNICALL agent_on_compiled_load(jvmtiEnv *jvmti, jmethodID method,
				    jint code_size, const void *code_addr,
				    jint map_length,
				    const jvmtiAddrLocationMap *map,
				    const void *compile_info);
void JNICALL agent_on_compiled_unload(jvmtiEnv *jvmti, jmethodID method,
				      const void *code_addr);
void JNICALL agent_on_dynamic_code(jvmtiEnv *jvmti, const char *name,
				   const void *address, jint length);

/* agent_fp.c: one line on stderr when the JVM runs without
 * -XX:+PreserveFramePointer.  JNI must be usable (live phase).  The
 * flag's value: 1, 0, or -1 when the JVM cannot say. */
int agent_fp_check(JNIEnv *jni);

/* agent_interp.c: the Method* of every method of every prepared class,
 * from now on (ClassPrepare) and before (a sweep), as DATA ranges that
 * name interpreted frames. */
void agent_interp_start(jvmtiEnv *jvmti);
void JNICALL agent_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni,
				    jthread thread, jclass cls);

/* agent_alloc.c, agent_lock.c: the events of the alloc= and lock=
 * options.  _caps asks for the capability and says in one line on
 * stderr when the JVM refuses it (0 then, the rest of the agent runs
 * on); _setup sets the callbacks in CB; _enable turns the events on. */
int agent_alloc_caps(jvmtiEnv *jvmti, long long interval);
void agent_alloc_setup(jvmtiEventCallbacks *cb);
int agent_alloc_enable(jvmtiEnv *jvmti);
int agent_lock_caps(jvmtiEnv *jvmti, long long threshold);
void agent_lock_setup(jvmtiEventCallbacks *cb);
int agent_lock_enable(jvmtiEnv *jvmti);

/* agent_stack.c: log an event of KIND (OPJIT_JL_EVENT_*) for the calling
 * thread, with its Java stack and the class CLS (NULL: unknown). */
void agent_event_log(jvmtiEnv *jvmti, JNIEnv *jni, unsigned kind,
		     uint64_t value, uint64_t aux, jclass cls);

/* agent_main.c: the lock of the agent's tables (methods, live code). */
void agent_lock(void);
void agent_unlock(void);

extern FILE *agent_log; /* debug log, NULL when off */
extern int agent_inline;
extern struct opjit_jitlog *agent_jitlog; /* the log, NULL when off */
extern __thread int agent_replaying;	  /* inside GenerateEvents */

#endif
