// SPDX-License-Identifier: MIT
/*
 * Whether the JVM keeps frame pointers in compiled Java code.  Without
 * -XX:+PreserveFramePointer, C1 and C2 code uses rbp as a general
 * register, and a frame-pointer call chain stops at the first compiled
 * frame: a call graph would show Java leaves with no Java callers and
 * no word of why.  The agent says so once, at start.
 *
 * JVMTI cannot read a -XX flag; HotSpot's diagnostic MXBean can, and it
 * sees the flag however it was set (command line, JAVA_TOOL_OPTIONS, a
 * flags file).  A JVM without that bean (a jlink image without
 * jdk.management) is not asked, and the agent says nothing.
 */
#include <string.h>

#include <jni.h>

#include "agent.h"

/* The flag's value as the JVM has it: 1, 0, or -1 when it cannot say. */
static int agent_fp_flag(JNIEnv *jni)
{
	jclass mf = NULL, bean_cls = NULL, bean_if = NULL, opt_cls = NULL;
	jobject bean = NULL, opt = NULL, val = NULL;
	jstring name = NULL;
	jmethodID get_bean, get_opt, get_val;
	const char *s;
	int ret = -1;

	mf = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
	if (!mf)
		goto out;
	bean_if = (*jni)->FindClass(
		jni, "com/sun/management/HotSpotDiagnosticMXBean");
	if (!bean_if)
		goto out;
	get_bean = (*jni)->GetStaticMethodID(
		jni, mf, "getPlatformMXBean",
		"(Ljava/lang/Class;)Ljava/lang/management/PlatformManagedObject;");
	if (!get_bean)
		goto out;
	bean = (*jni)->CallStaticObjectMethod(jni, mf, get_bean, bean_if);
	if (!bean || (*jni)->ExceptionCheck(jni))
		goto out;
	bean_cls = (*jni)->GetObjectClass(jni, bean);
	get_opt = (*jni)->GetMethodID(
		jni, bean_if, "getVMOption",
		"(Ljava/lang/String;)Lcom/sun/management/VMOption;");
	if (!get_opt)
		goto out;
	name = (*jni)->NewStringUTF(jni, "PreserveFramePointer");
	if (!name)
		goto out;
	opt = (*jni)->CallObjectMethod(jni, bean, get_opt, name);
	if (!opt || (*jni)->ExceptionCheck(jni))
		goto out;
	opt_cls = (*jni)->GetObjectClass(jni, opt);
	get_val = (*jni)->GetMethodID(jni, opt_cls, "getValue",
				      "()Ljava/lang/String;");
	if (!get_val)
		goto out;
	val = (*jni)->CallObjectMethod(jni, opt, get_val);
	if (!val || (*jni)->ExceptionCheck(jni))
		goto out;
	s = (*jni)->GetStringUTFChars(jni, val, NULL);
	if (s) {
		ret = !strcmp(s, "true");
		(*jni)->ReleaseStringUTFChars(jni, val, s);
	}
out:
	/* a JVM without the bean must not see our lookups fail */
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (val)
		(*jni)->DeleteLocalRef(jni, val);
	if (opt_cls)
		(*jni)->DeleteLocalRef(jni, opt_cls);
	if (opt)
		(*jni)->DeleteLocalRef(jni, opt);
	if (name)
		(*jni)->DeleteLocalRef(jni, name);
	if (bean_cls)
		(*jni)->DeleteLocalRef(jni, bean_cls);
	if (bean)
		(*jni)->DeleteLocalRef(jni, bean);
	if (bean_if)
		(*jni)->DeleteLocalRef(jni, bean_if);
	if (mf)
		(*jni)->DeleteLocalRef(jni, mf);
	return ret;
}

int agent_fp_check(JNIEnv *jni)
{
	int fp = jni ? agent_fp_flag(jni) : -1;

	if (fp)
		return fp;
	fprintf(stderr, "javamap-agent: -XX:+PreserveFramePointer is off: "
			"call graphs will show no Java callers above "
			"compiled Java code\n");
	return fp;
}
