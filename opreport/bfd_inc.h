/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bfd.h refuses to be included unless the includer says which package
 * it belongs to (config.h style). */
#ifndef OPREPORT_BFD_INC_H
#define OPREPORT_BFD_INC_H

#ifndef PACKAGE
#define PACKAGE "opjit"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif
#include <bfd.h>

#endif
