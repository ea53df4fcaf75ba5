/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where opreport's diagnostics go: util's one sink (oputil/diag.h),
 * named "opreport" once, in main().
 */
#ifndef OPREPORT_DIAG_H
#define OPREPORT_DIAG_H

#include "oputil/diag.h"

#endif
