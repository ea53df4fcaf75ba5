/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where oprofiled's diagnostics go: util's one sink (oputil/diag.h),
 * named "oprofiled" once, in main().
 */
#ifndef OPROFILED_DIAG_H
#define OPROFILED_DIAG_H

#include "oputil/diag.h"

#endif
