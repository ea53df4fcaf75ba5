/* SPDX-License-Identifier: MIT */
/*
 * The time-stamped map format, shared by libopjit-jitlog (which writes
 * it) and the handler (which reads it).  handlers/jitlog/FORMAT.md is the
 * normative description; this header only names its constants.  All integers are little-endian and
 * records are packed, not aligned.
 */
#ifndef OPJIT_JM_FORMAT_H
#define OPJIT_JM_FORMAT_H

#define JM_MAGIC "OPJITJMP"
#define JM_MAGIC_LEN 8
/* 1: records back to back (the JVMTI agent); 2: each record in a frame
 * (the jitlog library), so that a log can be read while it is written */
#define JM_VERSION_RECORDS 1
#define JM_VERSION_FRAMED 2
/* 2.1: a CODE_LOAD may end in the code's bytes */
#define JM_VERSION_MINOR 1

/* magic[8] u16 major u16 minor u32 header_size u32 pid u32 flags
 * u64 start_ns */
#define JM_HEADER_SIZE 32
#define JM_HDR_INLINE 0x1u /* CODE_LOAD records carry inlined frames */

/* version 2: u32 seq (0: not written yet) u32 crc32c of the record; the
 * record follows, and the frame is padded to a multiple of 8 bytes */
#define JM_FRAME_HEADER_SIZE 8

/* u16 kind u16 flags u32 length (header included) u64 time_ns */
#define JM_REC_HEADER_SIZE 16

enum jm_rec_kind {
	JM_REC_METHOD = 1,	 /* a method's name, source file, line table */
	JM_REC_CODE_LOAD = 2,	 /* compiled code and its per-pc frames */
	JM_REC_CODE_UNLOAD = 3,	 /* compiled code freed */
	JM_REC_DYNAMIC_CODE = 4, /* interpreter and stubs */
	/* event samples with a stack, for opreport --event= */
	JM_REC_ALLOC = 16, /* an allocation sample */
	JM_REC_LOCK = 17,  /* a contended monitor enter */
};

/* record flags */
#define JM_REC_REPLAYED 0x1u /* sent by GenerateEvents: older than its time */
#define JM_REC_DATA 0x2u     /* a method's data (Method*), not code */

/* fixed part of each payload, before its variable part */
#define JM_METHOD_FIXED \
	24		       /* u64 id u32 name_len u32 file_len
				  u32 nr_lines u32 reserved */
#define JM_LINE_SIZE 8	       /* u32 bci u32 line */
#define JM_CODE_LOAD_FIXED 24  /* u64 id u64 addr u32 size u32 nr_pcs */
#define JM_PC_FIXED 8	       /* u32 offset u16 nr_frames u16 reserved */
#define JM_FRAME_SIZE 12       /* u64 method id, i32 bci */
#define JM_CODE_UNLOAD_SIZE 16 /* u64 id u64 addr */
#define JM_CODE_BYTES_FIXED 4  /* 2.1, after the pcs: u32 code_len */
#define JM_DYNAMIC_FIXED 16    /* u64 addr u32 size u32 name_len */
#define JM_EVENT_FIXED \
	32 /* u64 tid u64 value u64 aux u32 what_len u32 nr_frames */

#endif
