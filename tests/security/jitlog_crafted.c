// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A crafted libopjit-jitlog.so for daemon_jitlog_attach.sh: it exports
 * opjit_jitlog_control, with the right magic and version, in section
 * LAB_SECTION (.rodata or .text) instead of writable data, where a
 * profiler writing through /proc/PID/mem (which ignores page protection)
 * would change read-only memory.
 */
#ifndef LAB_SECTION
#error "LAB_SECTION names the control block's section"
#endif

__asm__(".section " LAB_SECTION "\n"
	".globl opjit_jitlog_control\n"
	".type opjit_jitlog_control, @object\n"
	".size opjit_jitlog_control, 24\n"
	".balign 8\n"
	"opjit_jitlog_control:\n"
	".ascii \"OPJITCTL\"\n"
	".long 1, 0, 0, 0\n"
	".previous\n");

/* code, so that the library has an executable mapping to be found by */
int lab_crafted_code(int x)
{
	return x + 1;
}
